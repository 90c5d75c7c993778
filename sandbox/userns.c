/*
 * sandbox/userns.c: the error a run gets when the kernel refuses to make its
 * user namespace. clone3() then fails with ENOSPC (user.max_user_namespaces
 * is 0 or used up), EPERM (Debian's kernel.unprivileged_userns_clone=0) or
 * EACCES (Ubuntu 24.04's AppArmor rule kernel.apparmor_restrict_unprivileged_
 * userns): raw, "No space left on device" says nothing useful. The message
 * names the setting that is to blame when one can be read, and points to
 * `toolgate doctor`, which prints the fix.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

static long read_sysctl(const char *path)
{
	char buf[32];
	ssize_t k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	return strtol(buf, NULL, 10);
}

int sbx_userns_error(int e)
{
	const char *cause = NULL;

	if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
		cause = "user.max_user_namespaces is 0";
	else if (e == ENOSPC)
		cause = "the user.max_user_namespaces limit is reached";
	else if (geteuid() != 0 && read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		cause = "kernel.unprivileged_userns_clone is 0";
	else if (geteuid() != 0 &&
		 read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		cause = "AppArmor restricts unprivileged user namespaces "
			"(kernel.apparmor_restrict_unprivileged_userns is 1)";
	if (cause)
		return tg_error_set(TG_ERR_UNAVAILABLE,
				    "sandbox: user namespaces are disabled: %s (clone3: %s); "
				    "run `toolgate doctor` for the fix",
				    cause, strerror(e));
	return tg_error_set(TG_ERR_UNAVAILABLE,
			    "sandbox: the kernel refused to create a user namespace (clone3: %s); "
			    "run `toolgate doctor` for the fix",
			    strerror(e));
}
