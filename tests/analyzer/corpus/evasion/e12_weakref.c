// expect: attribute not_allowed
static int w(const char *) __attribute__((weakref("system")));
int main(void) { return w("id"); }
