// expect: pass
/* refused before issue 14 -- include: <complex.h> was outside the include allowlist */
/* survey: complex arithmetic with complex.h */
#include <complex.h>
#include <stdio.h>
int main(void)
{
	double complex z = 3.0 + 4.0 * I;
	printf("{\"abs\":%.1f,\"re\":%.1f,\"im\":%.1f}\n", cabs(z), creal(conj(z)), cimag(conj(z)));
	return 0;
}
