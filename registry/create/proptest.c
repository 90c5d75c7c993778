/*
 * registry/create/proptest.c: a submission's property tests (docs/REGISTRY.md,
 * "Property tests"). After its hand-written tests pass, the inputs propgen.c
 * made from its input_schema run in the tool sandbox exactly as a test runs
 * (the manifest's limits, the caller's authority, the same scratch
 * workspace, a run slot each), within config.json's property_tests and
 * property_test_budget_ms: in parallel on worker threads (propruns.c),
 * their results judged here in input order, so that the first failure is
 * the one a run one after another finds. A run fails when the tool crashes, is killed by
 * the sandbox, prints something that is not one JSON value, a result whose
 * $content blocks are refused (common/content.c) or a result that does
 * not match output_schema; a clean non-zero exit (tg_tool_fail) is the
 * tool refusing the input and passes. The first failure is shrunk (optional
 * properties dropped, strings and arrays shortened, numbers moved toward 0)
 * while it still fails, within a bounded number of runs, and reported with a
 * test ready to add. A tool that declares calls is not property-tested: a
 * bridged call would be answered like a test's without fixtures.
 */

#include <string.h>
#include "registry/create/create.h"

#define SHRINK_RUNS 64 /* runs of the shrinker at most */

typedef struct prun {
	tg_registry *r;
	const char *tool; /* its backend's (record/backend.c) */
	const char *binary;
	const json_t *limits;
	const tg_schema *in, *out; /* out may be NULL */
	int ws_read, ws_write;
	const char *workspace;
	unsigned runs;
} prun;

/* The contract's answer res to one input: 0 passed, 1 failed (*why set),
 * < 0 an error. */
static int judge(prun *p, const json_t *res, char **why)
{
	const char *err, *reason;
	int rc;

	*why = NULL;
	if (json_is_true(json_object_get(res, "ok"))) {
		json_t *v = json_object_get(res, "result");
		char cwhy[512];
		if (tg_content_check(v, cwhy, sizeof(cwhy)) < 0) {
			rc = asprintf(why, TG_CONTENT_REFUSED "%s", cwhy);
			return rc < 0 ? tg_error_set(TG_ERR_NOMEM, "out of memory") : 1;
		}
		if (!p->out || tg_schema_run(p->out, v ? v : json_null(), "result") == 0)
			return 0;
		rc = asprintf(why, "the result does not match output_schema: %s",
			      tg_error_last()->message);
		tg_error_clear();
		return rc < 0 ? tg_error_set(TG_ERR_NOMEM, "out of memory") : 1;
	}
	err = json_string_value(json_object_get(res, "error"));
	reason = json_string_value(json_object_get(res, "reason"));
	if (reason && strcmp(reason, "cancelled") == 0)
		return tg_error_set(TG_ERR_DENIED, "cancelled by the client");
	/* a clean exit with a message is a refusal; exit 0 with bad output is not */
	if (reason && strcmp(reason, "exited") == 0 && err &&
	    strncmp(err, "the tool's output is not one JSON value", 39) != 0)
		return 0;
	*why = strdup(err ? err : "the tool failed");
	return *why ? 1 : tg_error_set(TG_ERR_NOMEM, "out of memory");
}

/* Run args once (the shrinker's runs, on this thread): as judge. */
static int run_one(prun *p, const json_t *args, char **why)
{
	_cleanup_json_ json_t *res = NULL;
	int rc;

	*why = NULL;
	p->runs++;
	rc = reg_run_tool_ex(&res, p->r, p->tool, p->binary, p->limits, p->ws_read, p->ws_write,
			     p->workspace, args, NULL, 0);
	return rc < 0 ? rc : judge(p, res, why);
}

static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The first n code points of s. */
static json_t *utf8_prefix(const char *s, size_t n)
{
	size_t b = 0;
	for (size_t cp = 0; s[b]; b++) {
		if (((unsigned char)s[b] & 0xc0) != 0x80 && cp++ == n)
			break;
	}
	return json_stringn(s, b);
}

