// expect: pass
// output: /tmp/tool.c
// __FILE__ is the same in the analysis and the build: the source is read at one path
#include <stdio.h>
int main(void) { puts(__FILE__); return 0; }
