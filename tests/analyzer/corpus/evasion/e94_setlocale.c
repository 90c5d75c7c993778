// expect: not_allowed
/* locale.h is read-only: setlocale would read the environment and locale files (issue 14: the harmless use is allowed, this misuse is not) */
#include <locale.h>
int main(void)
{
	return setlocale(LC_ALL, "") == 0;
}
