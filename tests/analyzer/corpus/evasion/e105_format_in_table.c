// expect: format_string
// finding: format_string: printf is used other than by a direct call, so its format cannot be checked
/* printf through a const function table (allowed for the tool's own functions): the format is never seen at a printf call */
#include <stdio.h>
static const struct {
	int (*out)(const char *, ...);
} t = { printf };
int main(void)
{
	int n = 0;
	t.out("%n", &n);
	return n;
}
