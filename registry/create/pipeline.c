/*
 * registry/create/pipeline.c: tg_registry_create, the create_tool pipeline of
 * docs/CONTRACTS.md. validate the manifest (nothing is recorded for a bad one) ->
 * vet the source -> build in the sandbox and check the object -> run every
 * test in the tool sandbox -> commit the version, with its results, to the
 * store -> move refs/active (CAS) when it passed and asks for no capability
 * -> one SQLite transaction. Every valid submission gets a version, rejected
 * ones too, with the reason. A version that asks for a capability is
 * pending (approval.c) and its tests run against an empty scratch folder at
 * /workspace.
 */

#include <string.h>
#include "registry/create/create.h"

#define DETAIL_CAP 600

static json_t *findings_of(const tg_report *rep, const char *stage)
{
	_cleanup_json_ json_t *doc = NULL;
	json_t *fs, *f;
	size_t i;

	if (tg_report_to_json(&doc, rep) < 0)
		return NULL;
	fs = json_object_get(doc, "findings");
	if (!json_is_array(fs))
		return json_array();
	json_array_foreach(fs, i, f)
		json_object_set_new(f, "stage", json_string(stage));
	return json_incref(fs);
}

/* The findings of one stage as the session's log: errors and warnings
 * (the analyzer's and the object check's diagnostics). */
static void findings_events(tg_registry *r, const tg_report *rep, const char *logger)
{
	size_t i;

	for (i = 0; rep && reg_events_on(r) && i < rep->nfindings; i++) {
		const tg_finding *f = &rep->findings[i];
		if (f->severity != TG_SEV_ERROR && f->severity != TG_SEV_WARNING)
			continue;
		reg_event(r, f->severity == TG_SEV_ERROR ? "error" : "warning", logger, 0, 0,
			  "tool.c:%u:%u: %s [%s]", f->line, f->column, f->message ? f->message : "",
			  f->rule ? f->rule : "?");
	}
}

/* JSON equality for `expect`: like json_equal, except that numbers compare
 * by value, so 4 equals 4.0 (JSON has one number type; jansson has two). */
