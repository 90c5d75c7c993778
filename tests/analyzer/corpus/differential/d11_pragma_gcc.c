// expect: pragma
// #pragma GCC optimize / push_options: gcc honours, clang ignores
#include <stdio.h>
#pragma GCC optimize("O0")
int main(void) { puts("x"); return 0; }
