// expect: pass
// output: 1
// sizeof(void) is 1 in GNU C, an error in ISO C
#include <stdio.h>
int main(void) { printf("%zu\n", sizeof(void)); return 0; }
