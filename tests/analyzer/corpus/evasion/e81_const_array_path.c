// expect: file_access
#include <stdio.h>
static const char where[] = "/etc/passwd";
int main(void) { FILE *f = fopen(where, "r"); return f == NULL; }
