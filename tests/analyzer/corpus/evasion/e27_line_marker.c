// expect: line_marker process
// one pass: the refused directive is blanked and the rest of the file is still checked
#include <stdlib.h>
# 1 "/usr/include/stdlib.h" 3
int main(void) { return system("id"); }
