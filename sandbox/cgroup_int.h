/*
 * sandbox/cgroup_int.h: between the three cgroup files. cgroup.c (the
 * entry points, v2 and delegated folders) calls cgroup_v1.c (v1 limits and
 * the shared, flock-owned v1 slots); both call cgroup_fs.c (the
 * hierarchies, control files, folders, sweeping). Included by those only.
 */
#ifndef TG_SANDBOX_CGROUP_INT_H
#define TG_SANDBOX_CGROUP_INT_H

#include "sandbox/internal.h"

/* cgroup_fs.c */
/* 0 or -errno */
int sbx_cg_write_file(const char *dir, const char *name, const char *val);
int sbx_cg_read_small(const char *path, char *buf, size_t n);
/* pids.max's value for max_pids ("max" above PID_MAX_LIMIT) */
void sbx_cg_pids_value(char *buf, size_t n, uint32_t max_pids);
/* rmdir, retried while the kernel still counts a task in it */
void sbx_cg_remove_dir(const char *dir);
/* our own folder in hierarchy which (0 v2, 1 v1 memory, 2 v1 pids) */
int sbx_cg_own_dir(char *out, size_t n, int which);
/* remember a parent folder to sweep for leftovers (same index as above) */
void sbx_cg_sweep_note(int i, const char *dir);
/* make a run's own folder "tg-<pid>-<id>" under root; 0 or -errno */
int sbx_cg_mk(char *out, size_t n, const char *root, unsigned id);
/* a handle with nothing in it */
void sbx_cg_reset(struct sbx_cgroup *cg);
/* may our own v2 folder's children have the memory and pids controllers? */
int sbx_cg_v2_ctrl(void);
/* the usual places were a guess: read the mount table; 1 if that is new */
int sbx_cg_where_reread(void);
/* remove the tg-<pid>-<n> folders of supervisors that no longer exist */
void sbx_cg_sweep_all(void);
/* does the space-separated list s hold the word w? */
int sbx_cg_has_word(const char *s, const char *w);
/* is path on a cgroup2 file system? */
int sbx_cg_is_v2(const char *path);

/* cgroup_v1.c */
/* write the v1 limits that differ from the handle's known values */
int sbx_cg_v1_limits(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids);
/* a slot given up: its locks closed, its folders left */
void sbx_cg_slot_unlock(struct sbx_cgroup *cg);
/* A slot's held file (SBX_CG_*, sbx_cgroup.ctl), opened at its first read,
 * read from offset 0 into buf (NUL-terminated); 0 or -errno (-EBADF: not
 * a slot). */
enum { SBX_CG_CUR, SBX_CG_OOM, SBX_CG_USAGE };
int sbx_cg_slot_read(struct sbx_cgroup *cg, int which, char *buf, size_t n);
/* a slot after its run: kept locked for the next run when empty and there
 * is room, else unlocked (sbx_cgroup_release) */
void sbx_cg_slot_release(struct sbx_cgroup *cg, int empty);
/* a v1 pair for a run: a kept slot, a claimed one, or a pair of its own */
int sbx_cg_try_v1(struct sbx_cgroup *cg, uint64_t mem_bytes, uint32_t max_pids, unsigned id);

#endif
