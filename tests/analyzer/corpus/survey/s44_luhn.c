// expect: pass
/* survey: Luhn checksum */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	const char *num = "4539 1488 0343 6467";
	int sum = 0, alt = 0;
	for (int i = (int)strlen(num) - 1; i >= 0; i--) {
		if (!isdigit((unsigned char)num[i]))
			continue;
		int d = num[i] - '0';
		if (alt && (d *= 2) > 9)
			d -= 9;
		sum += d;
		alt = !alt;
	}
	printf("{\"valid\":%s}\n", sum % 10 == 0 ? "true" : "false");
	return 0;
}
