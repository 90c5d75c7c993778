/* triangle: the n-th triangular number n(n+1)/2. Bug: the product is
 * computed in 32 bits; the overflow check catches it (abort) only at the
 * top of the allowed range, which no test reaches. */
#include <stdint.h>
#include <toolgate/tool.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	uint32_t n = (uint32_t)tg_arg_int(a, "n", 0);
	uint32_t p = n * (n + 1);

	if (n && p / n != n + 1)
		abort(); /* "cannot happen" */
	tg_out_object_begin();
	tg_out_key_int("triangle", p / 2);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
