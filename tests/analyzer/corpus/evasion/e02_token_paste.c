// expect: process
#include <stdlib.h>
#define CAT(a, b) a##b
#define RUN CAT(sys, tem)
int main(void) { return RUN("id"); }
