// expect: network
extern int socket(int, int, int);
int main(void) { return socket(2, 1, 0) < 0; }
