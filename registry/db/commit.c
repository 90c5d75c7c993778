/*
 * registry/db/commit.c: durable commits and group commit. registry.db runs in
 * WAL mode with synchronous = NORMAL: a COMMIT appends its frames to the
 * WAL and releases the write lock without an fsync. A commit that must be
 * durable before its caller goes on (a call's intent before the tool runs,
 * an outcome before the result is handed out, create, rollback, approve)
 * then passes the durability barrier, reg_sync_durable(): one fdatasync of
 * the WAL that started after the commit. The WAL is written in order, so
 * that one fdatasync makes this commit and every commit before it durable,
 * whoever wrote them. The caller learns of success only after it, so the
 * guarantee is the one synchronous = FULL gives, except that another
 * connection may read a commit during the milliseconds before it is
 * durable (docs/RELIABILITY.md, "Group commit").
 *
 * Group commit: the handles of one `serve --http` (its worker processes)
 * share a tg_commit_group in MAP_SHARED memory made before the fork. A
 * caller that needs the barrier waits while a sync is in flight, then one
 * of the waiters (the leader) runs one fdatasync for all of them: the calls
 * that committed together pay one fsync, and none pays it while holding the
 * database's write lock (under FULL every writer waited behind the fsync of
 * the one before). Counters: `started` syncs begun, `done` syncs finished;
 * a commit made when `started` was S is durable once `done` >= S + 1. The
 * leader holds a second robust mutex, `inflight`, from the moment it sets
 * `syncing` (under the group lock) until it clears it: a waiter that has
 * waited 50 ms tries it, and EOWNERDEAD means the leader died mid-sync
 * (kill -9; a dead worker may stay a zombie, so its pid proves nothing):
 * the waiters elect another. Both mutexes are robust. A handle without a
 * group syncs on its own.
 */
#include "registry/db/db.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct tg_commit_group {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_mutex_t inflight; /* held by the leader while syncing is set */
	uint64_t started, done;   /* syncs begun, syncs finished (in order) */
	int syncing;              /* a leader's fdatasync is in flight */
	uint64_t barriers;        /* callers that needed durability */
};

static int lock(tg_commit_group *g);

int tg_commit_group_new(tg_commit_group **out)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	tg_commit_group *g;

	*out = NULL;
	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED)
		return tg_error_errno(TG_ERR_NOMEM, errno, "commit group");
	memset(g, 0, sizeof(*g));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_mutex_init(&g->mu, &ma) != 0 || pthread_mutex_init(&g->inflight, &ma) != 0 ||
	    pthread_cond_init(&g->cv, &ca) != 0) {
		munmap(g, sizeof(*g));
		return tg_error_set(TG_ERR_UNAVAILABLE, "commit group: cannot make a shared lock");
	}
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
	*out = g;
	return 0;
}

void tg_commit_group_free(tg_commit_group *g)
{
	if (g)
		munmap(g, sizeof(*g));
}

void tg_commit_group_stats(const tg_commit_group *g, uint64_t *syncs, uint64_t *barriers)
{
	*syncs = g ? __atomic_load_n(&g->done, __ATOMIC_RELAXED) : 0;
	*barriers = g ? __atomic_load_n(&g->barriers, __ATOMIC_RELAXED) : 0;
}

void tg_commit_group_test_die_syncing(tg_commit_group *g)
{
	if (lock(g) == 0) {
		g->started++;
		g->syncing = 1;
		pthread_mutex_lock(&g->inflight);
		pthread_mutex_unlock(&g->mu);
	}
	_exit(0); /* holding inflight, as a leader killed in its fdatasync */
}

void tg_registry_set_commit_group(tg_registry *r, tg_commit_group *g)
{
	r->group = g;
}

/* fdatasync of this connection's WAL. Through a descriptor of our own on
 * the same file (an fsync covers the file, whatever descriptor wrote):
 * SQLite's own sync (xSync) also fsyncs the folder at the first sync of
 * every connection, because it opens the WAL with "create" whether or not
 * it existed, and that second flush cost every CLI call about 2 ms here.
 * The folder is fsynced only when the WAL was not there before this handle
 * opened the database (it was made by this process). The WAL cannot be
 * replaced under an open connection: SQLite deletes it only when the last
 * connection closes. Where the descriptor cannot be had, SQLite's sync. */
