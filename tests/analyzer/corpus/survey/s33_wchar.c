// expect: pass
/* refused before issue 14 -- include: <wchar.h> was outside the include allowlist */
/* survey: wide strings with wchar.h */
#include <stdio.h>
#include <wchar.h>
int main(void)
{
	const wchar_t *w = L"h\u00e9llo";
	printf("{\"len\":%zu,\"cmp\":%d}\n", wcslen(w), wcscmp(w, L"hello") != 0);
	return 0;
}
