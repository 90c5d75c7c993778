// expect: attribute
__attribute__((visibility("default"))) int exported = 1;
int main(void) { return exported - 1; }
