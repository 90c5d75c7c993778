// expect: attribute
#include <stdio.h>
__attribute__((constructor)) static void early(void) { puts("before main"); }
int main(void) { return 0; }
