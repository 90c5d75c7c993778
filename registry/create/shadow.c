/*
 * registry/create/shadow.c: shadow runs at create (docs/REGISTRY.md, "A new
 * version earns its place"). When a tool with an active version and
 * recorded calls (record/samples.c) gets a new version that passed its
 * tests, the candidate runs on up to config.json's shadow_samples of them
 * and the active version on the same ones twice, all in the tool sandbox
 * under a test's authority; when the active version made the recorded call
 * itself, that call is its second run. The fields in which the two runs of
 * the active version differ are noise and ignored. Each sample ends "same", "differs"
 * (the JSON paths that differ), "regression" (the active one succeeded,
 * the candidate failed: crashed, was killed, exited non-zero or broke its
 * output_schema) or "fixed" (the reverse); arguments that the candidate's
 * input_schema refuses are a difference (a changed interface). Under
 * promotion "shadow" a regression holds the candidate out of the active
 * slot (status held), under "strict" any difference does. Bridged calls
 * (tools:, host:) are answered from the sample's recorded journal
 * (exec/replay.c's tape): no host tool, no callee runs; a call the
 * recording does not hold is answered "unexpected" and makes the sample
 * differ. A version that waits for a person's approval (its calls) is run
 * too, never held: the report is the person's evidence. Versions with
 * workspace access are never shadow-run: their runs read or write files.
 * The report is a shadow_reports row and a "shadow" audit entry; nothing
 * here writes a calls row.
 */
#include <stdlib.h>
#include <string.h>
#include "registry/create/create.h"

#define SHADOW_MAX_PATHS 8
#define SHADOW_MAX_CASES 16
/* samples listed one by one with their kind (diff --behaviour) */
#define SHADOW_MAX_LISTED 64
/* bytes of each side's result a "differs" case shows in full */
#define SHADOW_MAX_SHOWN 512
/* Wall-clock budget of one create's shadow runs (32 samples of a small tool take
 * 1.4-2.2 s here; a slow tool stops being compared past it: cut_short). */
#define SHADOW_BUDGET_MS 10000u

/* The active version the candidate is compared with. */
typedef struct shadow_old {
	unsigned version;
	char *hash;
	json_t *limits;
	json_t *caps;
	json_t *oschema; /* or NULL */
} shadow_old;

static void old_clear(shadow_old *o)
{
	free(o->hash);
	json_decref(o->limits);
	json_decref(o->caps);
	json_decref(o->oschema);
}

