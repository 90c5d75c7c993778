// expect: not_allowed
#include <stdlib.h>
#include <stdio.h>
static void bye(void) { puts("bye"); }
int main(void) { return atexit(bye); }
