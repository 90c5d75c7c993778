// expect: pass
/* survey: hex dump of bytes */
#include <stdio.h>
int main(void)
{
	unsigned char b[] = { 0xde, 0xad, 0xbe, 0xef };
	char out[9];
	for (int i = 0; i < 4; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	printf("{\"hex\":\"%s\"}\n", out);
	return 0;
}
