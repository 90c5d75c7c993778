/* json_schema_2020_12_tool: the conformance suite's JSON Schema 2020-12
 * fixture; its input schema does the checking, the tool says which
 * contact method it would use. */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	int phone = strcmp(tg_arg_str(a, "contactMethod", "email"), "phone") == 0;
	char text[600];

	snprintf(text, sizeof(text), "ok: %s %.256s", phone ? "phone" : "email",
		 phone ? tg_arg_str(a, "phone", "") : tg_arg_str(a, "email", ""));
	tg_out_object_begin();
	tg_out_key_str("text", text);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
