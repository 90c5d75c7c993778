// expect: pass
/* survey: compound literals and designated initializers */
#include <stdio.h>
struct pt { int x, y; };
static int dot(struct pt a, struct pt b) { return a.x * b.x + a.y * b.y; }
int main(void)
{
	int arr[5] = { [2] = 7, [4] = 9 };
	printf("{\"dot\":%d,\"a\":%d}\n", dot((struct pt){ 1, 2 }, (struct pt){ .y = 3, .x = 4 }), arr[2] + arr[4]);
	return 0;
}
