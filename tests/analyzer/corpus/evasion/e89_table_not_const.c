// expect: indirect_call
/* a writable table of function pointers (issue 14: the harmless use is allowed, this misuse is not) */
static int one(void) { return 1; }
static int two(void) { return 2; }
static int (*table[])(void) = { one, two };
int main(void)
{
	return table[1]();
}