static int wal_sync(tg_registry *r)
{
	sqlite3_file *f = NULL;
	int rc;

	if (r->wal_fd < 0) {
		_cleanup_free_ char *wal = NULL;
		if (asprintf(&wal, "%s-wal", r->db_path) >= 0)
			r->wal_fd = open(wal, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (r->wal_fd >= 0) {
		if (fdatasync(r->wal_fd) < 0)
			return tg_error_errno(TG_ERR_IO, errno, "sync the WAL");
		if (!r->wal_was_there) {
			_cleanup_close_ int dfd = open(r->home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (dfd < 0 || fsync(dfd) < 0)
				return tg_error_errno(TG_ERR_IO, errno, "sync %s", r->home);
			r->wal_was_there = 1;
		}
		return 0;
	}
	rc = sqlite3_file_control(r->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &f);
	if (rc != SQLITE_OK || !f || !f->pMethods)
		return reg_sqlerr(r, rc == SQLITE_OK ? SQLITE_IOERR : rc, "find the WAL to sync");
	rc = f->pMethods->xSync(f, SQLITE_SYNC_NORMAL);
	if (rc != SQLITE_OK)
		return reg_sqlerr(r, rc, "sync the WAL");
	return 0;
}

static int lock(tg_commit_group *g)
{
	int e = pthread_mutex_lock(&g->mu);

	if (e == EOWNERDEAD) {
		/* its holder died: the counters are whole (plain stores under
		 * the lock); whether a sync is in flight, inflight tells */
		pthread_mutex_consistent(&g->mu);
		e = 0;
	}
	return e;
}

/* Called with mu held after a wait timed out: has the leader died? */
static void check_leader(tg_commit_group *g)
{
	int e;

	if (!g->syncing)
		return;
	e = pthread_mutex_trylock(&g->inflight);
	if (e == EOWNERDEAD) {
		pthread_mutex_consistent(&g->inflight);
		pthread_mutex_unlock(&g->inflight);
		g->syncing = 0; /* it died mid-sync: elect another */
	} else if (e == 0) {
		/* cannot happen while a live leader syncs (it takes inflight
		 * before it lets go of mu); a stale flag: clear it */
		pthread_mutex_unlock(&g->inflight);
		g->syncing = 0;
	}
}

void tg_registry_test_fail_sync(tg_registry *r, int n)
{
	r->test_fail_sync = n;
}

int reg_sync_durable(tg_registry *r)
{
	tg_commit_group *g = r->group;
	uint64_t need;
	int rc = 0;

	if (r->test_fail_sync > 0) {
		r->test_fail_sync--;
		return tg_error_set(TG_ERR_IO, "sync the WAL: injected failure");
	}
	if (!g)
		return wal_sync(r);
	if (lock(g) != 0)
		return wal_sync(r);
	g->barriers++;
	need = g->started + 1; /* a sync that begins from now on covers our commit */
	while (g->done < need) {
		if (!g->syncing) {
			uint64_t mine = ++g->started;
			int e = pthread_mutex_lock(&g->inflight);
			if (e == EOWNERDEAD)
				pthread_mutex_consistent(&g->inflight);
			g->syncing = 1;
			pthread_mutex_unlock(&g->mu);
			rc = wal_sync(r);
			e = lock(g);
			if (rc == 0 && g->done < mine)
				g->done = mine;
			g->syncing = 0;
			pthread_mutex_unlock(&g->inflight);
			pthread_cond_broadcast(&g->cv);
			if (e != 0)
				return rc;
			if (rc < 0)
				break; /* the waiters elect another leader */
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += 50 * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			int e = pthread_cond_timedwait(&g->cv, &g->mu, &ts);
			if (e == EOWNERDEAD)
				pthread_mutex_consistent(&g->mu);
			if (e == ETIMEDOUT || e == EOWNERDEAD)
				check_leader(g);
		}
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}
