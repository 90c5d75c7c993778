// expect: include
#define H "/etc/passwd"
#include H
int main(void) { return 0; }
