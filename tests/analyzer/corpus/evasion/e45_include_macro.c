// expect: include directive
#define H "/etc/passwd"
#include H
int main(void) { return 0; }
