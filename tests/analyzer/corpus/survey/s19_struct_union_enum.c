// expect: pass
/* survey: structs, unions and enums */
#include <stdio.h>
enum kind { K_INT, K_REAL };
struct num {
	enum kind kind;
	union {
		long i;
		double r;
	} u;
};
static double as_real(struct num n)
{
	return n.kind == K_INT ? (double)n.u.i : n.u.r;
}
int main(void)
{
	struct num a = { K_INT, { .i = 3 } }, b = { .kind = K_REAL, .u.r = 0.5 };
	printf("{\"sum\":%.1f}\n", as_real(a) + as_real(b));
	return 0;
}
