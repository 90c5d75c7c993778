// expect: include
#include "/dev/stdin"
int main(void) { return 0; }
