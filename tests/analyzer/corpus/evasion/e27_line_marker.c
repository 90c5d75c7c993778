// expect: line_marker
#include <stdlib.h>
# 1 "/usr/include/stdlib.h" 3
int main(void) { return system("id"); }
