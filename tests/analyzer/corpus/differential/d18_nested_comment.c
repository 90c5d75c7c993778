// expect: implicit_decl parse
// comments do not nest in C: */ closes the first /*
#include <stdio.h>
/* outer /* inner */ puts("x"); */
int main(void) { return 0; }
