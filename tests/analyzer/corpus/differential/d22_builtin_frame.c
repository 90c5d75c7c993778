// expect: builtin
// __builtin_* sets differ (__builtin_frame_address reads the stack)
#include <stdio.h>
int main(void) { printf("%p\n", __builtin_frame_address(0)); return 0; }
