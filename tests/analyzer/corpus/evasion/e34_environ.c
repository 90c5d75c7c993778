// expect: environment
#include <stdio.h>
extern char **environ;
int main(void) { return puts(environ[0]) < 0; }
