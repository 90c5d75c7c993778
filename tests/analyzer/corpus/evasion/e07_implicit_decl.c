// expect: implicit_decl process
int main(void) { return fork(); }
