// expect: computed_goto parse
#include <stdint.h>
int main(void) { uintptr_t a = 0x401000; void *p = (void *)a; goto *p; }
