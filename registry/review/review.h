/*
 * registry/review/review.h: a person's decisions, above exec/: approvals and
 * denials bound to a version's content hash and capabilities (approval.c,
 * approval_check.c), activation and its undo (activate.c), rollback and
 * promotion (actions.c), removal (remove.c), history (review.c).
 */
#ifndef TG_REG_REVIEW_H
#define TG_REG_REVIEW_H

#include "registry/exec/exec.h"

/* ---- approval.c -------------------------------------------------------- */
/* The capability set of a manifest: its "capabilities" strings sorted,
 * without repeats (NULL on OOM). reg_caps_norm does the same for an array
 * (NULL also when it holds a non-string). */
json_t *reg_caps_of(const json_t *manifest);
json_t *reg_caps_norm(const json_t *caps);
/* sha256 over the canonical manifest (sorted keys, compact) and source. */
int reg_approval_hash(char out[65], const json_t *manifest, const char *source, size_t len);
/* What the store holds for one version, recomputed: approval hash, build
 * content hash, capability set (caller frees caps). */
typedef struct reg_facts {
	char approval_hash[65];
	char content_hash[65];
	json_t *caps;
} reg_facts;
int reg_version_facts(reg_facts *out, tg_registry *r, const char *tool, unsigned v);
/* Does the approval of version v stand? needs = it asks for capabilities;
 * stands = usable (needs none, or approved for its recomputed hash and
 * exact capability set, and not denied); why = the refusal otherwise. */
typedef struct reg_approval {
	int needs, stands, mismatch;
	char approval_hash[65];
	char why[512];
} reg_approval;
int reg_approval_check(reg_approval *out, tg_registry *r, int64_t tool_id, const char *tool,
		       unsigned v);

/* ---- activate.c -------------------------------------------------------- */
/* Inside a transaction: make version v of tool the active one (CAS on
 * refs/active), mark the previous active inactive, record the event, bump
 * the generation. event: "activate", "rollback", "approve", "reindex".
 * Refused (TG_ERR_INVALID) unless the version's approval stands, except for
 * "reindex", which follows the store (calls then still refuse it). */
int reg_activate(tg_registry *r, int64_t tool_id, const char *tool, unsigned v,
		 const char *event, const tg_actor *who);
/* The active version per SQLite (0 = none). */
int reg_active_version(tg_registry *r, int64_t tool_id, unsigned *out);
/* After a ROLLBACK (the handle's hook): move refs/active back to where the
 * transaction found it, when the transaction moved it. */
void reg_activation_undo(tg_registry *r);

#endif
