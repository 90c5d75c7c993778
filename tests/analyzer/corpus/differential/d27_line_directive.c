// expect: line_marker
// #line makes code appear to come from elsewhere
#include <stdio.h>
#line 1 "/usr/include/stdio.h"
int main(void) { return 0; }
