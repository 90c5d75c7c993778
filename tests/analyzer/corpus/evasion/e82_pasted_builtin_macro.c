// expect: reserved_identifier
/* Selecting code by a predefined macro that clang and gcc define
 * differently: clang would see puts, gcc system. */
#include <stdio.h>
#include <stdlib.h>
#define P2(x) P_##x
#define P(x) P2(x)
#define P_1 puts
#define P___NO_INLINE__ system
int main(void) { return P(__NO_INLINE__)("id"); }
