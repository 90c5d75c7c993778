// expect: raw_syscall
extern long syscall(long, ...);
int main(void) { return (int)syscall(39); }
