// expect: include implicit_decl
// #include_next searches from a position in the include path that differs per compiler
// one pass: the refused directive is blanked, so puts is then undeclared
#include_next <stdio.h>
int main(void) { puts("x"); return 0; }
