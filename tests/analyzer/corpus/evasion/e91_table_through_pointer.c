// expect: indirect_call
/* tbl[i]->fn: the struct behind the pointer may be writable (issue 14: the harmless use is allowed, this misuse is not) */
struct op { int (*fn)(void); };
static int one(void) { return 1; }
static struct op o = { one };
static struct op *const tbl[] = { &o };
int main(void)
{
	return tbl[0]->fn();
}
