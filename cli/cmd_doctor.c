/*
 * cli/cmd_doctor.c: `toolgate doctor [--json]`: checks this machine and the
 * home for what toolgate needs, one item a line with ok, warn or fail and,
 * unless ok, the fix: user namespaces (user.max_user_namespaces, Debian's
 * kernel.unprivileged_userns_clone, Ubuntu's AppArmor restriction) and an
 * end-to-end sandbox probe, seccomp, cgroups (version, memory and pids
 * controllers, a delegated folder), the compiler, libclang, the SDK header,
 * one analysis end to end (its parse child confined as every submission's),
 * the home's permissions, the store and the registry, the signing key
 * when there is one, and gVisor's runsc (installed, a timed real run; a
 * failure only when config.json's sandbox_backend is gvisor). Exit 0 when nothing
 * fails (warnings allowed), 1 when an item fails.
 */
#include "cli.h"
#include "analyzer/analyzer.h"
#include "registry/registry.h"
#include "sandbox/sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

enum { OK, WARN, FAIL };
static const char *const level_name[] = { "ok", "warn", "fail" };

struct doc {
	json_t *items;
	int worst;
	int json;
};

static void item(struct doc *d, const char *name, int level, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void item(struct doc *d, const char *name, int level, const char *fix, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (level > d->worst)
		d->worst = level;
	if (d->json) {
		json_array_append_new(d->items,
				      json_pack("{s:s, s:s, s:s, s:s?}", "name", name, "status",
						level_name[level], "detail", detail, "fix",
						level == OK ? NULL : fix));
		return;
	}
	printf("%-4s  %-10s %s\n", level_name[level], name, detail);
	if (level != OK && fix)
		printf("      %-10s fix: %s\n", "", fix);
}

static long sysctl_value(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void check_userns(struct doc *d)
{
	long max = sysctl_value("/proc/sys/user/max_user_namespaces");
	long clone = sysctl_value("/proc/sys/kernel/unprivileged_userns_clone");
	long aa = sysctl_value("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	int root = geteuid() == 0;

	if (max == 0)
		item(d, "userns", FAIL, "sysctl -w user.max_user_namespaces=15000 (and set it in /etc/sysctl.d/)",
		     "user namespaces are disabled: user.max_user_namespaces is 0");
	else if (!root && clone == 0)
		item(d, "userns", FAIL, "sysctl -w kernel.unprivileged_userns_clone=1 (and set it in /etc/sysctl.d/)",
		     "unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone is 0");
	else if (!root && aa == 1)
		item(d, "userns", WARN,
		     "install the package's AppArmor profile for toolgate (userns allowed), or "
		     "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		     "AppArmor restricts unprivileged user namespaces "
		     "(kernel.apparmor_restrict_unprivileged_userns is 1)");
	else
		item(d, "userns", OK, NULL, "user namespaces available (max %ld)", max);
}

static void check_sandbox(struct doc *d)
{
	if (tg_sandbox_available() == 0)
		item(d, "sandbox", OK, NULL, "a probe run (/bin/true) succeeded");
	else
		item(d, "sandbox", FAIL, "fix the items above (userns, seccomp)", "%s",
		     tg_error_last()->message);
}

/* Which mount path runs take (after the probe run, which made the
 * template where one is used): a prepared tree copied per run, or the
 * host's mounts copied and a root pivoted into per run. Both are safe. */
static void check_mounts(struct doc *d)
{
	char why[200] = "";

	if (tg_sandbox_mount_template(why, sizeof(why)))
		item(d, "mounts", OK, NULL, "%s", why);
	else
		item(d, "mounts", OK, NULL, "each run copies the host's mounts and pivots (%s)", why);
}

static void check_seccomp(struct doc *d)
{
	FILE *f = fopen("/proc/sys/kernel/seccomp/actions_avail", "re");
	char buf[256] = "";

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (strstr(buf, "kill_process") && strstr(buf, "errno"))
		item(d, "seccomp", OK, NULL, "seccomp filters with kill_process and errno");
	else
		item(d, "seccomp", FAIL, "use a kernel built with CONFIG_SECCOMP_FILTER (4.14 or later)",
		     "seccomp kill_process/errno actions not available");
}

static void check_cgroups(struct doc *d, const tg_config *cfg)
{
	struct statfs sf;
	char why[200] = "";
	const char *deleg = getenv("TOOLGATE_CGROUP");
	const char *ver = "none";
	int v2 = 0;

	if (statfs("/sys/fs/cgroup", &sf) == 0) {
		v2 = (unsigned long)sf.f_type == 0x63677270ul;
		ver = v2 ? "v2" : "v1 (or hybrid)";
	}
	if (tg_sandbox_cgroups(why, sizeof(why))) {
		item(d, "cgroups", OK, NULL, "%s, hierarchy %s%s%s", why, ver,
		     deleg && deleg[0] ? ", delegated folder " : "", deleg && deleg[0] ? deleg : "");
		return;
	}
	item(d, "cgroups", cfg && cfg->require_cgroups ? FAIL : WARN,
	     v2 ? "delegate a cgroup v2 folder with memory and pids enabled and set TOOLGATE_CGROUP "
		  "to it (docs/SANDBOX.md, \"Rootless\")"
		: "run as root, or boot with cgroup v2 and delegate a folder (docs/SANDBOX.md)",
	     "no cgroup memory and pids limits (%s; hierarchy %s): runs fall back to rlimits%s", why,
	     ver, cfg && cfg->require_cgroups ? ", and config.json sets require_cgroups" : "");
}

/* The CPU share of build and run sandboxes (config cpu_percent). */
static void check_cpu(struct doc *d, const tg_config *cfg)
{
	uint32_t pct = cfg ? cfg->cpu_percent : 100;
	char why[200] = "";

	if (!pct) {
		item(d, "cpu", WARN, "set cpu_percent in config.json (docs/CONFIG.md)",
		     "cpu_percent is 0: sandboxes have no CPU limit");
		return;
	}
	if (tg_sandbox_cpu_limit(why, sizeof(why), pct)) {
		item(d, "cpu", OK, NULL, "%u%% of a core per sandbox, %s", pct, why);
		return;
	}
	item(d, "cpu", WARN,
	     "run as root with a cgroup cpu controller, or enable +cpu in the delegated "
	     "folder's cgroup.subtree_control (docs/SANDBOX.md)",
	     "no CPU limit (%s): a spinning tool may use a whole core until its timeout", why);
}

/* gVisor (docs/SANDBOX.md, "gVisor backend"): installed, the platform it
 * uses and why (kvm or ptrace), and a real run of /bin/true under runsc on
 * it, timed. Needed only with sandbox_backend gvisor
 * or a tool put under gVisor (toolgate backend). */
static void check_gvisor(struct doc *d, tg_registry *reg)
{
	const tg_config *cfg = reg ? tg_registry_config(reg) : NULL;
	_cleanup_json_ json_t *b = NULL;
	json_int_t tools = 0;
	int want = cfg && cfg->sandbox_backend == TG_SANDBOX_GVISOR;
	char path[512], why[120] = " (only sandbox_backend gvisor needs it)", plat[8], pwhy[200];
	const char *need;
	uint64_t ms = 0;

	if (reg && tg_registry_backends(&b, reg) == 0)
		tools = json_integer_value(json_object_get(b, "gvisor_by_tool"));
	else
		tg_error_clear(); /* the registry item reports a broken home */
	if (want)
		snprintf(why, sizeof(why), " but config.json sets sandbox_backend gvisor");
	else if (tools > 0)
		snprintf(why, sizeof(why), " but %lld active tool%s set to gvisor (toolgate backend)",
			 (long long)tools, tools == 1 ? " is" : "s are");
	need = want ? " (sandbox_backend gvisor)" : tools > 0 ? " (toolgate backend gvisor)" : "";
	want = want || tools > 0;
	if (tg_sandbox_runsc(path, sizeof(path)) < 0) {
		item(d, "gvisor", want ? FAIL : OK,
		     want ? "apt-get install runsc, or set sandbox_backend and toolgate backend "
			    "to native"
			  : NULL,
		     "runsc is not installed%s", why);
		return;
	}
	if (tg_sandbox_gvisor_available(&ms, plat, sizeof(plat)) == 0) {
		/* the platform's reason may quote runsc's state: printed plainly,
		 * it is ours (gvisor_platform.c), not a tool's */
		tg_sandbox_gvisor_platform(plat, sizeof(plat), pwhy, sizeof(pwhy));
		item(d, "gvisor", OK, NULL,
		     "%s works: platform %s (%s); a run costs about %llu ms "
		     "(runsc do /bin/true)%s", path, plat, pwhy, (unsigned long long)ms, need);
		return;
	}
	item(d, "gvisor", want ? FAIL : WARN,
	     "run as root on a kernel where runsc --platform=ptrace works, or set "
	     "sandbox_backend to native",
	     "%s", tg_error_last()->message);
}

/* The compiler the builds really use: the clang driver of the analyzer's
 * release (tg_cfront_clang_path, sandbox/build.c), never a guess at cc. */
static void check_compiler(struct doc *d)
{
	char line[200] = "";
	const char *cc = tg_cfront_clang_path();
	char cmd[300];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s --version 2>/dev/null", cc);
	p = access(cc, X_OK) == 0 ? popen(cmd, "re") : NULL;
	if (p) {
		if (!fgets(line, sizeof(line), p))
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	if (line[0]) {
		item(d, "compiler", OK, NULL, "%s: %s (tools are built with it)", cc, line);
	} else {
		char hint[64];
		snprintf(hint, sizeof(hint), "apt-get install clang-%s", tg_cfront_clang_version());
		item(d, "compiler", FAIL, hint, "no working clang %s driver at %s (tools are built "
						"with it)", tg_cfront_clang_version(), cc);
	}
}

static void check_libclang(struct doc *d)
{
	void *h = dlopen(TG_DOCTOR_LIBCLANG, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen("libclang-14.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		item(d, "libclang", OK, NULL, "libclang 14 loads (%s)", TG_DOCTOR_LIBCLANG);
		dlclose(h);
	} else {
		item(d, "libclang", FAIL, "apt-get install libclang1-14", "cannot load %s: %s",
		     TG_DOCTOR_LIBCLANG, dlerror());
	}
}

static void check_sdk(struct doc *d)
{
	_cleanup_free_ char *dir = NULL;

	if (tg_sdk_dir(&dir) == 0)
		item(d, "sdk", OK, NULL, "%s/toolgate/tool.h", dir);
	else
		item(d, "sdk", FAIL, "reinstall toolgate (make install)", "%s",
		     tg_error_last()->message);
}

/* One analysis as every submission gets it: the parse in a fresh image of
 * toolgate under the parse filter. A host whose libclang makes a call the
 * filter refuses fails here, not on the first submission. */
static void check_analysis(struct doc *d)
{
	static const char src[] = "#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n";
	tg_report *r = NULL;
	uint64_t t0 = tg_now_ms();

	if (tg_analyze(&r, NULL, "doctor.c", src, sizeof(src) - 1, NULL) < 0)
		item(d, "analysis", FAIL, "fix the libclang and sdk items", "%s",
		     tg_error_last()->message);
	else if (!r->pass)
		item(d, "analysis", FAIL,
		     "report it with this line: a known-good source must pass (docs/ANALYZER.md)",
		     "a known-good source was refused: [%s] %s",
		     r->nfindings ? r->findings[0].rule : "?",
		     r->nfindings ? r->findings[0].message : "no finding");
	else
		item(d, "analysis", OK, NULL,
		     "a test source vetted in %llu ms (the parse in a fresh image under the "
		     "parse filter)",
		     (unsigned long long)(tg_now_ms() - t0));
	tg_report_free(r);
}

/* The signing key, when there is one (config.json signing_key, checked
 * as every open of the store checks it, or the home's from key init). */
static void check_signing(struct doc *d, tg_registry *reg, const tg_config *cfg)
{
	json_t *k = NULL;

	if (tg_registry_key_show(&k, reg) == 0) {
		item(d, "signing", OK, NULL, "%s (%s)", json_string_value(json_object_get(k, "key")),
		     json_string_value(json_object_get(k, "source")));
		json_decref(k);
	} else if (cfg && cfg->signing_key) {
		item(d, "signing", FAIL,
		     "fix the key file or config.json signing_key (an ed25519 key, no passphrase, "
		     "chmod 600, its .pub beside it); every command that writes the store stops until then",
		     "%s", tg_error_last()->message);
	} else {
		tg_error_clear(); /* no key: commits are unsigned, as chosen */
	}
}

/* config.json audit_mirror, when on: is there a socket to send to? */
static void check_audit_mirror(struct doc *d, const tg_config *cfg)
{
	const char *path = NULL;
	int mode = tg_audit_mirror_target(cfg, &path);
	const char *form = mode == TG_AUDIT_MIRROR_JOURNAL ? "journal" : "syslog";
	struct stat st;

	if (mode == TG_AUDIT_MIRROR_OFF)
		return;
	if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		item(d, "audit_mirror", OK, NULL, "audit entries copied to the %s at %s", form,
		     path);
	else
		item(d, "audit_mirror", WARN,
		     "start systemd-journald or a syslog daemon, or set audit_mirror to \"off\"",
		     "no socket at %s: the %s copies of the audit entries are dropped", path, form);
}

/* The home, its store and registry; returns the config when it loads. */
static void check_home(struct doc *d, const tg_cli *cli, tg_registry **reg)
{
	_cleanup_free_ char *home = NULL;
	struct stat st;

	if (cli_home(cli, &home) < 0) {
		item(d, "home", FAIL, "set TOOLGATE_HOME or pass --home DIR", "%s",
		     tg_error_last()->message);
		return;
	}
	if (stat(home, &st) < 0) {
		item(d, "home", FAIL, "run `toolgate init`", "%s: %s", home, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode) || access(home, R_OK | W_OK | X_OK) < 0) {
		item(d, "home", FAIL, "chown the home to this user and chmod 700 it",
		     "%s: not a folder this user can read and write (owner uid %u, mode %03o)", home,
		     (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		return;
	}
	if (st.st_mode & 022)
		item(d, "home", WARN, "chmod go-w on the home", "%s: writable by others (mode %03o)",
		     home, (unsigned)(st.st_mode & 0777));
	else
		item(d, "home", OK, NULL, "%s (mode %03o)", home, (unsigned)(st.st_mode & 0777));
	if (tg_registry_open(reg, home, 0) < 0) {
		item(d, "registry", FAIL, "run `toolgate init`, or `toolgate verify` for a damaged home",
		     "%s", tg_error_last()->message);
		*reg = NULL;
		return;
	}
	item(d, "registry", OK, NULL, "store and registry open");
	{
		const tg_config *cfg = tg_registry_config(*reg);
		if (cfg && cfg->workspace) {
			if (access(cfg->workspace, R_OK | W_OK | X_OK) == 0)
				item(d, "workspace", OK, NULL, "%s writable", cfg->workspace);
			else
				item(d, "workspace", WARN,
				     "make the folder writable by the user running toolgate "
				     "(the sandbox's user maps to it)",
				     "%s: not writable by this user: workspace:write tools will fail",
				     cfg->workspace);
		}
		check_signing(d, *reg, cfg);
		if (cfg)
			check_audit_mirror(d, cfg);
	}
}

int cmd_doctor(tg_cli *cli, int argc, char **argv)
{
	struct doc d = { json_array(), OK, cli->json };
	tg_registry *reg = NULL;
	int status;

	(void)argv;
	if (argc > 1) {
		json_decref(d.items);
		return cli_usage(cli, "takes no arguments");
	}
	if (!d.items)
		return cli_fail(tg_error_set(TG_ERR_NOMEM, "out of memory"), "doctor");
	check_home(&d, cli, &reg);
	check_userns(&d);
	check_seccomp(&d);
	check_sandbox(&d);
	check_mounts(&d);
	check_cgroups(&d, reg ? tg_registry_config(reg) : NULL);
	check_cpu(&d, reg ? tg_registry_config(reg) : NULL);
	check_gvisor(&d, reg);
	check_compiler(&d);
	check_libclang(&d);
	check_sdk(&d);
	check_analysis(&d);
	tg_registry_free(reg);
	status = d.worst == FAIL ? TG_EXIT_VERDICT : TG_EXIT_OK;
	if (d.json) {
		json_t *o = json_pack("{s:b, s:o}", "ok", d.worst != FAIL, "items", d.items);
		if (!o || cli_print_json(o) != TG_EXIT_OK)
			status = TG_EXIT_ENV;
		json_decref(o);
	} else {
		json_decref(d.items);
		printf("%s\n", d.worst == FAIL ? "doctor: something fails (see fix lines)"
					       : "doctor: all ok");
	}
	return status;
}
