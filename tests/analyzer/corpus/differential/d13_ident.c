// expect: directive
// #ident and #sccs are extensions that gcc writes into the object
#include <stdio.h>
#ident "x"
int main(void) { puts("x"); return 0; }
