/*
 * tests/fuzz_replay/replay.c: the main() of the corpus replays. Linked with
 * one libFuzzer target's LLVMFuzzerTestOneInput (built here with the normal
 * compiler and the module libraries, no libFuzzer), it feeds it every file of
 * the folders (or files) named on the command line, in name order, and
 * fails when a folder is empty or unreadable, so a replay can never pass
 * without replaying anything. A target that finds a bad answer aborts, which
 * ctest reports as a failure; under the sanitizer build the replay also runs
 * under ASan and UBSan.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		fprintf(stderr, "replay: %s: cannot size\n", path);
		return -1;
	}
	/* a copy of exactly n bytes, so that ASan sees reads past the input */
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || (n && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		fprintf(stderr, "replay: %s: cannot read\n", path);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	size_t total = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct dirent **ents = NULL;
		struct stat st;
		size_t here = 0;
		int n, k;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (replay_file(argv[i]) < 0)
				return 1;
			total++;
			continue;
		}
		n = scandir(argv[i], &ents, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		for (k = 0; k < n; k++) {
			char path[4096];
			if (ents[k]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
				if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
					if (replay_file(path) < 0)
						return 1;
					here++;
				}
			}
			free(ents[k]);
		}
		free(ents);
		if (!here) {
			fprintf(stderr, "replay: %s: no corpus file\n", argv[i]);
			return 1;
		}
		total += here;
	}
	printf("replay: %zu inputs, no failure\n", total);
	return 0;
}
