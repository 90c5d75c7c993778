/*
 * analyzer/report.c: findings and reports: the bounded finding list the
 * checks append to, its wire form between the parse child and the parent,
 * and the output shapes: docs/CONTRACTS.md's check --json document and SARIF 2.1.0.
 */
#include "internal.h"

#include <stdarg.h>
#include <string.h>

const char *tg_severity_name(tg_severity s)
{
	switch (s) {
	case TG_SEV_NOTE:
		return "note";
	case TG_SEV_WARNING:
		return "warning";
	case TG_SEV_ERROR:
		return "error";
	}
	return "error";
}

static void finding_clear(tg_finding *f)
{
	free(f->rule);
	free(f->category);
	free(f->message);
	free(f->symbol);
	free(f->hint);
}

void tg_flist_free(tg_flist *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		finding_clear(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* Keep messages printable ASCII (control and non-ASCII bytes become '?'):
 * they go into JSON, SARIF and terminals, and must never fail to encode. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

static int add_raw(tg_flist *l, const tg_policy *p, const char *rule, unsigned line,
		   unsigned column, const char *symbol, const char *msg)
{
	int idx = tg_rule_index(rule);
	size_t i;
	tg_finding *f;

	if (idx < 0)
		idx = tg_rule_index("parse");
	for (i = 0; i < l->n; i++) {
		f = &l->v[i];
		if (strcmp(f->rule, tg_rules[idx].id) == 0 && f->line == line &&
		    f->column == column &&
		    ((!f->symbol && !symbol) || (f->symbol && symbol && !strcmp(f->symbol, symbol))))
			return 0;
	}
	if (l->n >= TG_MAX_FINDINGS - 1 && strcmp(tg_rules[idx].id, "limits") != 0) {
		/* the last slot says that the list is cut */
		if (l->truncated)
			return 0;
		l->truncated = 1;
		return add_raw(l, p, "limits", 0, 0, NULL,
			       "too many findings: only the first ones are shown");
	}
	if (l->n >= TG_MAX_FINDINGS)
		return 0;
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		tg_finding *nv = realloc(l->v, nc * sizeof(*nv));
		if (!nv) {
			l->oom = 1;
			return -1;
		}
		l->v = nv;
		l->cap = nc;
	}
	f = &l->v[l->n];
	memset(f, 0, sizeof(*f));
	f->rule = strdup(tg_rules[idx].id);
	f->category = strdup(tg_rules[idx].category);
	f->message = strndup(msg, TG_MSG_MAX);
	f->symbol = symbol ? strndup(symbol, TG_SYMBOL_MAX) : NULL;
	f->severity = p ? p->severity[idx] : tg_rules[idx].severity;
	f->line = line;
	f->column = column;
	{
		const char *h = tg_hint_for(f->rule, f->symbol);
		f->hint = h ? strdup(h) : NULL;
		if (h && !f->hint) {
			finding_clear(f);
			l->oom = 1;
			return -1;
		}
	}
	if (!f->rule || !f->category || !f->message || (symbol && !f->symbol)) {
		finding_clear(f);
		l->oom = 1;
		return -1;
	}
	sanitize(f->message);
	if (f->symbol)
		sanitize(f->symbol);
	l->n++;
	return 0;
}

void tg_flist_add(tg_flist *l, const tg_policy *p, const char *rule, unsigned line,
		  unsigned column, const char *symbol, const char *fmt, ...)
{
	char msg[TG_MSG_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add_raw(l, p, rule, line, column, symbol, msg);
}

static int cmp_finding(const void *a, const void *b)
{
	const tg_finding *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	return strcmp(x->rule, y->rule);
}

int tg_flist_to_report(tg_report **out, tg_flist *l, uint64_t elapsed_ms)
{
	tg_report *r;
	size_t i;

	*out = NULL;
	if (l->oom)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	r = calloc(1, sizeof(*r));
	if (!r)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_finding);
	r->findings = l->v;
	r->nfindings = l->n;
	r->elapsed_ms = elapsed_ms;
	r->pass = 1;
	for (i = 0; i < l->n; i++)
		if (l->v[i].severity == TG_SEV_ERROR)
			r->pass = 0;
	l->v = NULL;
	l->n = l->cap = 0;
	*out = r;
	return 0;
}

void tg_report_free(tg_report *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->nfindings; i++)
		finding_clear(&r->findings[i]);
	free(r->findings);
	free(r);
}

/* ---- wire form: [[rule,line,column,symbol|null,message],...] -------------- */

int tg_flist_serialize(char **out, size_t *len, const tg_flist *l)
{
	_cleanup_json_ json_t *a = json_array();
	size_t i;
	char *s;

	*out = NULL;
	if (!a)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	for (i = 0; i < l->n; i++) {
		const tg_finding *f = &l->v[i];
		json_t *e = json_pack("[s,i,i,s?,s]", f->rule, (json_int_t)f->line,
				      (json_int_t)f->column, f->symbol, f->message);
		if (!e || json_array_append_new(a, e) < 0)
			return tg_error_set(TG_ERR_NOMEM, "out of memory");
	}
	s = tg_json_dump(a);
	if (!s)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out = s;
	*len = strlen(s);
	return 0;
}

