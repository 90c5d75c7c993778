// expect: reserved_identifier
#include <stdio.h>
#define CAT(a, b) a##b
#define CAT3(a, b, c) CAT(CAT(a, b), c)
int main(void) { return CAT3(_, _, clang__) == 1 ? puts("clang") : 0; }
