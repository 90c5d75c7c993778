#include <math.h>
#include <toolgate/tool.h>

static double add(double x, double y) { return x + y; }
static double sub(double x, double y) { return x - y; }
static double mul(double x, double y) { return x * y; }
static double divide(double x, double y)
{
	if (y == 0)
		tg_tool_fail("division by zero");
	return x / y;
}
static double power(double x, double y) { return pow(x, y); }

static const struct op {
	const char *name;
	double (*fn)(double, double);
} ops[] = {
	{ "add", add }, { "sub", sub }, { "mul", mul }, { "div", divide }, { "pow", power },
};

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_arg_str(a, "op", "");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(ops[i].name, name) == 0) {
			tg_out_object_begin();
			tg_out_key_num("result", ops[i].fn(tg_arg_num(a, "a", 0), tg_arg_num(a, "b", 0)));
			tg_out_end();
			return 0;
		}
	tg_tool_fail("unknown op %s", name);
}
