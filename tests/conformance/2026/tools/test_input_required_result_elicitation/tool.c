/* test_input_required_result_elicitation: asks the client for a name
 * (elicitation), then answers "Hello, <name>!". */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_input_elicited_str(a, "user_name", "name");

	if (!name) {
		tg_out_input_required_begin();
		tg_out_input_elicit("user_name", "What is your name?", "name");
		tg_out_end();
	} else {
		char text[300];
		snprintf(text, sizeof(text), "Hello, %.256s!", name);
		tg_out_content_begin();
		tg_out_content_text(text);
		tg_out_content_end();
		tg_out_end();
	}
	tg_tool_args_free(a);
	return 0;
}
