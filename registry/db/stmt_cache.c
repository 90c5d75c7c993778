/*
 * registry/db/stmt_cache.c: the prepared statements of a handle, kept for
 * reuse. A `toolgate serve` call runs the same dozen or so SQL texts every
 * time; compiling them (sqlite3Parser, the tokenizer, the code generator)
 * was a large share of the serving thread's CPU per call. reg_prepare()
 * hands out the statement this handle already compiled for that SQL text
 * when it is free, else compiles one (SQLITE_PREPARE_PERSISTENT) and keeps
 * it; releasing a statement (reg_finalizep: the _cleanup_stmt_ attribute
 * and every explicit release in registry/) resets it and clears its
 * bindings (its read transaction ends there, as a finalize would end it,
 * and no bound value outlives its use) and gives it back.
 *
 * - Key: the SQL text. The caller's pointer is tried first (most texts are
 *   literals) and always confirmed by comparing the text, so a text built
 *   in a buffer that is later reused for another text never matches the
 *   wrong statement; a text is cached at most once.
 * - A statement in use is never handed out twice: a nested use of the same
 *   text (a statement still held by an outer frame) gets an uncached one,
 *   finalized on release.
 * - Bounded: at most REG_STMT_CACHE_MAX statements; when full, the least
 *   recently used free one is finalized to make room (none free: uncached).
 * - A schema change made by another connection is handled by SQLite: a
 *   statement from sqlite3_prepare_v3 is compiled again at its next step.
 * - Freed (every statement finalized) by tg_registry_free before the
 *   connection is closed.
 * - Fork: a handle belongs to the process that opened it (the HTTP workers
 *   open their own after the fork). A cache hands out statements only in
 *   the process that made it; elsewhere reg_prepare compiles uncached ones.
 *   The process is told by its id, read once per process (reg_self_pid: a
 *   pthread_atfork handler forgets it in a forked child) instead of a
 *   getpid() per statement, some forty per call.
 * - Threads: only the thread that uses the handle touches its cache (a
 *   bridged call's thread uses the handle only while the calling thread
 *   waits for the sandbox run).
 * - reg_exec_cached: a one-statement text run through the cache (a
 *   transaction's BEGIN IMMEDIATE and COMMIT, twice per call).
 *
 * The release only gets the statement, so the handle's cache is found from
 * its connection (sqlite3_db_handle) in a process-wide list of the open
 * caches, under a mutex that no other lock is taken under.
 */
#include "registry/db/db.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>


typedef struct stmt_entry {
	const char *key;   /* the caller's pointer the last time it matched */
	char *sql;         /* the text (owned) */
	size_t len;
	sqlite3_stmt *st;
	uint64_t used;     /* last hand-out (LRU) */
	int busy;          /* handed out, not released yet */
} stmt_entry;

struct reg_stmt_cache {
	sqlite3 *db;
	pid_t owner;
	size_t n;
	uint64_t tick;
	reg_stmt_cache *next; /* the process's list of open caches */
	stmt_entry e[REG_STMT_CACHE_MAX];
};

static pthread_mutex_t caches_mu = PTHREAD_MUTEX_INITIALIZER;
static reg_stmt_cache *caches;
static pthread_once_t pid_once = PTHREAD_ONCE_INIT;
static _Atomic pid_t cached_pid;

static void pid_forget(void)
{
	atomic_store(&cached_pid, 0);
}

static void pid_hook(void)
{
	(void)pthread_atfork(NULL, NULL, pid_forget);
}

/* This process's id: a forked child forgets its parent's (pid_forget). */
pid_t reg_self_pid(void)
{
	pid_t p;

	pthread_once(&pid_once, pid_hook);
	p = atomic_load(&cached_pid);
	if (!p) {
		p = getpid();
		atomic_store(&cached_pid, p);
	}
	return p;
}

static reg_stmt_cache *cache_of(sqlite3 *db)
{
	reg_stmt_cache *c;

	pthread_mutex_lock(&caches_mu);
	for (c = caches; c && c->db != db; c = c->next)
		;
	pthread_mutex_unlock(&caches_mu);
	return c;
}

/* The handle's cache, made on first use (NULL: none, compile uncached). */
static reg_stmt_cache *cache_get(tg_registry *r)
{
	reg_stmt_cache *c = r->stmts;

	if (c)
		return c->owner == reg_self_pid() ? c : NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->db = r->db;
	c->owner = reg_self_pid();
	pthread_mutex_lock(&caches_mu);
	c->next = caches;
	caches = c;
	pthread_mutex_unlock(&caches_mu);
	r->stmts = c;
	return c;
}

