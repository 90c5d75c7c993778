/*
 * sandbox/bpf_table.c: the seccomp programs of each profile, generated at
 * build time by gen/genbpf.c from the allowlists in filter.c, and the
 * loader of the parse profile into the calling process.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox_bpf.inc"

static const struct sock_fprog programs[SBX_PROFILE_COUNT] = {
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_run), sbx_bpf_run },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_build), sbx_bpf_build },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_run_dynamic), sbx_bpf_run_dynamic },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_run_pooled), sbx_bpf_run_pooled },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_parse), sbx_bpf_parse },
};

int sbx_filter_get(const struct sock_fprog **out, int profile)
{
	if (profile < 0 || profile >= SBX_PROFILE_COUNT)
		return tg_error_set(TG_ERR_INTERNAL, "bad seccomp profile");
	*out = &programs[profile];
	return 0;
}

int tg_sandbox_confine_parse(void)
{
	const struct sock_fprog *f = &programs[SBX_PROFILE_PARSE];

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "no_new_privs");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, f) != 0)
		return tg_error_errno(TG_ERR_UNAVAILABLE, errno, "seccomp: the parse filter");
	return 0;
}
