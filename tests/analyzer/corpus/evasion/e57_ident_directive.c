// expect: directive
#ident "hello"
int main(void) { return 0; }
