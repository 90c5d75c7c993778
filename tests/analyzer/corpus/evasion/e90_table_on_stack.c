// expect: indirect_call
/* a const table on the stack (automatic storage) (issue 14: the harmless use is allowed, this misuse is not) */
static int one(void) { return 1; }
int main(void)
{
	int (*const table[])(void) = { one };
	return table[0]();
}
