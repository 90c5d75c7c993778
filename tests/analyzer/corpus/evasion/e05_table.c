// expect: process
#include <stdlib.h>
#include <stdio.h>
static int (*const table[])(const char *) = { puts, system };
int main(void) { printf("%p\n", (void *)table[1]); return 0; }
