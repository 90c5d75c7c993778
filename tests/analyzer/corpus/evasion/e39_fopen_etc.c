// expect: file_access
#include <stdio.h>
int main(void) { FILE *f = fopen("/etc/passwd", "r"); return f == NULL; }
