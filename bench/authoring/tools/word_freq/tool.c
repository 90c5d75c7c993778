#include <ctype.h>
#include <toolgate/tool.h>

struct word {
	char *w;
	long long n;
};

static int by_count(const void *a, const void *b)
{
	const struct word *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->w, y->w);
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	char *text = strdup(tg_arg_str(a, "text", "")), *save = NULL, *t;
	long long top = tg_arg_int(a, "top", 3);
	struct word *v = NULL;
	size_t n = 0;

	if (!text)
		tg_tool_fail("out of memory");
	for (char *p = text; *p; p++)
		*p = isalpha((unsigned char)*p) ? (char)tolower((unsigned char)*p) : ' ';
	for (t = strtok_r(text, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		size_t i;
		for (i = 0; i < n && strcmp(v[i].w, t); i++)
			;
		if (i == n) {
			struct word *nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv)
				tg_tool_fail("out of memory");
			v = nv;
			v[n].w = t;
			v[n++].n = 0;
		}
		v[i].n++;
	}
	qsort(v, n, sizeof(*v), by_count);
	tg_out_array_begin();
	for (size_t i = 0; i < n && (long long)i < top; i++) {
		tg_out_object_begin();
		tg_out_key_str("word", v[i].w);
		tg_out_key_int("count", v[i].n);
		tg_out_object_end();
	}
	tg_out_array_end();
	tg_out_end();
	return 0;
}
