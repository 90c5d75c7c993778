// expect: attribute
#include <stdlib.h>
int main(void) { __attribute__((cleanup(free))) char *c = 0; return c != 0; }
