#include <math.h>
#include <toolgate/tool.h>

static double to_c(double v, char u)
{
	return u == 'F' ? (v - 32) * 5 / 9 : u == 'K' ? v - 273.15 : v;
}

static double from_c(double c, char u)
{
	return u == 'F' ? c * 9 / 5 + 32 : u == 'K' ? c + 273.15 : c;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	double c = to_c(tg_arg_num(a, "value", 0), tg_arg_str(a, "from", "C")[0]);
	double r = from_c(c, tg_arg_str(a, "to", "C")[0]);
	tg_out_object_begin();
	tg_out_key_num("value", round(r * 10) / 10);
	tg_out_end();
	return 0;
}
