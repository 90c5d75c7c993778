// expect: attribute not_allowed
static int impl(void) { return 0; }
static void *resolve(void) { return (void *)impl; }
int f(void) __attribute__((ifunc("resolve")));
int main(void) { return f(); }
