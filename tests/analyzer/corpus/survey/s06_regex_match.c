// expect: pass
/* refused before issue 14 -- include: <regex.h> was outside the include allowlist */
/* survey: regex matching with regcomp/regexec */
#include <regex.h>
#include <stdio.h>
int main(void)
{
	regex_t re;
	regmatch_t m[2];
	char err[128];
	int rc = regcomp(&re, "([0-9]+)-[a-z]+", REG_EXTENDED);
	if (rc) {
		regerror(rc, &re, err, sizeof(err));
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	rc = regexec(&re, "order 42-abc", 2, m, 0);
	printf("{\"match\":%s,\"start\":%d}\n", rc == 0 ? "true" : "false", rc == 0 ? (int)m[1].rm_so : -1);
	regfree(&re);
	return 0;
}
