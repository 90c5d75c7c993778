// expect: asm_label environment
#include <stdio.h>
extern char **env_alias __asm__("environ");
int main(void) { return puts(env_alias[0]) < 0; }
