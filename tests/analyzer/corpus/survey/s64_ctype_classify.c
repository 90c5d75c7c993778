// expect: pass
/* survey: count character classes */
#include <ctype.h>
#include <stdio.h>
int main(void)
{
	const char *s = "Hello, World 42!";
	int al = 0, di = 0, pu = 0, up = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		al += isalpha(c) != 0;
		di += isdigit(c) != 0;
		pu += ispunct(c) != 0;
		up += isupper(c) != 0;
	}
	printf("{\"alpha\":%d,\"digit\":%d,\"punct\":%d,\"upper\":%d}\n", al, di, pu, up);
	return 0;
}
