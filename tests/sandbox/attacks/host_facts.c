/* What a tool can learn about the host: kernel release and host name,
 * process count, memory and uptime, clocks, the CPU set, clock ticks,
 * whether the device nodes take writes, the metadata of its own program
 * (/tool), every rlimit, its umask and the sysconf values derived from
 * them. One line each, compared with the host's own values by
 * test_contract.c. */
#include "attack.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
int main(void)
{
	struct utsname u;
	struct sysinfo si;
	struct timespec ts;
	struct tms tm;
	cpu_set_t set;
	char host[64] = "";
	const char *devs[] = { "/dev/null", "/dev/zero", "/dev/urandom" };
	struct stat st;
	unsigned i;

	memset(&u, 0, sizeof(u));
	report("uname", uname(&u));
	printf("sysname=%s nodename=%s release=%s version=%s machine=%s\n", u.sysname, u.nodename,
	       u.release, u.version, u.machine);
	report("gethostname", gethostname(host, sizeof(host)));
	printf("hostname=%s\n", host);
	memset(&si, 0, sizeof(si));
	report("sysinfo", sysinfo(&si));
	printf("uptime=%ld procs=%u totalram=%lu loads=%lu\n", si.uptime, si.procs,
	       si.totalram * si.mem_unit, si.loads[0]);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("monotonic=%lld\n", (long long)ts.tv_sec);
	printf("monotonic_ms=%lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	printf("boottime=%lld\n", (long long)ts.tv_sec);
	report("sched_getaffinity", sched_getaffinity(0, sizeof(set), &set));
	report("times", (long)times(&tm));
	printf("nprocs=%s\n", sysconf(_SC_NPROCESSORS_ONLN) >= 1 ? "ok" : "none");
	report("open /proc/self/stat", open("/proc/self/stat", O_RDONLY));
	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "write %s", devs[i]);
		report(what, open(devs[i], O_WRONLY));
		snprintf(what, sizeof(what), "read %s", devs[i]);
		report(what, open(devs[i], O_RDONLY));
	}
	report("create /tmp/x", open("/tmp/x", O_WRONLY | O_CREAT, 0600));
	if (stat("/tool", &st) == 0)
		printf("tool_dev=%u:%u tool_ino=%llu tool_mtime=%lld tool_atime=%lld tool_mode=%o\n",
		       major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino,
		       (long long)st.st_mtime, (long long)st.st_atime, (unsigned)st.st_mode);
	else
		report("stat /tool", -1);
	for (i = 0; i < RLIM_NLIMITS; i++) {
		struct rlimit rl;
		if (getrlimit((__rlimit_resource_t)i, &rl) < 0) {
			printf("rlimit%u=error\n", i);
			continue;
		}
		printf("rlimit%u=", i);
		if (rl.rlim_cur == RLIM_INFINITY)
			printf("inf/");
		else
			printf("%llu/", (unsigned long long)rl.rlim_cur);
		if (rl.rlim_max == RLIM_INFINITY)
			printf("inf\n");
		else
			printf("%llu\n", (unsigned long long)rl.rlim_max);
	}
	printf("umask=%03o\n", (unsigned)umask(022));
	printf("sigqueue_max=%ld child_max=%ld open_max=%ld\n", sysconf(_SC_SIGQUEUE_MAX),
	       sysconf(_SC_CHILD_MAX), sysconf(_SC_OPEN_MAX));
	return 0;
}
