/* Append one line to /workspace/note.txt (needs workspace:write); with
 * {"dry":true} write nothing. The fail-closed tests check that it never
 * ran when its call could not be recorded. */
#include <stdio.h>
#include <string.h>

int main(void)
{
	char in[256];
	size_t n = fread(in, 1, sizeof(in) - 1, stdin);
	FILE *f;

	in[n] = '\0';
	if (strstr(in, "\"dry\":true")) {
		puts("{\"written\":false}");
		return 0;
	}
	f = fopen("/workspace/note.txt", "a");
	if (!f) {
		fprintf(stderr, "cannot open /workspace/note.txt\n");
		return 1;
	}
	fputs("written\n", f);
	fclose(f);
	puts("{\"written\":true}");
	return 0;
}
