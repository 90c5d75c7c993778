#include <toolgate/tool.h>

int main(void)
{
	static const int val[] = { 1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1 };
	static const char *const sym[] = { "M", "CM", "D", "CD", "C", "XC", "L", "XL",
					   "X", "IX", "V", "IV", "I" };
	tg_tool_args *a = tg_tool_read_args();
	long long n = tg_arg_int(a, "n", 1);
	char out[32] = "";

	for (int i = 0; i < 13; i++)
		while (n >= val[i]) {
			strcat(out, sym[i]);
			n -= val[i];
		}
	tg_out_object_begin();
	tg_out_key_str("roman", out);
	tg_out_end();
	return 0;
}