/* Smaller versions of v, most promising first (appended to out). */
static void smaller(json_t *out, const json_t *v, int depth)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = utf8_len(s);
		if (n == 0)
			return;
		json_array_append_new(out, json_string(""));
		if (n > 1) {
			json_array_append_new(out, utf8_prefix(s, n / 2));
			json_array_append_new(out, utf8_prefix(s, n - 1));
		}
		/* the same length in ASCII */
		int ascii = 1;
		for (const char *q = s; *q; q++)
			ascii &= (unsigned char)*q < 0x80 && *q != ' ' && *q != '\n';
		if (!ascii) {
			char *b = malloc(n + 1);
			if (b) {
				memset(b, 'a', n);
				b[n] = 0;
				json_array_append_new(out, json_string(b));
				free(b);
			}
		}
	} else if (json_is_integer(v)) {
		json_int_t x0 = json_integer_value(v);
		if (x0 == 0)
			return;
		json_array_append_new(out, json_integer(0));
		if (x0 / 2 != 0)
			json_array_append_new(out, json_integer(x0 / 2));
		json_array_append_new(out, json_integer(x0 > 0 ? x0 - 1 : x0 + 1));
	} else if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d == 0)
			return;
		json_array_append_new(out, json_integer(0));
		if (d > -9e15 && d < 9e15)
			json_array_append_new(out, json_real((double)(json_int_t)d));
		json_array_append_new(out, json_real(d / 2));
	} else if (json_is_array(v) && depth < 8) {
		size_t n = json_array_size(v);
		if (n == 0)
			return;
		json_array_append_new(out, json_array());
		if (n > 1) {
			json_t *h = json_array();
			for (i = 0; h && i < n / 2; i++)
				json_array_append(h, json_array_get(v, i));
			json_array_append_new(out, h);
		}
		for (i = 0; i < n && i < 16; i++) {
			json_t *c = json_deep_copy(v);
			json_array_remove(c, i);
			json_array_append_new(out, c);
		}
		for (i = 0; i < n && i < 16; i++) {
			json_t *sub = json_array(), *s2;
			size_t j;
			smaller(sub, json_array_get(v, i), depth + 1);
			json_array_foreach(sub, j, s2) {
				json_t *c = json_deep_copy(v);
				json_array_set(c, i, s2);
				json_array_append_new(out, c);
			}
			json_decref(sub);
		}
	} else if (json_is_object(v) && depth < 8) {
		json_object_foreach((json_t *)v, k, x) {
			json_t *c = json_deep_copy(v);
			json_object_del(c, k);
			json_array_append_new(out, c);
		}
		json_object_foreach((json_t *)v, k, x) {
			json_t *sub = json_array(), *s2;
			size_t j;
			smaller(sub, x, depth + 1);
			json_array_foreach(sub, j, s2) {
				json_t *c = json_deep_copy(v);
				json_object_set(c, k, s2);
				json_array_append_new(out, c);
			}
			json_decref(sub);
		}
	}
}

/* Shrink *args (failing with *why) while a smaller input that conforms
 * still fails, within SHRINK_RUNS runs and the deadline. */
static int shrink(prun *p, json_t **args, char **why, uint64_t deadline)
{
	unsigned left = SHRINK_RUNS;
	int progress = 1, rc;

	while (progress && left > 0 && tg_now_ms() < deadline) {
		_cleanup_json_ json_t *cs = json_array();
		json_t *c;
		size_t i;

		progress = 0;
		if (!cs)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
		smaller(cs, *args, 0);
		json_array_foreach(cs, i, c) {
			char *w = NULL;
			if (left == 0 || tg_now_ms() >= deadline)
				break;
			if (tg_schema_run(p->in, c, "args") < 0) {
				tg_error_clear();
				continue;
			}
			left--;
			rc = run_one(p, c, &w);
			if (rc < 0)
				return rc;
			if (rc == 1) {
				json_decref(*args);
				*args = json_incref(c);
				free(*why);
				*why = w;
				progress = 1;
				break;
			}
		}
	}
	return 0;
}

static int declares_calls(const json_t *m)
{
	json_t *c;
	size_t i;

	if (json_array_size(json_object_get(m, "calls")) > 0)
		return 1;
	json_array_foreach(json_object_get(m, "capabilities"), i, c) {
		const char *s = json_string_value(c);
		if (s && (strncmp(s, "tools:", 6) == 0 || strncmp(s, "host:", 5) == 0))
			return 1;
	}
	return 0;
}

