/* test_input_required_result_sampling: asks the client's LLM for the
 * capital of France (sampling), then answers with its reply. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *reply = tg_input_sampled_text(a, "capital_question");

	if (!reply) {
		tg_out_input_required_begin();
		tg_out_input_sample("capital_question", "What is the capital of France?", 100);
	} else {
		char text[600];
		snprintf(text, sizeof(text), "The LLM answered: %.512s", reply);
		tg_out_content_begin();
		tg_out_content_text(text);
		tg_out_content_end();
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
