/*
 * tests/analyzer/policy_replay.c: replays every file of the policy fuzzing
 * corpus (fuzz/analyzer/corpus) through the fuzz target's function in the
 * normal build, so the target's invariants run in CI without libFuzzer.
 * Usage: analyzer_policy_replay CORPUS_DIR
 */
#include "common/common.h"

#include <dirent.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (argc != 2 || !(d = opendir(argv[1])))
		return 2;
	while ((de = readdir(d))) {
		char *path, *data = NULL;
		size_t len = 0;
		if (de->d_name[0] == '.')
			continue;
		path = tg_path_join(argv[1], de->d_name);
		if (!path || tg_file_read(&data, &len, path, 1 << 20) < 0) {
			fprintf(stderr, "unreadable: %s\n", de->d_name);
			closedir(d);
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
		free(data);
		free(path);
		n++;
	}
	closedir(d);
	printf("replayed %d inputs\n", n);
	return n > 0 ? 0 : 1;
}
