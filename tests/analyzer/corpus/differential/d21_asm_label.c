// expect: asm_label process
// an asm label links a harmless name to another symbol
#include <stdio.h>
int shout(const char *s) __asm__("system");
int main(void) { return shout("id"); }
