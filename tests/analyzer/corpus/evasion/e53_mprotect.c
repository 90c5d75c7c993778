// expect: dynamic_code
extern int mprotect(void *, unsigned long, int);
int main(void) { static char page[4096]; return mprotect(page, 4096, 7); }
