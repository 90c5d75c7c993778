// expect: pass
/* survey: percent-decoding */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	const char *s = "a%20b%2Fc";
	char out[32];
	size_t o = 0;
	for (size_t i = 0; s[i] && o + 1 < sizeof(out); i++) {
		if (s[i] == '%' && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
			char hex[3] = { s[i + 1], s[i + 2], 0 };
			out[o++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = 0;
	printf("{\"s\":\"%s\"}\n", out);
	return 0;
}
