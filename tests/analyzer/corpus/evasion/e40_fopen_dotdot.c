// expect: file_access
#include <stdio.h>
int main(void) { FILE *f = fopen("/tmp/../etc/shadow", "r"); return f == NULL; }
