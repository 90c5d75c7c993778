// expect: pass
/* Hex dump of stdin, 16 bytes a line, as a JSON array of strings. */
#include <stdio.h>
#include <ctype.h>

int main(void)
{
	unsigned char buf[16];
	size_t n, i, off = 0;
	int first = 1;

	putchar('[');
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		printf("%s\"%08zx ", first ? "" : ",", off);
		first = 0;
		for (i = 0; i < n; i++)
			printf("%02x ", buf[i]);
		for (i = 0; i < n; i++)
			putchar(isprint(buf[i]) && buf[i] != '"' && buf[i] != '\\' ? buf[i] : '.');
		putchar('"');
		off += n;
	}
	puts("]");
	return 0;
}