/* The failure of input number idx, shrunk: its tests entry, the reason. */
static int report(json_t *tests, char **reason, prun *p, json_t *args, char *why,
		  unsigned idx, uint64_t t0, uint64_t deadline, json_t *summary)
{
	_cleanup_free_ char *orig = reg_prop_show(args), *shown = NULL, *tj = NULL, *detail = NULL;
	_cleanup_json_ json_t *test = NULL;
	char name[32];
	unsigned before = p->runs;
	int rc;

	rc = shrink(p, &args, &why, deadline);
	if (rc < 0)
		goto out;
	snprintf(name, sizeof(name), "property %u", idx);
	test = json_pack("{s:s, s:O, s:b}", "name", name, "args", args, "expect_error", 1);
	shown = reg_prop_show(args);
	tj = test ? reg_prop_show(test) : NULL;
	if (!test || !shown || !tj || !orig) {
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (asprintf(&detail, "%s with args %s (shrunk in %u runs from %s)", why, shown,
		     p->runs - before, orig) < 0 ||
	    asprintf(reason, "property test %u failed: %s with args %s; a test to add: %s", idx,
		     why, shown, tj) < 0) {
		detail = NULL;
		rc = tg_error_set(TG_ERR_NOMEM, "out of memory");
		goto out;
	}
	json_object_set_new(summary, "failed", json_string(name));
	json_object_set(summary, "shrunk_args", args);
	json_object_set(summary, "test", test);
	rc = json_array_append_new(tests,
				   json_pack("{s:s, s:b, s:s, s:I, s:b, s:O}", "name", name,
					     "passed", 0, "detail", detail, "wall_ms",
					     (json_int_t)(tg_now_ms() - t0), "skipped", 0,
					     "suggested_test", test));
	rc = rc < 0 ? tg_error_set(TG_ERR_NOMEM, "out of memory") : 0;
out:
	json_decref(args);
	free(why);
	return rc;
}

int reg_proptest(json_t **summary, json_t *tests, char **reason, tg_registry *r,
		 const char *binary, const json_t *m, int ws_read, int ws_write,
		 const char *workspace, const char *hash)
{
	_cleanup_json_ json_t *sum = json_object(), *inputs = NULL, *notes = NULL;
	tg_schema *in = NULL, *out = NULL;
	json_t *oschema = json_object_get(m, "output_schema"), *args;
	prun p = { r, json_string_value(json_object_get(m, "name")), binary,
		   json_object_get(m, "limits"), NULL, NULL, ws_read, ws_write,
		   workspace, 0 };
	uint64_t t0 = tg_now_ms(), deadline = t0 + r->cfg.property_test_budget_ms;
	reg_propruns *pr = NULL;
	tg_sandbox_opts so;
	size_t i, passed = 0;
	unsigned workers;
	int rc = 0, backend;

	*summary = NULL;
	*reason = NULL;
	if (!sum)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	json_object_set_new(sum, "inputs", json_integer(0));
	json_object_set_new(sum, "passed", json_integer(0));
	if (r->cfg.property_tests == 0) {
		json_object_set_new(sum, "skipped", json_string("off (property_tests is 0)"));
		goto done;
	}
	if (declares_calls(m)) {
		json_object_set_new(sum, "skipped",
				    json_string("the tool declares calls: a bridged call would be "
						"answered like a test's without fixtures"));
		goto done;
	}
	rc = reg_propgen(&inputs, &notes, json_object_get(m, "input_schema"), hash,
			 r->cfg.property_tests, reg_schema_flags(&r->cfg, 0));
	if (rc < 0)
		return rc;
	json_object_set(sum, "notes", notes);
	json_object_set_new(sum, "inputs", json_integer((json_int_t)json_array_size(inputs)));
	if ((rc = tg_schema_compile(&in, json_object_get(m, "input_schema"), "input_schema",
				    TG_SCHEMA_TOP_OBJECT | reg_schema_flags(&r->cfg, 0))) < 0)
		return rc;
	if (oschema && (rc = tg_schema_compile(&out, oschema, "output_schema",
					       TG_SCHEMA_TOP_TYPED | reg_schema_flags(&r->cfg, 0))) < 0)
		goto free;
	p.in = in;
	p.out = out;
	rc = reg_propbad_check(sum, tests, reason, in, json_object_get(m, "input_schema"), inputs,
			      reg_schema_flags(&r->cfg, 0));
	if (rc < 0)
		goto free;
	if (rc == 1)
		goto counted; /* the create fails: no input runs */
	if ((rc = reg_run_prepare(&so, &backend, r, p.tool, binary, p.limits, ws_read, ws_write,
				  workspace)) < 0)
		goto free;
	/* under gVisor too (sandbox_gvisor: runs from four threads at once) */
	workers = reg_propruns_workers(r, json_array_size(inputs));
	json_object_set_new(sum, "workers", json_integer(workers));
	if ((rc = reg_propruns_start(&pr, r, &so, inputs, deadline, workers)) < 0)
		goto free;
	/* the results in input order: the first failure is the one a run of
	 * the inputs one after another would find */
	json_array_foreach(inputs, i, args) {
		_cleanup_json_ json_t *res = NULL;
		tg_run_result *rr;
		char *why = NULL;

		rc = reg_propruns_wait(pr, i, &rr);
		if (rc < 0)
			goto free;
		if (rc == REG_PROPRUN_CANCELLED)
			break; /* the pipeline sees it and stores nothing */
		if (rc == REG_PROPRUN_BUDGET) {
			json_object_set_new(sum, "budget", json_string("used up: the rest were not run"));
			break;
		}
		p.runs++;
		if ((rc = reg_run_outcome(&res, r, &so, backend, rr, NULL, 1)) < 0)
			goto free;
		if ((rc = judge(&p, res, &why)) < 0)
			goto free;
		if (rc == 1) {
			reg_propruns_stop(pr); /* the shrinker's runs are its own */
			pr = NULL;
			/* the shrinker gets its own budget of the same size */
			rc = report(tests, reason, &p, json_deep_copy(args), why, (unsigned)i + 1,
				    tg_now_ms(), tg_now_ms() + r->cfg.property_test_budget_ms, sum);
			if (rc < 0)
				goto free;
			break;
		}
		passed++;
	}
counted:
	json_object_set_new(sum, "passed", json_integer((json_int_t)passed));
	json_object_set_new(sum, "runs", json_integer(p.runs));
	rc = 0;
free:
	reg_propruns_stop(pr);
	tg_schema_free(in);
	tg_schema_free(out);
	if (rc < 0)
		return rc;
done:
	json_object_set_new(sum, "wall_ms", json_integer((json_int_t)(tg_now_ms() - t0)));
	*summary = TG_TAKE_PTR(sum);
	return 0;
}
