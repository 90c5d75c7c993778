// expect: process
extern int system(const char *);
int main(void) { return system("id"); }
