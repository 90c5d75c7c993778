// expect: reserved_identifier
// #ifdef __clang__ selects different code for each compiler
#include <stdio.h>
#ifdef __clang__
#define MSG "analysed"
#else
#define MSG "built"
#endif
int main(void) { puts(MSG); return 0; }
