// expect: inline_asm
__asm__(".globl sneaky\nsneaky: ret");
int main(void) { return 0; }
