// expect: file_access
#include <stdio.h>
int main(void) { char p[64]; if (!fgets(p, sizeof p, stdin)) return 1; FILE *f = fopen(p, "r"); return f == NULL; }
