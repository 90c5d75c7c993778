// expect: dynamic_code
extern int _setjmp(void *);
int main(void) { long buf[64]; return _setjmp(buf); }
