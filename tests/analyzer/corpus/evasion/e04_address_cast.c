// expect: process
#include <stdlib.h>
#include <stdio.h>
int main(void) { void *p = (void *)system; printf("%p\n", p); return 0; }
