// expect: asm_label not_allowed
#include <stdio.h>
int say(const char *) __asm__("puts");
int main(void) { return say("hi"); }
