// expect: include
#include_next <stdio.h>
int main(void) { return 0; }
