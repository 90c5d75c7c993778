// expect: attribute
// gcc honours optimize (e.g. dropping the stack protector); clang ignores it with a warning
#include <stdio.h>
__attribute__((optimize("no-stack-protector"))) static void f(void) { puts("x"); }
int main(void) { f(); return 0; }
