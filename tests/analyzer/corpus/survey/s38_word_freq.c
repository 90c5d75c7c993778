// expect: pass
/* survey: word frequencies with a small hash table */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct ent { char *w; int n; struct ent *next; };
static struct ent *tab[64];
static unsigned hash(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % 64;
}
static void add(const char *w)
{
	unsigned h = hash(w);
	for (struct ent *e = tab[h]; e; e = e->next)
		if (!strcmp(e->w, w)) {
			e->n++;
			return;
		}
	struct ent *e = calloc(1, sizeof(*e));
	e->w = strdup(w);
	e->n = 1;
	e->next = tab[h];
	tab[h] = e;
}
int main(void)
{
	char text[] = "the cat and the hat";
	for (char *t = strtok(text, " "); t; t = strtok(NULL, " "))
		add(t);
	printf("{\"the\":%d}\n", tab[hash("the")]->n);
	return 0;
}
