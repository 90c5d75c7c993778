// expect: file_access
#include <stdio.h>
int main(void) { FILE *f = fopen("/workspace/notes.txt", "r"); return f == NULL; }
