// expect: pass
/* Count distinct words on stdin with an open-addressing hash table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <ctype.h>

#define SLOTS 4096

struct slot {
	char word[32];
	unsigned count;
};

static struct slot table[SLOTS];

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void add(const char *w)
{
	uint32_t i = fnv1a(w) % SLOTS, probes;
	for (probes = 0; probes < SLOTS; probes++, i = (i + 1) % SLOTS) {
		if (table[i].count == 0) {
			snprintf(table[i].word, sizeof(table[i].word), "%s", w);
			table[i].count = 1;
			return;
		}
		if (strcmp(table[i].word, w) == 0) {
			table[i].count++;
			return;
		}
	}
}

int main(void)
{
	char w[32];
	size_t n = 0, i;
	int c;

	while ((c = getchar()) != EOF) {
		if (isalnum(c) && n < sizeof(w) - 1) {
			w[n++] = (char)tolower(c);
		} else if (n) {
			w[n] = 0;
			add(w);
			n = 0;
		}
	}
	if (n) {
		w[n] = 0;
		add(w);
	}
	for (i = 0, n = 0; i < SLOTS; i++)
		n += table[i].count != 0;
	printf("{\"distinct\":%zu}\n", n);
	return 0;
}
