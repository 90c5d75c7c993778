#include <toolgate/tool.h>

static const struct {
	const char *unit;
	double meters;
} units[] = {
	{ "mm", 0.001 }, { "cm", 0.01 }, { "m", 1.0 }, { "km", 1000.0 },
	{ "in", 0.0254 }, { "ft", 0.3048 }, { "yd", 0.9144 }, { "mi", 1609.344 },
};

static double factor(const char *u)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i].unit, u) == 0)
			return units[i].meters;
	tg_tool_fail("unknown unit: %s", u);
	return 0;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	double v = tg_arg_num(a, "value", 0);
	double r = v * factor(tg_arg_str(a, "from", "m")) / factor(tg_arg_str(a, "to", "m"));
	tg_out_object_begin();
	tg_out_key_num("value", r);
	tg_out_end();
	return 0;
}
