// expect: attribute
// no_stack_protector removes the canary; gcc 11+ and clang both honour it
#include <stdio.h>
__attribute__((no_stack_protector)) static void f(void) { char b[64]; b[0] = 0; puts(b); }
int main(void) { f(); return 0; }
