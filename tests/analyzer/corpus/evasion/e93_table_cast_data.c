// expect: fptr_cast indirect_call
/* a const table entry made from data by a cast (issue 14: the harmless use is allowed, this misuse is not) */
static const unsigned char code[] = { 0xc3 };
static int (*const table[])(void) = { (int (*)(void))code };
int main(void)
{
	return table[0]();
}
