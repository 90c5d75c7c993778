// expect: pass
// output: 5
// universal character names in identifiers (C99); gcc before 10 refused them
#include <stdio.h>
int main(void)
{
	int \u00e9t\u00e9 = 5;
	printf("%d\n", \u00e9t\u00e9);
	return 0;
}
