// expect: asm_label process
int run(const char *) __asm__("system");
int main(void) { return run("id"); }