static int values_equal(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *va;
	size_t i;

	if (json_is_number(a) && json_is_number(b)) {
		if (json_is_integer(a) && json_is_integer(b))
			return json_integer_value(a) == json_integer_value(b);
		return json_number_value(a) == json_number_value(b);
	}
	if (json_typeof(a) != json_typeof(b))
		return 0;
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		for (i = 0; i < json_array_size(a); i++) {
			if (!values_equal(json_array_get(a, i), json_array_get(b, i)))
				return 0;
		}
		return 1;
	}
	if (json_is_object(a)) {
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_foreach((json_t *)a, key, va) {
			json_t *vb = json_object_get(b, key);
			if (!vb || !values_equal(va, vb))
				return 0;
		}
		return 1;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

/* A short, valid rendering of a JSON value for a test detail. */
static char *short_json(const json_t *v)
{
	_cleanup_free_ char *s = tg_json_dump(v);
	char *o;

	if (!s)
		return NULL;
	if (strlen(s) <= DETAIL_CAP)
		return TG_TAKE_PTR(s);
	o = malloc(DETAIL_CAP + 8);
	if (!o)
		return NULL;
	/* cut at a UTF-8 boundary */
	size_t n = DETAIL_CAP;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(o, s, n);
	strcpy(o + n, "...");
	return o;
}

static int run_tests(json_t **out, int *all_passed, char **first_failure, tg_registry *r,
		     const char *binary, const json_t *m, int ws_read, int ws_write,
		     const char *workspace)
{
	_cleanup_json_ json_t *results = json_array();
	json_t *schema = json_object_get(m, "input_schema");
	json_t *oschema = json_object_get(m, "output_schema");
	json_t *limits = json_object_get(m, "limits");
	uint64_t start = tg_now_ms();
	size_t ntests = json_array_size(json_object_get(m, "tests"));
	json_t *t;
	size_t i;
	int rc;

	*all_passed = 1;
	*first_failure = NULL;
	if (!results)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	const json_t *placed = NULL; /* the files on the scratch workspace */

	json_array_foreach(json_object_get(m, "tests"), i, t) {
		_cleanup_json_ json_t *res = NULL;
		_cleanup_free_ char *detail = NULL, *got = NULL, *want = NULL;
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *args = json_object_get(t, "args");
		json_t *expect = json_object_get(t, "expect");
		int expect_error = json_is_true(json_object_get(t, "expect_error"));
		int passed = 0, skipped = 0;
		json_int_t wall = 0;

		if (!*all_passed) {
			/* tests stop at the first failure (issue 15): the rest are
			 * reported, not run */
			skipped = 1;
			detail = strdup("skipped: an earlier test failed");
		} else if (tg_now_ms() - start > REG_TEST_BUDGET_MS) {
			if (asprintf(&detail, "not run: the tests used up their total budget of %u s",
				     REG_TEST_BUDGET_MS / 1000) < 0)
				detail = NULL;
		} else if (expect_error &&
			   tg_schema_validate_flags(schema, args, "args", reg_schema_flags(&r->cfg, 0)) < 0) {
			/* a call with these arguments never reaches the tool */
			passed = 1;
			if (asprintf(&detail, "ok: refused by input_schema: %s",
				     tg_error_last()->message) < 0)
				detail = NULL;
			tg_error_clear();
		} else {
			reg_bridge br;
			/* declared calls are served in tests too, under the test's
			 * authority (authz.c): a callee that holds no capability runs
			 * for real; one that holds any is answered from the test's
			 * tool_results, never run */
			const char *tname = json_string_value(json_object_get(m, "name"));
			int bridged = reg_bridge_init(&br, r, NULL, tname,
						      0, json_object_get(m, "capabilities"), limits,
						      NULL);
			/* host calls are answered from the test's fixtures */
			br.host_results = json_object_get(t, "host_results");
			br.tool_results = json_object_get(t, "tool_results");
			/* workspace is the scratch folder here, never the host's */
			if (ws_read || ws_write) {
				const json_t *files = json_object_get(t, "files");
				if ((rc = reg_test_files_place(workspace, placed, files)) < 0)
					return rc;
				placed = files;
			}
			rc = reg_run_tool_ex(&res, r, tname, binary, limits, ws_read, ws_write, workspace,
					     args, bridged ? &br : NULL, 0);
			if (rc < 0)
				return rc;
			wall = json_integer_value(json_object_get(res, "wall_ms"));
			if (bridged && br.unexpected_buf[0]) {
				if (asprintf(&detail, "unexpected call to %s: the test declares no "
						      "%s for it", br.unexpected_buf,
					     br.unexpected_buf[0] == 'h' ? "host_results"
									 : "tool_results") < 0)
					detail = NULL;
			} else if (json_is_true(json_object_get(res, "ok"))) {
				json_t *value = json_object_get(res, "result");
				char cwhy[512];
				got = short_json(value);
				if (!expect_error && oschema &&
				    tg_schema_validate_flags(oschema, value ? value : json_null(),
							     "result", reg_schema_flags(&r->cfg, 0)) < 0) {
					if (asprintf(&detail, "the result does not match output_schema: "
							      "%s (got %s)",
						     tg_error_last()->message, got ?: "?") < 0)
						detail = NULL;
					tg_error_clear();
				} else if (!expect_error &&
					   tg_content_check(value, cwhy, sizeof(cwhy)) < 0) {
					if (asprintf(&detail, TG_CONTENT_REFUSED "%s",
						     cwhy) < 0)
						detail = NULL;
				} else if (expect_error) {
					if (asprintf(&detail, "expected an error, got %s", got ?: "?") < 0)
						detail = NULL;
				} else if (values_equal(value, expect)) {
					passed = 1;
					detail = strdup("ok");
				} else {
					want = short_json(expect);
					if (asprintf(&detail, "expected %s, got %s", want ?: "?",
						     got ?: "?") < 0)
						detail = NULL;
				}
			} else {
				const char *err = json_string_value(json_object_get(res, "error"));
				const char *reason = json_string_value(json_object_get(res, "reason"));
				int killed_by_filter = reason && strcmp(reason, "seccomp") == 0;
				if (expect_error && reason && strcmp(reason, "exited") == 0 &&
				    !killed_by_filter) {
					passed = 1;
					if (asprintf(&detail, "ok: error: %.*s", DETAIL_CAP, err ?: "") < 0)
						detail = NULL;
				} else if (asprintf(&detail, "%s: %.*s",
						    expect_error ? "expected the tool to exit with an error, "
								   "but it was stopped"
								 : "error",
						    DETAIL_CAP, err ?: "") < 0) {
					detail = NULL;
				}
			}
		}
		if (!detail)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		reg_event(r, "info", "create", 3 + (unsigned)i, 3 + (unsigned)ntests,
			  "test \"%s\": %s", name, skipped ? "skipped" : passed ? "passed" : "failed");
		if (!passed && *all_passed) {
			*all_passed = 0;
			/* a workspace tool's test sees no host file (issue 29) */
			if (asprintf(first_failure, "test \"%s\" failed: %s%s", name, detail,
				     ws_read || ws_write ? " (tests run on a scratch /workspace "
							   "holding only the files the test "
							   "declares in \"files\")" : "") < 0)
				*first_failure = NULL;
		}
		if (json_array_append_new(results,
					  json_pack("{s:s, s:b, s:s, s:I, s:b}", "name", name, "passed",
						    passed, "detail", detail, "wall_ms", wall,
						    "skipped", skipped)) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	/* what runs next (property tests) sees the scratch folder empty again */
	if ((rc = reg_test_files_place(workspace, placed, NULL)) < 0)
		return rc;
	*out = TG_TAKE_PTR(results);
	return 0;
}

/* What the vetting, build and tests found. */
typedef struct outcome {
	const char *status;   /* rejected, failed, pending, active */
	const char *verdict;  /* pass, reject */
	char *reason;
	json_t *findings;
	json_t *tests;
	json_t *shadow;       /* the shadow runs' report (shadow.c), or NULL */
	json_t *props;        /* the property tests' summary (proptest.c) */
	char hash[65];
} outcome;

static void outcome_clear(outcome *o)
{
	free(o->reason);
	json_decref(o->findings);
	json_decref(o->tests);
	json_decref(o->shadow);
	json_decref(o->props);
}

static int set_reason(outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_reason(outcome *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	free(o->reason);
	o->reason = NULL;
	va_start(ap, fmt);
	n = vasprintf(&o->reason, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->reason = NULL;
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	return 0;
}

static int vet_build_test(outcome *o, tg_registry *r, const tg_submission *sub,
			  const char *const *caps, size_t ncaps, int ws_read, int ws_write,
			  const char *workspace, const char *skip_tests)
{
	tg_analyze_opts ao = { 0 };
	tg_report *rep = NULL, *orep = NULL;
	_cleanup_free_ char *log = NULL, *binary = NULL, *first_fail = NULL;
	const tg_policy *pol;
	json_t *more;
	tg_authority prev;
	int rc, ok = 0, all = 0;
	size_t nerr = 0, i, ntests;

	o->status = "rejected";
	o->verdict = "reject";
	o->tests = json_array();
	rc = reg_policy(r, &pol);
	if (rc < 0)
		return rc;
	ao.capabilities = caps;
	ao.ncapabilities = ncaps;
	ao.sdk_include_dir = r->sdk_include;
	ao.timeout_ms = r->cfg.analyze_timeout_ms;
	ntests = json_array_size(json_object_get(sub->manifest, "tests"));
	reg_event(r, "info", "create", 1, 3 + (unsigned)ntests, "vet: analysing tool.c");
	rc = tg_analyze(&rep, pol, "tool.c", sub->source, sub->source_len, &ao);
	if (rc < 0)
		return tg_error_prefix("analysis");
	o->findings = findings_of(rep, "source");
	findings_events(r, rep, "vet");
	for (i = 0; i < rep->nfindings; i++)
		nerr += rep->findings[i].severity == TG_SEV_ERROR;
	if (!rep->pass) {
		rc = set_reason(o, "the analyzer rejected the source (%zu error finding%s)", nerr,
				nerr == 1 ? "" : "s");
		tg_report_free(rep);
		return rc;
	}
	tg_report_free(rep);
	if (!o->findings || !o->tests)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	reg_content_hash(o->hash, sub->source, sub->source_len);
	reg_event(r, "info", "create", 2, 3 + (unsigned)ntests, "build: compiling tool.c");
	rc = reg_build(r, o->hash, sub->source, sub->source_len, caps, ncaps, &ok, &orep, &log,
		       &binary);
	if (rc < 0)
		return rc;
	if (log) {
		reg_event_lines(r, "error", "build", log, strlen(log), 64);
		o->status = "failed";
		o->verdict = "pass";
		return set_reason(o, "the build failed: %.2000s", log);
	}
	more = findings_of(orep, "object");
	findings_events(r, orep, "build");
	if (more) {
		json_array_extend(o->findings, more);
		json_decref(more);
	}
	if (!ok) {
		tg_report_free(orep);
		return set_reason(o, "the object file check rejected the build (undefined symbols "
				     "outside the policy)");
	}
	tg_report_free(orep);
	o->verdict = "pass";
	if (skip_tests) {
		/* a pull --trust-signed of a version a trusted key signed: vetted
		 * and built here, its tests taken on the signer's word */
		o->status = "active";
		return set_reason(o, "passed; tests skipped: %s", skip_tests);
	}
	json_decref(o->tests);
	o->tests = NULL;
	/* the tests run before anyone approved anything: under a test's
	 * authority (a pull's re-tests keep theirs), never a real one */
	prev = reg_authority_set(r, r->authority == TG_AUTHORITY_RETEST ? TG_AUTHORITY_RETEST
									  : TG_AUTHORITY_TEST, 0);
	rc = run_tests(&o->tests, &all, &first_fail, r, binary, sub->manifest, ws_read, ws_write,
		       workspace);
	reg_authority_set(r, prev, 0);
	if (rc < 0)
		return rc;
	if (!all) {
		size_t nf = 0, ns = 0;
		char skipped[64] = "";
		json_t *t;
		/* the tests after the first failure are skipped, not failed */
		json_array_foreach(o->tests, i, t) {
			if (json_is_true(json_object_get(t, "skipped")))
				ns++;
			else
				nf += !json_is_true(json_object_get(t, "passed"));
		}
		if (ns)
			snprintf(skipped, sizeof(skipped), ", %zu skipped", ns);
		o->status = "failed";
		return set_reason(o, "%zu of %zu tests failed%s; %s", nf, json_array_size(o->tests),
				  skipped, first_fail ? first_fail : "");
	}
	/* then the inputs generated from input_schema, under the same authority */
	_cleanup_free_ char *pfail = NULL;
	prev = reg_authority_set(r, r->authority == TG_AUTHORITY_RETEST ? TG_AUTHORITY_RETEST
									  : TG_AUTHORITY_TEST, 0);
	rc = reg_proptest(&o->props, o->tests, &pfail, r, binary, sub->manifest, ws_read, ws_write,
			  workspace, o->hash);
	reg_authority_set(r, prev, 0);
	if (rc < 0)
		return rc;
	if (pfail) {
		o->status = "failed";
		return set_reason(o, "%s", pfail);
	}
	o->status = "active";
	return 0;
}

static int commit_version(tg_store_version **out, tg_registry *r, const tg_submission *sub,
			  const outcome *o, const char *submitter)
{
	_cleanup_json_ json_t *manifest = json_deep_copy(sub->manifest);
	_cleanup_json_ json_t *analysis = NULL;
	_cleanup_free_ char *mj = NULL, *aj = NULL, *tj = NULL;
	tg_store_file files[4];
	tg_store_trailer tr[4];
	tg_store_put_opts po = { 0 };
	tg_store *s;
	char subject[200];
	int rc;
	const char *name = json_string_value(json_object_get(sub->manifest, "name"));

	if (!manifest)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_object_set_new(manifest, "source", json_string("tool.c"));
	analysis = json_pack("{s:s, s:O, s:s}", "verdict", o->verdict, "findings", o->findings,
			     "reason", o->reason ? o->reason : "");
	mj = tg_json_dump_pretty(manifest);
	aj = analysis ? tg_json_dump_pretty(analysis) : NULL;
	tj = tg_json_dump_pretty(o->tests);
	if (!mj || !aj || !tj)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	files[0] = (tg_store_file){ "tool.json", mj, strlen(mj) };
	files[1] = (tg_store_file){ "tool.c", sub->source, sub->source_len };
	files[2] = (tg_store_file){ "analysis.json", aj, strlen(aj) };
	files[3] = (tg_store_file){ "tests.json", tj, strlen(tj) };
	tr[0] = (tg_store_trailer){ "Toolgate-Status", o->status };
	tr[1] = (tg_store_trailer){ "Toolgate-Verdict", o->verdict };
	tr[2] = (tg_store_trailer){ "Toolgate-Content-Hash", o->hash };
	tr[3] = (tg_store_trailer){ "Toolgate-Submitter", submitter };
	snprintf(subject, sizeof(subject), "%s: %s", name, o->status);
	po.tool = name;
	po.files = files;
	po.nfiles = 4;
	po.trailers = tr;
	po.ntrailers = 4;
	po.subject = subject;
	if ((rc = reg_store(r, &s)) < 0)
		return rc;
	if (tg_store_put(out, s, &po) < 0)
		return tg_error_prefix("store");
	return 0;
}

static int create_version(json_t **out, tg_registry *r, const tg_submission *sub,
			  const tg_actor *who);

/* A submission refused by a quota: audited as "create_refused" {"reason"}
 * (best effort: a refusal runs nothing), the quota's error kept. */
static int refused(tg_registry *r, const tg_actor *who, const char *name, int code)
{
	tg_error saved = *tg_error_last();
	json_t *d = json_pack("{s:s}", "reason", saved.message);

	if (!d || tg_registry_audit(r, who, "create_refused", name, d) < 0)
		tg_error_clear();
	json_decref(d);
	return tg_error_set(code, "%s", saved.message);
}

/* A create whose client cancelled it: audited as create_cancelled. */
static int cancelled(tg_registry *r, const tg_actor *who, const char *name)
{
	json_t *d = json_pack("{s:s}", "reason", "cancelled");

	tg_error_clear();
	if (!d || tg_registry_audit(r, who, "create_cancelled", name, d) < 0)
		tg_error_clear();
	json_decref(d);
	return tg_error_set(TG_ERR_DENIED, "cancelled by the client: nothing was stored");
}

int tg_registry_create(json_t **out, tg_registry *r, const tg_submission *sub,
		       const tg_actor *who)
{
	/* "calls" entries become tools:/host: capabilities (bridge_manifest.c) */
	_cleanup_json_ json_t *m = NULL;
	tg_submission norm = *sub;
	int rc;

	*out = NULL;
	if (json_is_object(sub->manifest)) {
		rc = reg_bridge_manifest(&m, sub->manifest);
		if (rc < 0)
			return rc;
		norm.manifest = m;
	}
	return create_version(out, r, &norm, who);
}

/* The version, its results, its usage, its activation and the "create"
 * audit entry, in one transaction: 0 committed, else rolled back (which
 * also moves refs/active back if this transaction moved it). */
static int record_version(tg_registry *r, const tg_actor *who, const char *name,
			  const tg_submission *sub, outcome *o, const tg_store_version *sv,
			  const char *submitter)
{
	_cleanup_json_ json_t *details = NULL;
	reg_version_rec rec = { 0 };
	int64_t tool_id = 0;
	unsigned cur = 0;
	int rc, inserted, do_activate = 0;

	rc = reg_begin(r);
	if (rc < 0)
		return rc;
	rc = reg_tool_id(r, name, 1, &tool_id);
	if (rc < 0)
		goto fail;
	rec.version = sv->version;
	rec.status = strcmp(o->status, "active") == 0 ? "inactive" : o->status;
	rec.verdict = o->verdict;
	rec.reason = o->reason;
	rec.commit = sv->commit;
	rec.content_hash = o->hash;
	rec.submitter = submitter;
	rec.time = sv->time;
	rec.manifest = sub->manifest;
	details = json_pack("{s:s, s:s}", "verdict", o->verdict, "commit", sv->commit);
	rec.analysis = details ? json_pack("{s:s, s:O}", "verdict", o->verdict, "findings",
					   o->findings)
			       : NULL;
	if (!details || !rec.analysis) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto fail;
	}
	rec.tests = o->tests;
	rc = reg_insert_version(r, tool_id, &rec, &inserted);
	if (rc == 0 && inserted) /* quota_tool_mb, quota_session_mb (usage.c) */
		rc = reg_usage_record(r, tool_id, sv->version, sub->source_len, sub->manifest,
				      rec.analysis);
	json_decref((json_t *)rec.analysis);
	if (rc < 0)
		goto fail;
	if (strcmp(o->status, "active") == 0) {
		rc = reg_active_version(r, tool_id, &cur);
		if (rc < 0)
			goto fail;
		if (cur > sv->version) {
			/* a newer version was activated meanwhile by another process */
			o->status = "inactive";
			rc = set_reason(o, "passed; not activated because v%u, submitted later, is "
					    "already active", cur);
			if (rc < 0)
				goto fail;
		} else {
			do_activate = 1;
		}
		if (strcmp(o->status, "active") != 0) {
			_cleanup_stmt_ sqlite3_stmt *st = NULL;
			rc = reg_prepare(r, &st, "UPDATE versions SET status = ?3, reason = ?4 WHERE "
						 "tool_id = ?1 AND version = ?2");
			if (rc < 0)
				goto fail;
			sqlite3_bind_int64(st, 1, tool_id);
			sqlite3_bind_int64(st, 2, sv->version);
			reg_bind_text(st, 3, o->status);
			reg_bind_text(st, 4, o->reason ? o->reason : "");
			if ((rc = reg_step(st)) != SQLITE_DONE) {
				rc = reg_sqlerr(r, rc, "update status");
				goto fail;
			}
		}
	}
	json_object_set_new(details, "version", json_integer(sv->version));
	json_object_set_new(details, "status", json_string(o->status));
	rc = reg_audit_append(r, who, "create", name, details);
	if (rc == 0 && o->shadow) /* its report row and "shadow" entry (shadow.c) */
		rc = reg_shadow_save(r, who, name, sv->version, o->shadow);
	if (rc < 0)
		goto fail;
	if (do_activate) {
		rc = reg_activate(r, tool_id, name, sv->version, "activate", who);
		if (rc < 0)
			goto fail;
	}
	return reg_commit(r); /* a failed commit rolls back */
fail:
	reg_rollback(r); /* also moves refs/active back if this run moved it */
	return rc;
}

/* A copy of manifest with the tool's stored tests from recorded calls
 * appended, or *out = NULL when it has none to add. */
static int with_sample_tests(json_t **out, size_t *added, tg_registry *r, const json_t *manifest)
{
	_cleanup_json_ json_t *m = json_deep_copy(manifest);
	int rc;

	*out = NULL;
	*added = 0;
	if (!m)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if ((rc = reg_sample_tests_merge(r, m, added)) < 0)
		return rc;
	if (*added)
		*out = TG_TAKE_PTR(m);
	return 0;
}

static int create_version(json_t **out, tg_registry *r, const tg_submission *sub,
			  const tg_actor *who)
{
	_cleanup_free_ char *submitter = reg_actor_string(who);
	reg_workdir scratch = { NULL, NULL, -1 };
	_cleanup_free_ const char **caps = NULL;
	_cleanup_json_ json_t *res = NULL, *details = NULL, *emptycaps = json_array();
	json_t *capj = json_object_get(sub->manifest, "capabilities");
	const char *name;
	tg_store_version *sv = NULL;
	int recorded = 0; /* the SQLite transaction committed */
	outcome o = { 0 };
	size_t ncaps = json_array_size(capj), i, added = 0;
	int rc, ws_read, ws_write, hold = 0;
	_cleanup_json_ json_t *merged = NULL;
	tg_submission msub;

	*out = NULL;
	if (!submitter)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	/* the tests a person made of recorded calls join the manifest's
	 * (record/sample_tests.c): checked, run and committed with it */
	if ((rc = with_sample_tests(&merged, &added, r, sub->manifest)) < 0)
		return rc;
	if (merged) {
		msub = *sub;
		msub.manifest = merged;
		sub = &msub;
		capj = json_object_get(sub->manifest, "capabilities");
	}
	rc = tg_manifest_validate(r, sub->manifest, sub->source, sub->source_len);
	if (rc < 0)
		rc = reg_manifest_refusal(r, who, sub, rc); /* with the analyzer's findings */
	if (rc < 0 && added) {
		char m[1024];
		snprintf(m, sizeof(m), "%s", tg_error_last()->message);
		return tg_error_set(rc, "%s (the tests include %zu made of recorded calls by a "
					"person: toolgate tests list NAME)", m, added);
	}
	if (rc < 0)
		return rc;
	/* no SDK: an environment error, nothing recorded against the tool */
	if ((rc = reg_need_sdk(r)) < 0)
		return rc;
	name = json_string_value(json_object_get(sub->manifest, "name"));
	caps = calloc(ncaps + 1, sizeof(*caps));
	if (!caps)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < ncaps; i++)
		caps[i] = json_string_value(json_array_get(capj, i));
	reg_caps_from_json(capj, &ws_read, &ws_write);
	reg_content_hash(o.hash, sub->source, sub->source_len);
	/* quotas before anything is built (quota.c) */
	rc = reg_rate_before_create(r, who);
	if (rc == 0)
		rc = reg_quota_before_create(r, name);
	if (rc == 0)
		rc = reg_usage_before_create(r, name, who);
	if (rc < 0)
		return refused(r, who, name, rc);
	/* fail closed: nothing is vetted, built or stored unless the audit log
	 * takes the submission first (a crash later leaves this entry with no
	 * "create" after it) */
	details = json_pack("{s:s}", "content_hash", o.hash);
	if (!details)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	rc = tg_registry_audit(r, who, "create_intent", name, details);
	json_decref(details);
	details = NULL;
	if (rc < 0)
		return tg_error_prefix("%s was not created: its submission could not be recorded",
				       name);

	/* A version that asks for any capability awaits a person's approval of
	 * that very version, whatever earlier versions had; until then its
	 * tests see an empty scratch folder at /workspace, never the host's, so
	 * nothing it reads (and reports in a test detail or error) is host data. */
	if (ncaps > 0 && (rc = reg_workdir_make(&scratch, r, "scratch")) < 0)
		goto out;
	rc = vet_build_test(&o, r, sub, caps, ncaps, ws_read, ws_write, scratch.dir, NULL);
	reg_workdir_release(&scratch, 1);
	if (tg_cancel_fired(r->cancel)) {
		/* the client cancelled: nothing is stored (the intent's outcome
		 * is this entry) */
		rc = cancelled(r, who, name);
		goto out;
	}
	if (rc == TG_ERR_DENIED)
		rc = refused(r, who, name, rc); /* max_binary_mb */
	if (rc < 0)
		goto out;
	if (!o.findings)
		o.findings = json_array();
	if (!o.tests)
		o.tests = json_array();
	if (!o.findings || !o.tests || !emptycaps) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (strcmp(o.status, "active") == 0 && ncaps > 0) {
		o.status = "pending";
		rc = set_reason(&o, "passed; its capabilities need approval by a person "
				    "(toolgate approve)");
		if (rc < 0)
			goto out;
	}
	/* a new version that passed earns its place on the recorded calls */
	if ((strcmp(o.status, "active") == 0 || strcmp(o.status, "pending") == 0) &&
	    (rc = reg_shadow_run(&o.shadow, &hold, r, name, sub->manifest, o.hash,
				 strcmp(o.status, "pending") == 0)) < 0)
		goto out;
	rc = commit_version(&sv, r, sub, &o, submitter);
	if (rc < 0)
		goto out;
	if (hold) {
		/* the store's trailer says it passed; the registry holds it */
		o.status = "held";
		free(o.reason);
		if (!(o.reason = reg_shadow_reason(o.shadow, name, sv->version))) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if (o.reason && strcmp(o.status, "pending") == 0) {
		json_int_t reg = json_integer_value(json_object_get(o.shadow, "regression"));
		json_int_t dif = json_integer_value(json_object_get(o.shadow, "differs"));
		/* what shadow runs found is the approver's to weigh (shadow.c) */
		if (reg + dif > 0)
			rc = set_reason(&o, "passed; its capabilities need approval: toolgate approve "
					    "%s@%u; shadow runs against v%lld found %lld regression(s) "
					    "and %lld difference(s): toolgate diff %s %lld %u "
					    "--behaviour",
					name, sv->version,
					(long long)json_integer_value(json_object_get(
						o.shadow, "against_version")),
					(long long)reg, (long long)dif, name,
					(long long)json_integer_value(json_object_get(
						o.shadow, "against_version")),
					sv->version);
		else
			rc = set_reason(&o, "passed; its capabilities need approval: toolgate "
					    "approve %s@%u",
					name, sv->version);
		if (rc < 0)
			goto out;
	}

	/* one transaction: the version, its results, activation, audit */
	rc = record_version(r, who, name, sub, &o, sv, submitter);
	if (rc < 0)
		goto out;
	recorded = 1;
	/* a version that did not pass keeps no binary; upkeep past the
	 * thresholds (a failure costs only disk space) */
	if (strcmp(o.status, "failed") == 0 || strcmp(o.status, "rejected") == 0) {
		if (reg_cache_drop_unused(r, o.hash) < 0)
			tg_error_clear();
	}
	if (reg_upkeep_after_create(r) < 0)
		tg_error_clear();

	res = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:O, s:O, s:s, s:O}", "name", name,
			"version", (int)sv->version, "status", o.status, "verdict", o.verdict,
			"commit", sv->commit, "content_hash", o.hash, "findings", o.findings,
			"tests", o.tests, "reason", o.reason ? o.reason : "", "capabilities",
			capj ? capj : emptycaps);
	if (res && o.props)
		json_object_set(res, "property_tests", o.props);
	if (!res || (o.shadow && json_object_set(res, "shadow", o.shadow) < 0)) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	*out = TG_TAKE_PTR(res);
	rc = 0;
out:
	if (rc < 0 && sv && !recorded) {
		/* the version was committed but the registry write failed: take it
		 * back out of the store (best effort: on a full disk even this can
		 * fail, and the next open then re-indexes it, inactive) */
		tg_error saved = *tg_error_last();
		char msg[128];
		tg_store *st;
		snprintf(msg, sizeof(msg), "toolgate: drop v%u (its registry write failed)", sv->version);
		if (reg_store(r, &st) == 0)
			tg_store_drop_version(st, name, sv->version, sv->commit, msg);
		tg_error_set(saved.code, "%s", saved.message);
	}
	tg_store_version_free(sv);
	outcome_clear(&o);
	return rc;
}

int reg_revet(json_t **out, tg_registry *r, const json_t *manifest, const char *source,
	      size_t len, const char *skip_tests)
{
	_cleanup_free_ const char **caps = NULL;
	reg_workdir scratch = { NULL, NULL, -1 };
	json_t *capj = json_object_get(manifest, "capabilities");
	tg_submission sub = { manifest, source, len };
	size_t ncaps = json_array_size(capj), i;
	outcome o = { 0 };
	int rc, ws_read = 0, ws_write = 0;

	*out = NULL;
	reg_content_hash(o.hash, source, len);
	if (tg_manifest_validate(r, manifest, source, len) < 0) {
		rc = set_reason(&o, "the manifest is not valid here: %s", tg_error_last()->message);
		tg_error_clear();
		o.status = "rejected";
		o.verdict = "reject";
		if (rc < 0)
			goto out;
	} else {
		caps = calloc(ncaps + 1, sizeof(*caps));
		if (!caps) {
			rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < ncaps; i++)
			caps[i] = json_string_value(json_array_get(capj, i));
		reg_caps_from_json(capj, &ws_read, &ws_write);
		if (ncaps > 0 && (rc = reg_workdir_make(&scratch, r, "scratch")) < 0)
			goto out;
		rc = vet_build_test(&o, r, &sub, caps, ncaps, ws_read, ws_write, scratch.dir,
				    skip_tests);
		reg_workdir_release(&scratch, 1);
		if (rc < 0)
			goto out;
		/* passed here: inactive until something activates it; pending
		 * while its capabilities wait for a person of this host */
		if (strcmp(o.status, "active") == 0)
			o.status = ncaps > 0 ? "pending" : "inactive";
	}
	*out = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "status", o.status, "verdict", o.verdict,
			 "reason", o.reason ? o.reason : "", "content_hash", o.hash, "findings",
			 o.findings ? json_incref(o.findings) : json_array(), "tests",
			 o.tests ? json_incref(o.tests) : json_array());
	if (*out && o.props)
		json_object_set(*out, "property_tests", o.props);
	rc = *out ? 0 : tg_error_set(TG_ERR_NOMEM, "out of memory");
out:
	outcome_clear(&o);
	return rc;
}
