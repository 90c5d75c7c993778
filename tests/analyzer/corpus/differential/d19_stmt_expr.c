// expect: stmt_expr
// GNU statement expressions
#include <stdio.h>
int main(void) { int x = ({ int y = 2; y * 3; }); printf("%d\n", x); return 0; }
