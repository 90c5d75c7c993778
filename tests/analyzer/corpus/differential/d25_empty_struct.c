// expect: pass
// output: 0 0
// GNU empty structs and zero-length arrays have size 0 in C
#include <stdio.h>
struct e { };
struct z { int n; int v[0]; };
int main(void) { printf("%zu %zu\n", sizeof(struct e), sizeof(struct z) - sizeof(int)); return 0; }
