// expect: pass
/* Parse key=value lines into a JSON object, with a scratch copy in /tmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define MAX_PAIRS 64

struct pair {
	char key[64];
	char value[192];
};

static int valid_key(const char *k)
{
	if (!*k)
		return 0;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '_')
			return 0;
	return 1;
}

int main(void)
{
	static struct pair pairs[MAX_PAIRS];
	char line[256];
	int n = 0, i;
	FILE *scratch = fopen("/tmp/kv_copy.txt", "w");

	while (n < MAX_PAIRS && fgets(line, sizeof(line), stdin)) {
		char *eq = strchr(line, '=');
		if (scratch)
			fputs(line, scratch);
		if (!eq)
			continue;
		*eq = 0;
		line[strcspn(line, "\r")] = 0;
		eq[1 + strcspn(eq + 1, "\r\n")] = 0;
		if (!valid_key(line))
			continue;
		snprintf(pairs[n].key, sizeof(pairs[n].key), "%s", line);
		snprintf(pairs[n].value, sizeof(pairs[n].value), "%s", eq + 1);
		n++;
	}
	if (scratch)
		fclose(scratch);
	putchar('{');
	for (i = 0; i < n; i++)
		printf("%s\"%s\":\"%s\"", i ? "," : "", pairs[i].key, pairs[i].value);
	puts("}");
	return EXIT_SUCCESS;
}