static stmt_entry *lookup(reg_stmt_cache *c, const char *sql)
{
	size_t i, len;

	for (i = 0; i < c->n; i++)
		if (c->e[i].key == sql && strcmp(c->e[i].sql, sql) == 0)
			return &c->e[i];
	len = strlen(sql);
	for (i = 0; i < c->n; i++)
		if (c->e[i].len == len && memcmp(c->e[i].sql, sql, len) == 0) {
			c->e[i].key = sql;
			return &c->e[i];
		}
	return NULL;
}

/* A slot for a new statement: a free one, else the least recently used
 * statement not in use, finalized (NULL: every one is in use). */
static stmt_entry *slot(reg_stmt_cache *c)
{
	stmt_entry *old = NULL;
	size_t i;

	if (c->n < REG_STMT_CACHE_MAX)
		return &c->e[c->n++];
	for (i = 0; i < c->n; i++)
		if (!c->e[i].busy && (!old || c->e[i].used < old->used))
			old = &c->e[i];
	if (old) {
		sqlite3_finalize(old->st);
		free(old->sql);
		memset(old, 0, sizeof(*old));
	}
	return old;
}

static int compile(tg_registry *r, sqlite3_stmt **out, const char *sql, unsigned flags,
		   const char *what)
{
	uint64_t start = tg_now_ms();
	int rc;

	for (;;) {
		rc = sqlite3_prepare_v3(r->db, sql, -1, flags, out, NULL);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		if (tg_now_ms() - start > REG_BUSY_RETRY_MS)
			break;
		sqlite3_sleep(5);
	}
	if (rc != SQLITE_OK) {
		*out = NULL;
		return reg_sqlerr(r, rc, what);
	}
	return 0;
}

/* what: the error's context (reg_sqlerr) when the text does not compile */
static int prepare_as(tg_registry *r, sqlite3_stmt **out, const char *sql, const char *what)
{
	reg_stmt_cache *c = cache_get(r);
	stmt_entry *e;
	char *copy;
	int rc;

	*out = NULL;
	if (!c)
		return compile(r, out, sql, 0, what);
	e = lookup(c, sql);
	if (e) {
		if (e->busy)
			return compile(r, out, sql, 0, what); /* nested use: its own */
		e->busy = 1;
		e->used = ++c->tick;
		*out = e->st;
		return 0;
	}
	rc = compile(r, out, sql, SQLITE_PREPARE_PERSISTENT, what);
	if (rc < 0 || !*out)
		return rc; /* an error, or a text without a statement */
	copy = strdup(sql);
	if (!copy || !(e = slot(c))) {
		free(copy);
		return 0; /* kept uncached: finalized on release */
	}
	e->key = sql;
	e->sql = copy;
	e->len = strlen(copy);
	e->st = *out;
	e->busy = 1;
	e->used = ++c->tick;
	return 0;
}

int reg_prepare(tg_registry *r, sqlite3_stmt **out, const char *sql)
{
	return prepare_as(r, out, sql, "prepare");
}

int reg_exec_cached(tg_registry *r, const char *sql)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = prepare_as(r, &st, sql, "exec");

	if (rc < 0)
		return rc;
	while ((rc = reg_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "exec");
	return 0;
}

void reg_finalizep(sqlite3_stmt **st)
{
	reg_stmt_cache *c;
	size_t i;

	if (!*st)
		return;
	c = cache_of(sqlite3_db_handle(*st));
	for (i = 0; c && i < c->n; i++)
		if (c->e[i].st == *st && c->e[i].busy) {
			sqlite3_reset(*st);
			sqlite3_clear_bindings(*st);
			c->e[i].busy = 0;
			*st = NULL;
			return;
		}
	sqlite3_finalize(*st);
	*st = NULL;
}

size_t reg_stmt_cache_size(const tg_registry *r)
{
	return r->stmts ? r->stmts->n : 0;
}

void reg_stmt_cache_free(tg_registry *r)
{
	reg_stmt_cache *c = r->stmts, **p;
	size_t i;

	if (!c)
		return;
	pthread_mutex_lock(&caches_mu);
	for (p = &caches; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	pthread_mutex_unlock(&caches_mu);
	for (i = 0; i < c->n; i++) {
		sqlite3_finalize(c->e[i].st);
		free(c->e[i].sql);
	}
	free(c);
	r->stmts = NULL;
}
