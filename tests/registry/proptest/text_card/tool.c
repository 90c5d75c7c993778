/* text_card: a text as an MCP text block. Bug: an empty text is drawn as
 * a placeholder image typed image/svg+xml, a MIME type toolgate refuses,
 * so the result's content is refused for that input. */
#include <toolgate/tool.h>

static const unsigned char placeholder[4] = { '<', 's', '/', '>' };

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *text = tg_arg_str(a, "text", "");

	tg_out_content_begin();
	if (text[0])
		tg_out_content_text(text);
	else
		tg_out_content_image("image/svg+xml", placeholder, sizeof(placeholder));
	tg_out_content_end();
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
