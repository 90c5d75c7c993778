/* unit_label: a length in metres, in a unit, with the unit's label. Bug:
 * the table lacks the label of "mi", so its result has "label": null,
 * which the output_schema does not allow. */
#include <toolgate/tool.h>

int main(void)
{
	static const char *const units[] = { "m", "cm", "km", "mi" };
	static const double per_metre[] = { 1, 100, 0.001, 0.000621371 };
	static const char *const labels[] = { "metres", "centimetres", "kilometres", NULL };
	tg_tool_args *a = tg_tool_read_args();
	const char *unit = tg_arg_str(a, "unit", "m");
	double v = tg_arg_num(a, "metres", 0);
	size_t i = 0;

	while (i < 3 && strcmp(units[i], unit) != 0)
		i++;
	tg_out_object_begin();
	tg_out_key("value");
	tg_out_num(v * per_metre[i]);
	tg_out_key_str("label", labels[i]);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
