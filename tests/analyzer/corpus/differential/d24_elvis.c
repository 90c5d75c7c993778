// expect: pass
// output: 4
// GNU ?: with an omitted middle operand
#include <stdio.h>
int main(void) { int a = 0, b = 4; printf("%d\n", a ?: b); return 0; }
