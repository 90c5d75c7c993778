// expect: process no_prototype
int execv();
int main(void) { return execv("/bin/sh", 0); }
