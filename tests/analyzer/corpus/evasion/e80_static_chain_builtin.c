// expect: builtin
#include <stdio.h>
int main(void) { return __builtin_call_with_static_chain(puts("x"), (void *)0) < 0; }
