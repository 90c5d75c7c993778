// expect: pragma implicit_decl process
// one pass: the refused directive is blanked and the rest of the file is still checked
#pragma clang diagnostic ignored "-Wimplicit-function-declaration"
int main(void) { return fork(); }
