// expect: include
// __has_include answers differ with each compiler's header set
#include <stdio.h>
#if __has_include(<stdlib.h>)
int main(void) { puts("a"); return 0; }
#else
int main(void) { puts("b"); return 0; }
#endif
