/* test_input_required_result_multi_round: two rounds of questions; the
 * first round's answer comes back in the third run too (toolgate carries
 * earlier answers in the sealed requestState). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *name = tg_input_elicited_str(a, "step1", "name");
	const char *color = tg_input_elicited_str(a, "step2", "color");

	if (!name) {
		tg_out_input_required_begin();
		tg_out_input_elicit("step1", "Step 1: What is your name?", "name");
	} else if (!color) {
		tg_out_input_required_begin();
		tg_out_input_elicit("step2", "Step 2: What is your favorite color?", "color");
	} else {
		char text[600];
		snprintf(text, sizeof(text), "%.256s likes %.256s", name, color);
		tg_out_content_begin();
		tg_out_content_text(text);
		tg_out_content_end();
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
