// expect: indirect_call
#include <string.h>
int main(void) { int (*fp)(const char *); long a = 0x401000; memcpy(&fp, &a, sizeof fp); return fp("id"); }
