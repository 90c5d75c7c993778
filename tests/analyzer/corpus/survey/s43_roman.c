// expect: pass
/* survey: roman numerals with static tables */
#include <stdio.h>
#include <string.h>
int main(void)
{
	static const int val[] = { 1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1 };
	static const char *const sym[] = { "M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I" };
	int n = 1994;
	char out[32] = "";
	for (int i = 0; i < 13; i++)
		while (n >= val[i]) {
			strcat(out, sym[i]);
			n -= val[i];
		}
	printf("{\"roman\":\"%s\"}\n", out);
	return 0;
}
