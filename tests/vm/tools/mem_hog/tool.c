/* mem_hog: allocate "mb" MiB and touch every page (tests/vm: a tool with
 * memory_mb 32 asked for 64 MiB must end with reason memory). */
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long mb = tg_arg_int(a, "mb", 1);
	volatile char *p = malloc((size_t)mb << 20); /* volatile: kept by -O2 */

	if (!p)
		tg_tool_fail("malloc failed");
	for (long long i = 0; i < mb << 20; i += 4096)
		p[i] = (char)i;
	tg_out_object_begin();
	tg_out_key_int("mb", mb);
	tg_out_end();
	free((void *)p);
	tg_tool_args_free(a);
	return 0;
}
