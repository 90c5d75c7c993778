// expect: process
#include <stdlib.h>
int main(void) { return system("id"); }
