// expect: redefinition
#include <stddef.h>
static char pool[4096];
static size_t used;
void *malloc(size_t n) { void *p = pool + used; used += n; return p; }
int main(void) { return malloc(8) == 0; }
