// expect: process
int execv();
int main(void) { return execv("/bin/sh", 0); }
