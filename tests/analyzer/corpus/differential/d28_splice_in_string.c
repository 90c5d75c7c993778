// expect: pass
// output: abcd
// a backslash-newline inside a string literal is removed
#include <stdio.h>
int main(void) { puts("ab\
cd"); return 0; }
