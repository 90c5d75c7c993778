// expect: computed_goto
#include <stdio.h>
int main(void) { void *t[] = { &&one, &&two }; goto *t[1]; one: return 1; two: return puts("x") < 0; }
