// expect: file_access
#include <stdio.h>
#define DATA "/etc/" "shadow"
int main(void) { FILE *f = fopen(DATA, "r"); return f == NULL; }
