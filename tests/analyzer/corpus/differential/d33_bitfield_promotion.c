// expect: pass
// output: 1
// an unsigned bit-field narrower than int promotes to int
#include <stdio.h>
struct s { unsigned x : 31; };
int main(void) { struct s v = { 0 }; printf("%d\n", v.x - 1 < 0); return 0; }
