// expect: fptr_cast indirect_call
int main(void) { return ((int (*)(const char *))0x401000)("id"); }
