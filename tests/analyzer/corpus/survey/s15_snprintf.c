// expect: pass
/* survey: building strings with snprintf */
#include <stdio.h>
int main(void)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s-%04d-%.2f", "id", 42, 3.14159);
	printf("{\"s\":\"%s\",\"n\":%d}\n", buf, n);
	return 0;
}
