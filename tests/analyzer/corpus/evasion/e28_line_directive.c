// expect: line_marker
#line 1 "/usr/include/stdio.h"
int main(void) { return 0; }
