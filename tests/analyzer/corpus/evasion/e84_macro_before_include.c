// expect: directive process
// one pass: the refused directive is blanked and the rest of the file is still checked
/* A macro defined before the headers rewrites the code inside them: here
 * the SDK's helpers would call system where they say fputs. Only
 * feature-test macros may come before an #include. */
#include <stdlib.h>
#define fputs(s, f) system(s)
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_result_string("id");
	return 0;
}
