/*
 * sandbox/bpf_table.c: the seccomp programs of each profile, generated at
 * build time by gen/genbpf.c from the allowlists in filter.c.
 */
#include "sandbox/internal.h"

#include "sandbox_bpf.inc"

static const struct sock_fprog programs[SBX_PROFILE_COUNT] = {
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_run), sbx_bpf_run },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_build), sbx_bpf_build },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_run_dynamic), sbx_bpf_run_dynamic },
	{ (unsigned short)TG_ARRAY_SIZE(sbx_bpf_run_pooled), sbx_bpf_run_pooled },
};

int sbx_filter_get(const struct sock_fprog **out, int profile)
{
	if (profile < 0 || profile >= SBX_PROFILE_COUNT)
		return tg_error_set(TG_ERR_INTERNAL, "bad seccomp profile");
	*out = &programs[profile];
	return 0;
}
