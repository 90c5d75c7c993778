// expect: file_access indirect_call
#include <stdio.h>
int main(void) { FILE *(*o)(const char *, const char *) = fopen; return o("/etc/passwd", "r") == NULL; }
