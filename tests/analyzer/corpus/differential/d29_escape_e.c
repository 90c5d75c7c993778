// expect: pass
// output: 27
// \\e is a GNU escape (ESC)
#include <stdio.h>
int main(void) { printf("%d\n", '\e'); return 0; }
