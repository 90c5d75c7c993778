// expect: indirect_call
#include <stdio.h>
static int apply(int (*f)(const char *), const char *s) { return f(s); }
int main(void) { return apply(puts, "hi") < 0; }
