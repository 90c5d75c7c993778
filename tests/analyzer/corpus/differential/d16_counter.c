// expect: reserved_identifier
// __COUNTER__ and other predefined macros differ between compilers
#include <stdio.h>
int main(void) { printf("%d\n", __COUNTER__); return 0; }
