// expect: attribute
#include <stdio.h>
static void __attribute__((destructor)) late(void) { puts("after main"); }
int main(void) { return 0; }
