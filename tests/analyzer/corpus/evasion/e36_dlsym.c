// expect: dynamic_code
extern void *dlsym(void *, const char *);
int main(void) { return dlsym((void *)0, "system") == 0; }
