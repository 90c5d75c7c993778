// expect: pass
/* refused before issue 14 -- indirect_call: a call through a static const table of the tool's own functions */
/* survey: command dispatch through a static const table of own functions */
#include <stdio.h>
#include <string.h>
static double add(double a, double b) { return a + b; }
static double sub(double a, double b) { return a - b; }
static double mul(double a, double b) { return a * b; }
static const struct op {
	const char *name;
	double (*fn)(double, double);
} ops[] = { { "add", add }, { "sub", sub }, { "mul", mul } };
int main(void)
{
	const char *want = "mul";
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, want) == 0)
			printf("{\"r\":%g}\n", ops[i].fn(6, 7));
	return 0;
}
