// expect: environment
#include <stdlib.h>
#include <stdio.h>
int main(void) { const char *h = getenv("HOME"); return h ? puts(h) : 1; }
