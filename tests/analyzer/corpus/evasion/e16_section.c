// expect: attribute
__attribute__((section(".text"))) static const unsigned char code[] = { 0xc3 };
int main(void) { return code[0] == 0; }
