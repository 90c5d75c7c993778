// expect: attribute
__attribute__((naked)) static void raw(void) { }
int main(void) { raw(); return 0; }
