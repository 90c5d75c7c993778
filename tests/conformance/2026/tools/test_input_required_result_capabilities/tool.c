/* test_input_required_result_capabilities: asks for a name (elicitation)
 * and a greeting (sampling); toolgate passes on only the requests the
 * client's capabilities cover, and any one answer completes the call. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_input_elicited_str(a, "user_name", "name");
	const char *greeting = tg_input_sampled_text(a, "greeting");

	if (!name && !greeting) {
		tg_out_input_required_begin();
		tg_out_input_elicit("user_name", "What is your name?", "name");
		tg_out_input_sample("greeting", "Generate a greeting", 50);
	} else {
		tg_out_content_begin();
		tg_out_content_text(greeting ? greeting : name);
		tg_out_content_end();
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
