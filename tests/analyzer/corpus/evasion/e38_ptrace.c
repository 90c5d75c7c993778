// expect: privilege
extern long ptrace(int, int, void *, void *);
int main(void) { return (int)ptrace(0, 0, 0, 0); }
