/* Run from a prepared mount tree (sandbox/mnt_template.c; test_template.c):
 * argv[1] this run's name, argv[2] "write" or "remount".
 * write: a marker in /tmp, then, a second later (two runs overlap), how
 * many other entries /tmp holds, then every kind of write outside /tmp:
 * a folder and a file in /, /tool opened for writing, a file in /dev,
 * /dev/null opened for writing. stderr: /tool's device and inode,
 * and the run's start and end (CLOCK_REALTIME ms) for the overlap.
 * remount: / remounted read-write (at the mount, then the superblock),
 * /tool unmounted, a tmpfs mounted over /: the filter kills the first;
 * without it, each answer. */
#include "attack.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>

static void writes(const char *name)
{
	struct stat st;
	long long t0 = attack_now_ms();

	mark_and_look(name);
	report("mkdir /x", mkdir("/x", 0755));
	report("create /x", open("/x", O_WRONLY | O_CREAT, 0644));
	report("write /tool", open("/tool", O_WRONLY));
	report("create /dev/x", open("/dev/x", O_WRONLY | O_CREAT, 0644));
	report("write /dev/null", open("/dev/null", O_WRONLY));
	if (stat("/tool", &st) == 0)
		fprintf(stderr, "tool %lu %lu\n", (unsigned long)st.st_dev, (unsigned long)st.st_ino);
	fprintf(stderr, "%lld %lld\n", t0, attack_now_ms());
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (strcmp(argv[2], "write") == 0) {
		writes(argv[1]);
		return 0;
	}
	if (strcmp(argv[2], "remount") != 0)
		return 2;
	report("remount / rw", mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL));
	report("remount sb rw", mount(NULL, "/", NULL, MS_REMOUNT, NULL));
	report("umount /tool", umount2("/tool", MNT_DETACH));
	report("mount over /", mount("tmpfs", "/", "tmpfs", 0, NULL));
	report("mkdir /x", mkdir("/x", 0755));
	return 0;
}
