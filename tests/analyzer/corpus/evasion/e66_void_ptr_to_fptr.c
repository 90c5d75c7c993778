// expect: fptr_cast indirect_call
#include <stdint.h>
int main(void) { uintptr_t a = 0x401000; int (*f)(void) = (int (*)(void))(void *)a; return f(); }
