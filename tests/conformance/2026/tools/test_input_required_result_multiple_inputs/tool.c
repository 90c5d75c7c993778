/* test_input_required_result_multiple_inputs: asks for a name
 * (elicitation), a greeting (sampling) and the roots in one round, and
 * again for whichever of them the retry did not answer. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_input_elicited_str(a, "user_name", "name");
	const char *greeting = tg_input_sampled_text(a, "greeting");
	const tg_value *roots = tg_value_get(tg_input_response(a, "client_roots"), "roots");

	if (!name || !greeting || tg_value_type(roots) != TG_ARRAY) {
		tg_out_input_required_begin();
		if (!name)
			tg_out_input_elicit("user_name", "What is your name?", "name");
		if (!greeting)
			tg_out_input_sample("greeting", "Generate a greeting", 50);
		if (tg_value_type(roots) != TG_ARRAY)
			tg_out_input_roots("client_roots");
	} else {
		char text[700];
		snprintf(text, sizeof(text), "%.256s, %.256s (%zu roots)", greeting, name,
			 tg_value_len(roots));
		tg_out_content_begin();
		tg_out_content_text(text);
		tg_out_content_end();
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
