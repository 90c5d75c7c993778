// expect: parse
int x;#include "/etc/passwd"int main(void) { return x; }