static int old_read(shadow_old *o, tg_registry *r, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc = reg_prepare(r, &st, "SELECT v.version, v.content_hash, v.limits, v.capabilities, "
				     "o.schema FROM tools t JOIN versions v ON v.tool_id = t.id AND "
				     "v.version = t.active_version LEFT JOIN output_schemas o ON "
				     "o.version_id = v.id WHERE t.name = ?1");

	memset(o, 0, sizeof(*o));
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	rc = reg_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return reg_sqlerr(r, rc, "read the active version");
	o->version = (unsigned)sqlite3_column_int64(st, 0);
	o->hash = reg_col_strdup(st, 1);
	o->limits = reg_col_json(st, 2);
	o->caps = reg_col_json(st, 3);
	o->oschema = reg_col_json(st, 4);
	if (!o->hash)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

/* What one run of one version needs (the candidate's or the active one's). */
typedef struct shadow_side {
	const char *name, *bin;
	const json_t *limits, *caps, *ischema, *oschema;
	unsigned version; /* the active version's number (0: the candidate) */
} shadow_side;

/* One run, its content blocks and result checked as a call's are.
 * A version that makes bridged calls gets them answered from the sample's
 * journal (exec/replay.c's tape), never run; "unexpected" in *out counts
 * the calls the journal did not hold, "unexpected_call" names the first. */
static int run_one(json_t **out, tg_registry *r, const shadow_side *v, const json_t *sample)
{
	_cleanup_json_ json_t *none = NULL;
	_cleanup_free_ char *used = NULL;
	const json_t *args = json_object_get(sample, "args");
	const json_t *journal = json_object_get(sample, "journal");
	reg_tape tape = { 0 };
	reg_bridge br;
	json_t *x;
	int rc, bridged;

	*out = NULL;
	if (v->ischema &&
	    tg_schema_validate_flags(v->ischema, args, "args", reg_schema_flags(&r->cfg, 0)) < 0) {
		char m[1100];
		snprintf(m, sizeof(m), "invalid arguments: %s", tg_error_last()->message);
		tg_error_clear();
		*out = json_pack("{s:b, s:s, s:s}", "ok", 0, "error", m, "reason", "invalid_args");
		return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	bridged = reg_bridge_init(&br, r, NULL, v->name, 0, v->caps, v->limits, NULL);
	if (bridged) {
		tape.play = json_is_array(journal) ? journal : (none = json_array());
		used = calloc(json_array_size(tape.play) + 1, 1);
		if (!tape.play || !used)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		tape.used = used;
		br.tape = &tape;
		snprintf(br.caller, sizeof(br.caller), "%s@shadow", v->name);
	}
	rc = reg_run_tool_ex(out, r, v->name, v->bin, v->limits, 0, 0, NULL, args, bridged ? &br : NULL, 0);
	if (rc < 0 || (rc = reg_result_content(*out)) < 0)
		return rc;
	if (tape.unexpected &&
	    (json_object_set_new(*out, "unexpected", json_integer(tape.unexpected)) < 0 ||
	     json_object_set_new(*out, "unexpected_call", json_string(tape.first_unexpected)) < 0))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (!json_is_true(json_object_get(*out, "ok")) || !json_is_object(v->oschema))
		return 0;
	x = json_object_get(*out, "result");
	if (tg_schema_validate_flags(v->oschema, x ? x : json_null(), "result",
				     reg_schema_flags(&r->cfg, 0)) == 0)
		return 0;
	json_object_set_new(*out, "ok", json_false());
	json_object_set_new(*out, "error", json_string(tg_error_last()->message));
	json_object_set_new(*out, "reason", json_string("invalid_output"));
	tg_error_clear();
	return 0;
}

/* The active version's second run on sample s: the recorded call itself
 * when that version made it (a real run of the same binary on the same
 * arguments, its bridged calls answered alike; *reused = 1), else one more
 * sandboxed run. Either is a second observation of the same version for
 * the noise; the outcome compared with the candidate's is the first run. */
static int second_run(json_t **out, int *reused, tg_registry *r, const shadow_side *ov,
		      const json_t *s)
{
	*reused = 0;
	if ((json_int_t)ov->version != json_integer_value(json_object_get(s, "version")))
		return run_one(out, r, ov, s);
	*out = json_pack("{s:O, s:O?}", "ok", json_object_get(s, "ok"), "result",
			 json_object_get(s, "result"));
	*reused = 1;
	return *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* The paths at which a and b differ ("$", "$.key", "$[2]"), at most
 * SHADOW_MAX_PATHS; numbers compare by value (4 equals 4.0). */
static void diff(const json_t *a, const json_t *b, const char *path, json_t *out)
{
	char sub[512];

	if (json_array_size(out) >= SHADOW_MAX_PATHS)
		return;
	if (json_is_number(a) && json_is_number(b)) {
		if (json_number_value(a) != json_number_value(b))
			json_array_append_new(out, json_string(path));
		return;
	}
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)a, k, x) {
			snprintf(sub, sizeof(sub), "%s.%s", path, k);
			if (!json_object_get(b, k))
				json_array_append_new(out, json_string(sub));
			else
				diff(x, json_object_get(b, k), sub, out);
		}
		json_object_foreach((json_t *)b, k, x) {
			snprintf(sub, sizeof(sub), "%s.%s", path, k);
			if (!json_object_get(a, k) && json_array_size(out) < SHADOW_MAX_PATHS)
				json_array_append_new(out, json_string(sub));
		}
		return;
	}
	if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
		size_t i;
		for (i = 0; i < json_array_size(a); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			diff(json_array_get(a, i), json_array_get(b, i), sub, out);
		}
		return;
	}
	if (!json_equal((json_t *)a, (json_t *)b))
		json_array_append_new(out, json_string(path));
}

