// expect: attribute
// an attribute one compiler does not know is silently skipped by it
#include <stdio.h>
__attribute__((no_reorder)) int counter = 1;
int main(void) { printf("%d\n", counter); return 0; }
