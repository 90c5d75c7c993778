// expect: indirect_call
#include <stdlib.h>
union pun { long i; int (*f)(const char *); };
int main(void) { union pun u; u.i = strtol("4198400", 0, 10); return u.f("id"); }