/* p equals a noise path or lies under one. */
static int is_noise(const json_t *noise, const char *p)
{
	size_t i, n;
	json_t *x;

	json_array_foreach(noise, i, x) {
		const char *s = json_string_value(x);
		n = strlen(s);
		if (strncmp(p, s, n) == 0 && (p[n] == 0 || p[n] == '.' || p[n] == '['))
			return 1;
	}
	return 0;
}

/* Add the paths of d not yet in set. */
static void add_all(json_t *set, const json_t *d)
{
	size_t i, j;
	json_t *x, *y;
	int seen;

	json_array_foreach(d, i, x) {
		seen = 0;
		json_array_foreach(set, j, y)
			seen |= json_equal(x, y);
		if (!seen)
			json_array_append(set, x);
	}
}

/* The kind of one sample and, for "differs", its paths. */
static const char *classify(const json_t *o1, const json_t *o2, const json_t *c, json_t *noise,
			    json_t **paths)
{
	int ook = json_is_true(json_object_get(o1, "ok"));
	int cok = json_is_true(json_object_get(c, "ok"));
	const char *cwhy = json_string_value(json_object_get(c, "reason"));
	_cleanup_json_ json_t *nd = json_array(), *cd = json_array();
	size_t i;
	json_t *x;

	*paths = NULL;
	/* a bridged call the recording does not hold (and the active version
	 * did not make): its answer was "unexpected", whatever followed */
	if (json_integer_value(json_object_get(c, "unexpected")) > 0 &&
	    !json_integer_value(json_object_get(o1, "unexpected"))) {
		char m[160];
		snprintf(m, sizeof(m), "(unexpected bridged call to %s)",
			 json_string_value(json_object_get(c, "unexpected_call")));
		*paths = json_pack("[s]", m);
		return "differs";
	}
	/* arguments the new input_schema refuses: a changed interface, which
	 * its author chose; a difference, not a regression */
	if (ook && !cok && cwhy && strcmp(cwhy, "invalid_args") == 0) {
		*paths = json_pack("[s]", "(arguments refused by the new input_schema)");
		return "differs";
	}
	if (ook && !cok)
		return "regression";
	if (!ook && cok)
		return "fixed";
	if (!ook || !nd || !cd)
		return "same";
	if (json_is_true(json_object_get(o2, "ok"))) {
		diff(json_object_get(o1, "result"), json_object_get(o2, "result"), "$", nd);
		add_all(noise, nd);
	}
	diff(json_object_get(o1, "result"), json_object_get(c, "result"), "$", cd);
	*paths = json_array();
	json_array_foreach(cd, i, x)
		if (*paths && !is_noise(noise, json_string_value(x)))
			json_array_append(*paths, x);
	if (*paths && json_array_size(*paths) > 0)
		return "differs";
	json_decref(*paths);
	*paths = NULL;
	return "same";
}

/* A difference's result as k[key] when it is short (the short diff of
 * diff --behaviour; the paths say where). */
static void shown(json_t *k, const char *key, const json_t *run)
{
	const json_t *v = json_object_get(run, "result");
	_cleanup_free_ char *text = v ? tg_json_dump(v) : NULL;

	if (text && strlen(text) <= SHADOW_MAX_SHOWN)
		json_object_set(k, key, (json_t *)v);
}

/* A regression's or difference's case for the report. */
static json_t *case_of(const json_t *s, const char *kind, json_t *paths, const json_t *o1,
		       const json_t *c)
{
	json_t *k = json_pack("{s:I, s:O, s:s}", "sample",
			      json_integer_value(json_object_get(s, "id")), "args",
			      json_object_get(s, "args"), "kind", kind);
	const json_t *bad = strcmp(kind, "fixed") == 0 ? o1 : c;

	json_t *t = NULL;

	if (!k)
		return NULL;
	/* the recorded call, with the outcome the active version gave it, as
	 * a test the author may add to the manifest (record/samples.c), when
	 * fixtures can hold its bridged calls; not for a fix */
	if (strcmp(kind, "fixed") != 0 && reg_sample_as_test(&t, s) == 0)
		json_object_set_new(k, "as_test", t);
	else
		tg_error_clear();
	if (paths) {
		json_object_set(k, "paths", paths);
		shown(k, "old", o1);
		shown(k, "new", c);
	} else {
		const char *e = json_string_value(json_object_get(bad, "error"));
		const char *why = json_string_value(json_object_get(bad, "reason"));
		char m[300];
		snprintf(m, sizeof(m), "%s", e ? e : "");
		json_object_set_new(k, "reason", json_string(why ? why : ""));
		json_object_set_new(k, "error", json_string(m));
	}
	return k;
}

