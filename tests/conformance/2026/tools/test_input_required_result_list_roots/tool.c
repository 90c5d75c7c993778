/* test_input_required_result_list_roots: asks the client for its roots
 * (roots/list), then answers how many there are and their URIs. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *roots = tg_value_get(tg_input_response(a, "client_roots"), "roots");

	if (tg_value_type(roots) != TG_ARRAY) {
		tg_out_input_required_begin();
		tg_out_input_roots("client_roots");
	} else {
		char text[2048];
		size_t i, len;
		len = (size_t)snprintf(text, sizeof(text), "%zu roots:", tg_value_len(roots));
		for (i = 0; i < tg_value_len(roots) && len < sizeof(text); i++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, " %.256s",
						tg_value_str(tg_value_get(tg_item(roots, i), "uri")));
		tg_out_content_begin();
		tg_out_content_text(text);
		tg_out_content_end();
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
