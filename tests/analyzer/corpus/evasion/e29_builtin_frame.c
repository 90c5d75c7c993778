// expect: builtin
#include <stdio.h>
int main(void) { printf("%p\n", __builtin_frame_address(0)); return 0; }