/* The value at path ("$", "$.key", "$[2]", combined) in v, or NULL. */
static const json_t *at_path(const json_t *v, const char *path)
{
	const char *p = path + 1;
	char key[512];
	size_t n;

	while (v && *p) {
		if (*p == '.') {
			n = strcspn(p + 1, ".[");
			if (n >= sizeof(key))
				return NULL;
			memcpy(key, p + 1, n);
			key[n] = 0;
			v = json_object_get(v, key);
			p += 1 + n;
		} else if (*p == '[') {
			char *end;
			unsigned long i = strtoul(p + 1, &end, 10);
			if (*end != ']')
				return NULL;
			v = json_array_get(v, i);
			p = end + 1;
		} else {
			return NULL;
		}
	}
	return v;
}

/* A case's ready-to-add test is dropped when its expected result holds a
 * noise field: a test's expect compares exactly, so it could never pass. */
static int drop_noisy_tests(json_t *cases, const json_t *noise)
{
	size_t i, j;
	json_t *c, *x;

	json_array_foreach(cases, i, c) {
		const json_t *e = json_object_get(json_object_get(c, "as_test"), "expect");
		json_array_foreach(noise, j, x) {
			if (!e || !at_path(e, json_string_value(x)))
				continue;
			json_object_del(c, "as_test");
			if (json_object_set_new(c, "as_test_omitted",
						json_pack("{s:s, s:O}", "why",
							  "its result holds fields that differ from "
							  "run to run, and a test's expect compares "
							  "exactly", "noise", noise)) < 0)
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
			break;
		}
	}
	return 0;
}

/* Why no shadow run happened, or NULL when they can run. A version with
 * bridged calls (tools:, host:) is run, its calls answered from the
 * recording; one with workspace access is not (its runs read files). */
static const char *skip_reason(tg_registry *r, const shadow_old *old, const json_t *manifest)
{
	int rd = 0, wr = 0, ord = 0, owr = 0;

	reg_caps_from_json(json_object_get(manifest, "capabilities"), &rd, &wr);
	reg_caps_from_json(old->caps, &ord, &owr);
	if (rd || wr)
		return "the new version asks for workspace access: its runs would read or write "
		       "files";
	if (ord || owr)
		return "the active version holds workspace access";
	if (r->cfg.shadow_samples == 0)
		return "config.json shadow_samples is 0";
	return NULL;
}

