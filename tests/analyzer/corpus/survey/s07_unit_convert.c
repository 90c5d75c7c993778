// expect: pass
/* survey: unit conversion with a static table */
#include <stdio.h>
#include <string.h>
static const struct { const char *unit; double meters; } units[] = {
	{ "m", 1.0 }, { "km", 1000.0 }, { "mi", 1609.344 }, { "ft", 0.3048 }, { "in", 0.0254 },
};
static double factor(const char *u)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i].unit, u) == 0)
			return units[i].meters;
	return 0;
}
int main(void)
{
	printf("{\"value\":%.4f}\n", 10 * factor("mi") / factor("km"));
	return 0;
}
