// expect: builtin
#include <string.h>
int main(void) { char *p = __builtin_alloca(64); memset(p, 0, 64); return p[0]; }