/* Run every sample: counts, noise and cases into rep. */
static int run_samples(json_t *rep, tg_registry *r, const json_t *samples,
		       const shadow_side *ov, const shadow_side *cv)
{
	_cleanup_json_ json_t *noise = json_array(), *cases = json_array(), *each = json_array();
	int n[4] = { 0 }; /* same, differs, regression, fixed */
	static const char *const kinds[] = { "same", "differs", "regression", "fixed" };
	/* a bound on what one create may spend here whatever the tool's
	 * timeout: the samples not reached are not compared (cut_short) */
	uint64_t deadline = tg_now_ms() + SHADOW_BUDGET_MS;
	const json_t *s;
	size_t i, ran = 0, reused = 0;
	int rc = 0, k, cut = 0;

	if (!noise || !cases || !each)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_array_foreach(samples, i, s) {
		_cleanup_json_ json_t *o1 = NULL, *o2 = NULL, *c = NULL, *paths = NULL;
		const char *kind;
		if (tg_now_ms() >= deadline) {
			cut = 1;
			break;
		}
		ran++;
		if ((rc = run_one(&o1, r, ov, s)) < 0 || (rc = second_run(&o2, &k, r, ov, s)) < 0 ||
		    (rc = run_one(&c, r, cv, s)) < 0)
			return rc;
		reused += (size_t)k;
		kind = classify(o1, o2, c, noise, &paths);
		for (k = 0; k < 4; k++)
			if (strcmp(kind, kinds[k]) == 0)
				n[k]++;
		if (json_array_size(each) < SHADOW_MAX_LISTED &&
		    json_array_append_new(each, json_pack("{s:O, s:s}", "sample",
							  json_object_get(s, "id"), "kind",
							  kind)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		if (strcmp(kind, "same") != 0 && json_array_size(cases) < SHADOW_MAX_CASES) {
			json_t *one = case_of(s, kind, paths, o1, c);
			if (!one || json_array_append_new(cases, one) < 0)
				return tg_error_set(TG_ERR_NOMEM, "out of memory");
		}
	}
	if ((rc = drop_noisy_tests(cases, noise)) < 0)
		return rc;
	if (json_object_set_new(rep, "samples_run", json_integer((json_int_t)ran)) < 0 ||
	    json_object_set_new(rep, "recorded_as_second_run", json_integer((json_int_t)reused)) < 0 ||
	    (cut && json_object_set_new(rep, "cut_short", json_integer(SHADOW_BUDGET_MS)) < 0) ||
	    json_object_set_new(rep, "same", json_integer(n[0])) < 0 ||
	    json_object_set_new(rep, "differs", json_integer(n[1])) < 0 ||
	    json_object_set_new(rep, "regression", json_integer(n[2])) < 0 ||
	    json_object_set_new(rep, "fixed", json_integer(n[3])) < 0 ||
	    json_object_set(rep, "noise", noise) < 0 || json_object_set(rep, "cases", cases) < 0 ||
	    json_object_set(rep, "per_sample", each) < 0)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	return 0;
}

int reg_shadow_run(json_t **out, int *hold, tg_registry *r, const char *name,
		   const json_t *manifest, const char *hash, int pending)
{
	_cleanup_json_ json_t *rep = NULL, *samples = NULL;
	_cleanup_free_ char *obin = NULL, *cbin = NULL;
	shadow_old old;
	const char *skip;
	tg_authority prev;
	uint64_t t0 = tg_now_ms();
	int strict = r->cfg.promotion == TG_PROMOTION_STRICT, rc;
	json_int_t bad;

	*out = NULL;
	*hold = 0;
	if (r->cfg.promotion == TG_PROMOTION_TESTS)
		return 0;
	if ((rc = old_read(&old, r, name)) < 0 || !old.version)
		goto done;
	rep = json_pack("{s:i, s:s, s:b}", "against_version", (int)old.version, "policy",
			strict ? "strict" : "shadow", "held", 0);
	if (!rep) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto done;
	}
	skip = skip_reason(r, &old, manifest);
	if (!skip && (rc = reg_samples_list(&samples, r, name, r->cfg.shadow_samples)) < 0)
		goto done;
	if (!skip && json_array_size(samples) == 0)
		skip = "no recorded calls";
	if (!skip && ((rc = reg_cached_binary(&obin, r, old.hash)) < 0 ||
		      (rc = reg_cached_binary(&cbin, r, hash)) < 0))
		goto done;
	if (!skip && (!obin || !cbin))
		skip = "a build is not in the cache";
	if (skip && pending)
		goto done; /* as before shadow runs: the person's review alone */
	if (skip) {
		json_object_set_new(rep, "skipped", json_string(skip));
		*out = TG_TAKE_PTR(rep);
		goto done;
	}
	{
		shadow_side ov = { name, obin, old.limits, old.caps, NULL, old.oschema, old.version };
		shadow_side cv = { name, cbin, json_object_get(manifest, "limits"),
				   json_object_get(manifest, "capabilities"),
				   json_object_get(manifest, "input_schema"),
				   json_object_get(manifest, "output_schema"), 0 };
		/* under a test's authority, the bridged calls answered from
		 * the recording: nothing runs but the two versions */
		prev = reg_authority_set(r, TG_AUTHORITY_TEST, 0);
		rc = run_samples(rep, r, samples, &ov, &cv);
		reg_authority_set(r, prev, 0);
	}
	if (rc < 0)
		goto done;
	bad = json_integer_value(json_object_get(rep, "regression")) +
	      (strict ? json_integer_value(json_object_get(rep, "differs")) : 0);
	/* a version that waits for a person's approval is never held: the
	 * person decides, with this report in front of them */
	*hold = bad > 0 && !pending;
	json_object_set_new(rep, "held", json_boolean(*hold));
	if (pending && json_object_set_new(rep, "awaits_approval", json_true()) < 0) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto done;
	}
	json_object_set_new(rep, "wall_ms", json_integer((json_int_t)(tg_now_ms() - t0)));
	*out = TG_TAKE_PTR(rep);
done:
	old_clear(&old);
	return rc;
}

