// expect: indirect_call
#include <stdio.h>
struct ops { int (*say)(const char *); };
int main(void) { struct ops o = { puts }; return o.say("hi") < 0; }
