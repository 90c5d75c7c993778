// expect: reserved_identifier
extern int __libc_system(const char *);
int main(void) { return __libc_system("id"); }