char *reg_shadow_reason(const json_t *rep, const char *name, unsigned v)
{
	const json_t *cases = json_object_get(rep, "cases");
	char *s = NULL, *first = NULL;
	int pass;

	/* a regression first, else a difference */
	for (pass = 0; pass < 2 * (int)json_array_size(cases); pass++) {
		const json_t *c = json_array_get(cases, (size_t)pass % json_array_size(cases));
		const char *k = json_string_value(json_object_get(c, "kind"));
		_cleanup_free_ char *a = NULL, *p = NULL;
		if (first || strcmp(k, pass < (int)json_array_size(cases) ? "regression"
									    : "differs") != 0)
			continue;
		a = tg_json_dump(json_object_get(c, "args"));
		p = tg_json_dump(json_object_get(c, "paths"));
		if (asprintf(&first, "%s on args %.200s: %.200s", k, a ? a : "",
			     strcmp(k, "differs") == 0 ? (p ? p : "")
						       : json_string_value(json_object_get(c, "error")))
		    < 0)
			first = NULL;
	}
	if (asprintf(&s, "held by shadow runs against v%d: %s (%lld regression%s, %lld "
			 "difference%s on %lld recorded calls; promotion \"%s\"); a person may "
			 "activate it: toolgate promote %s@%u",
		     (int)json_integer_value(json_object_get(rep, "against_version")),
		     first ? first : "-",
		     (long long)json_integer_value(json_object_get(rep, "regression")),
		     json_integer_value(json_object_get(rep, "regression")) == 1 ? "" : "s",
		     (long long)json_integer_value(json_object_get(rep, "differs")),
		     json_integer_value(json_object_get(rep, "differs")) == 1 ? "" : "s",
		     (long long)json_integer_value(json_object_get(rep, "samples_run")),
		     json_string_value(json_object_get(rep, "policy")), name, v) < 0)
		s = NULL;
	free(first);
	return s;
}

int reg_shadow_save(tg_registry *r, const tg_actor *who, const char *name, unsigned v,
		    const json_t *rep)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ char *text = tg_json_dump(rep);
	_cleanup_json_ json_t *d = NULL;
	static const char *const keys[] = { "against_version", "policy", "held", "skipped",
					    "samples_run", "same", "differs", "regression",
					    "fixed", "wall_ms", NULL };
	int rc, i;

	if (!text || !(d = json_pack("{s:i}", "version", (int)v)))
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; keys[i]; i++)
		if (json_object_get(rep, keys[i]))
			json_object_set(d, keys[i], json_object_get(rep, keys[i]));
	rc = reg_prepare(r, &st, "INSERT OR REPLACE INTO shadow_reports(tool, version, held, "
				 "report, at) VALUES(?1, ?2, ?3, ?4, ?5)");
	if (rc < 0)
		return rc;
	reg_bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, v);
	sqlite3_bind_int(st, 3, json_is_true(json_object_get(rep, "held")));
	reg_bind_text(st, 4, text);
	sqlite3_bind_int64(st, 5, tg_time_now());
	rc = reg_step(st);
	if (rc != SQLITE_DONE)
		return reg_sqlerr(r, rc, "record the shadow report");
	return reg_audit_append(r, who, "shadow", name, d);
}
