/*
 * registry/replica/replica.h: the store shared with other hosts, above call/: pull
 * (pull.c), remotes (remotes.c), the re-index of SQLite from the store
 * (reindex.c) and verify (verify.c).
 */
#ifndef TG_REG_REPLICA_H
#define TG_REG_REPLICA_H

#include "registry/call/call.h"

/* ---- remotes.c --------------------------------------------------------- */
/* The URL and pull caps of a remote (NULL: origin, else the only one). */
int reg_remote_resolve(char **name_out, char **url_out, tg_store_fetch_limits *lim,
		       tg_registry *r, const char *name);
/* ---- decisions.c ------------------------------------------------------- */
/* The signed decisions read from the remote's review notes, each checked
 * and followed or kept as a claim (the file's comment): *out = [{"tool",
 * "version","decision","signer","principal","signed_at","state","why",
 * "from"}], state followed / already / claim / refused; entries followed at
 * an earlier pull are not listed. */
int reg_decisions_apply(json_t **out, tg_registry *r, const tg_store_fetched *f, const char *remote);
/* 1 when a signed removal of tool@v was followed here (by = its key): a
 * remote active pointer still naming v is then not followed (push does not
 * delete remote active refs); 0 otherwise. */
int reg_decision_removed(tg_registry *r, const char *tool, unsigned v, char *by, size_t size);
/* ---- reindex.c --------------------------------------------------------- */
int reg_reindex(tg_registry *r, int full);
/* This host's own verdict on a commit it pulled (the local note written by
 * pull.c; *out NULL when there is none: a version created here). */
int reg_local_verdict(json_t **out, tg_registry *r, const char *commit);
/* Insert one store version into SQLite (inside a transaction). */
int reg_index_store_version(tg_registry *r, const char *tool, const tg_store_version *sv,
			    unsigned active);

#endif
