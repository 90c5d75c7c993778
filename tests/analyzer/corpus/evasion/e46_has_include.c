// expect: include
#if __has_include("/etc/shadow")
int shadow = 1;
#endif
int main(void) { return 0; }
