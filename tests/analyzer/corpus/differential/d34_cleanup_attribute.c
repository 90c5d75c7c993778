// expect: attribute
// cleanup runs code implicitly at scope exit
#include <stdio.h>
static void bye(int *p) { (void)p; puts("bye"); }
int main(void) { __attribute__((cleanup(bye))) int x = 0; (void)x; return 0; }
