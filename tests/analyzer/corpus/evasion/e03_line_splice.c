// expect: process
#include <stdlib.h>
int main(void) { return sys\
tem("id"); }
