// expect: file_access
#include <stdio.h>
int main(void) { return freopen("/proc/self/mem", "r", stdin) == NULL; }
