// expect: pass
// output: 8
// typeof is a keyword in gnu11 and a plain identifier in c11
#include <stdio.h>
int main(void) { long v = 1; typeof(v) w = 8; printf("%ld\n", w); return 0; }
