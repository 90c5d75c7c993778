/* A confirmation fixture: asks the client to confirm (an elicitation of one
 * boolean); run again with the answer, which reaches it only after toolgate
 * verified the sealed requestState, it says "state-ok" and the answer. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const tg_value *r = tg_input_response(a, "confirm");

	if (!r) {
		tg_out_input_required_begin();
		tg_out_input_request_begin("confirm", "elicitation/create");
		tg_out_key_str("message", "Please confirm");
		tg_out_key("requestedSchema");
		tg_out_object_begin();
		tg_out_key_str("type", "object");
		tg_out_key("properties");
		tg_out_object_begin();
		tg_out_key("ok");
		tg_out_object_begin();
		tg_out_key_str("type", "boolean");
		tg_out_object_end();
		tg_out_object_end();
		tg_out_key("required");
		tg_out_array_begin();
		tg_out_str("ok");
		tg_out_array_end();
		tg_out_object_end();
		tg_out_input_request_end();
	} else {
		const tg_value *ok = tg_value_get(tg_value_get(r, "content"), "ok");
		int yes = tg_value_type(ok) == TG_BOOL && tg_value_bool(ok) &&
			  strcmp(tg_arg_str(r, "action", ""), "accept") == 0;
		tg_out_content_begin();
		tg_out_content_text(yes ? "state-ok: confirmed" : "state-ok: not confirmed");
		tg_out_content_end();
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