int tg_flist_deserialize(tg_flist *l, const tg_policy *p, const char *data, size_t len)
{
	_cleanup_json_ json_t *a = NULL;
	tg_json_limits lim = { 1024 * 1024, 4 };
	size_t i;

	if (tg_json_parse(&a, data, len, &lim) < 0 || !json_is_array(a))
		return tg_error_set(TG_ERR_INTERNAL, "malformed findings from the parse child");
	for (i = 0; i < json_array_size(a) && i < TG_MAX_FINDINGS; i++) {
		json_t *e = json_array_get(a, i);
		const char *rule, *msg, *sym = NULL;
		json_t *jsym = NULL;
		json_int_t line, col;
		if (json_unpack(e, "[s,I,I,o,s!]", &rule, &line, &col, &jsym, &msg) < 0 ||
		    !(json_is_null(jsym) || json_is_string(jsym)) ||
		    tg_rule_index(rule) < 0 || line < 0 || col < 0 || line > 100000000 ||
		    col > 100000000)
			return tg_error_set(TG_ERR_INTERNAL, "malformed finding from the parse child");
		sym = json_string_value(jsym);
		add_raw(l, p, rule, (unsigned)line, (unsigned)col, sym, msg);
	}
	return 0;
}

/* ---- output shapes -------------------------------------------------------- */

int tg_report_to_json(json_t **out, const tg_report *r)
{
	json_t *o = NULL, *arr = NULL;
	size_t i;

	*out = NULL;
	o = json_object();
	arr = json_array();
	if (!o || !arr)
		goto oom;
	if (json_object_set_new(o, "verdict", json_string(r->pass ? "pass" : "reject")) < 0)
		goto oom;
	for (i = 0; i < r->nfindings; i++) {
		const tg_finding *f = &r->findings[i];
		json_t *e = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:s?}", "rule", f->rule, "category",
				      f->category, "severity", tg_severity_name(f->severity),
				      "message", f->message, "line", (json_int_t)f->line, "column",
				      (json_int_t)f->column, "symbol", f->symbol);
		if (!e)
			goto oom;
		if (!f->symbol && json_object_set_new(e, "symbol", json_null()) < 0) {
			json_decref(e);
			goto oom;
		}
		if (f->hint && json_object_set_new(e, "hint", json_string(f->hint)) < 0) {
			json_decref(e);
			goto oom;
		}
		if (json_array_append_new(arr, e) < 0)
			goto oom;
	}
	if (json_object_set_new(o, "findings", arr) < 0) {
		arr = NULL;
		goto oom;
	}
	arr = NULL;
	if (json_object_set_new(o, "elapsed_ms", json_integer((json_int_t)r->elapsed_ms)) < 0)
		goto oom;
	*out = o;
	return 0;
oom:
	json_decref(arr);
	json_decref(o);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}

static const char *sarif_level(tg_severity s)
{
	return s == TG_SEV_ERROR ? "error" : s == TG_SEV_WARNING ? "warning" : "note";
}

int tg_report_to_sarif(json_t **out, const tg_report *r, const char *uri)
{
	json_t *doc = NULL, *rules = NULL, *results = NULL;
	size_t i;

	*out = NULL;
	rules = json_array();
	results = json_array();
	if (!rules || !results)
		goto oom;
	for (i = 0; i < tg_nrules; i++) {
		const tg_rule *ru = &tg_rules[i];
		json_t *e = json_pack(
			"{s:s,s:s,s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:[s,s],s:s,s:s}}", "id", ru->id,
			"name", ru->id, "shortDescription", "text", ru->short_desc, "fullDescription",
			"text", ru->full_desc, "help", "text", ru->help, "defaultConfiguration",
			"level", sarif_level(ru->severity), "properties", "tags", "security",
			ru->category, "precision", "high", "security-severity",
			ru->security_severity);
		if (!e || json_array_append_new(rules, e) < 0)
			goto oom;
	}
	for (i = 0; i < r->nfindings; i++) {
		const tg_finding *f = &r->findings[i];
		unsigned line = f->line ? f->line : 1, col = f->column ? f->column : 1;
		json_t *e = json_pack(
			"{s:s,s:i,s:s,s:{s:s},s:[{s:{s:{s:s},s:{s:I,s:I,s:I,s:I}}}]}", "ruleId",
			f->rule, "ruleIndex", tg_rule_index(f->rule), "level",
			sarif_level(f->severity), "message", "text", f->message, "locations",
			"physicalLocation", "artifactLocation", "uri", uri ? uri : "tool.c",
			"region", "startLine", (json_int_t)line, "startColumn", (json_int_t)col,
			"endLine", (json_int_t)line, "endColumn", (json_int_t)col + 1);
		if (e && f->hint &&
		    json_object_set_new(e, "properties", json_pack("{s:s}", "hint", f->hint)) < 0) {
			json_decref(e);
			goto oom;
		}
		if (!e || json_array_append_new(results, e) < 0)
			goto oom;
	}
	doc = json_pack("{s:s,s:s,s:[{s:{s:{s:s,s:s,s:s,s:o}},s:o}]}", "$schema",
			"https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0",
			"runs", "tool", "driver", "name", "toolgate", "semanticVersion", "0.1.0",
			"informationUri", "https://github.com/toolgate/toolgate", "rules", rules,
			"results", results);
	rules = results = NULL; /* "o" steals, even on failure */
	if (!doc)
		return tg_error_set(TG_ERR_NOMEM, "out of memory");
	*out = doc;
	return 0;
oom:
	json_decref(rules);
	json_decref(results);
	return tg_error_set(TG_ERR_NOMEM, "out of memory");
}
