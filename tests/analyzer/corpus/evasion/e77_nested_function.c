// expect: parse implicit_decl not_allowed
#include <stdio.h>
int main(void) { int twice(int x) { return 2 * x; } return printf("%d\n", twice(2)) < 0; }
