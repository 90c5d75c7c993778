// expect: pragma
// _Pragma inside a macro silences or changes code generation
#include <stdio.h>
#define QUIET _Pragma("GCC diagnostic ignored \"-Wall\"")
QUIET
int main(void) { puts("x"); return 0; }
