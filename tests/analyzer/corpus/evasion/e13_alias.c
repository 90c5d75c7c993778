// expect: attribute
int mine(void) { return 0; }
int other(void) __attribute__((alias("mine")));
int main(void) { return mine(); }
