// expect: pragma
#pragma clang diagnostic ignored "-Wimplicit-function-declaration"
int main(void) { return fork(); }
