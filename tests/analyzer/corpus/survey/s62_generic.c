// expect: pass
/* survey: _Generic type dispatch */
#include <stdio.h>
#define KIND(x) _Generic((x), int: "int", double: "double", default: "other")
int main(void)
{
	printf("{\"a\":\"%s\",\"b\":\"%s\"}\n", KIND(1), KIND(2.0));
	return 0;
}
