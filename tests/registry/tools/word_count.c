/* A word counter without the SDK: reads {"text":"..."} from stdin. The
 * text "fail" makes it exit 1 with a message on stderr (a tool error). */
#include <stdio.h>
#include <string.h>

int main(void)
{
	static char in[65536];
	size_t n = fread(in, 1, sizeof(in) - 1, stdin);
	char *p, *end;
	int words = 0, inword = 0;

	in[n] = '\0';
	p = strstr(in, "\"text\":\"");
	if (!p) {
		fprintf(stderr, "no text\n");
		return 1;
	}
	p += 8;
	end = strchr(p, '"');
	if (!end)
		return 1;
	*end = '\0';
	if (strcmp(p, "fail") == 0) {
		fprintf(stderr, "boom: asked to fail\n");
		return 1;
	}
	for (; *p; p++) {
		if (*p == ' ') {
			inword = 0;
		} else if (!inword) {
			inword = 1;
			words++;
		}
	}
	printf("{\"words\":%d}\n", words);
	return 0;
}
