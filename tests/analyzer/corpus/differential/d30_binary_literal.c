// expect: pass
// output: 5
// 0b literals are an extension in C before C23
#include <stdio.h>
int main(void) { printf("%d\n", 0b101); return 0; }
