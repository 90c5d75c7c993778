// expect: pass
/* refused before issue 14 -- include: <locale.h> was outside the include allowlist */
/* survey: read the locale's decimal point with localeconv */
#include <locale.h>
#include <stdio.h>
int main(void)
{
	const struct lconv *lc = localeconv();
	printf("{\"dp\":\"%s\"}\n", lc->decimal_point);
	return 0;
}
