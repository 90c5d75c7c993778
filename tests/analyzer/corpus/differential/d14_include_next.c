// expect: include
// #include_next searches from a position in the include path that differs per compiler
#include_next <stdio.h>
int main(void) { puts("x"); return 0; }
