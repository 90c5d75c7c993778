/*
 * registry/schema/schema_ref.c: references within one schema document.
 * URI references resolve as RFC 3986 says (section 5.2) against the base in
 * effect, which each $id changes; the document's root, each $id and each
 * $anchor are registered as they are compiled. tg_sref_link() then resolves
 * every $ref to a node: a resource of the document (a fragment "" or a JSON
 * pointer, percent-decoded, into it) or an anchor. A reference to anything
 * outside the document is refused: toolgate never fetches a schema. A JSON
 * pointer to a place that was not compiled as a schema (under "examples",
 * say) is compiled on first use. Last, a cycle of in-place applicators
 * ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas) that
 * never moves into a property or an item is refused: it could only loop.
 */
#include "registry/schema/schema_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct slice {
	const char *p;
	size_t n;
	int has;
} slice;

typedef struct uri {
	slice scheme, auth, path, query, frag;
} uri;

static void uri_parse(uri *u, const char *s)
{
	const char *q = s, *e;
	memset(u, 0, sizeof(*u));
	for (e = s; *e && *e != ':' && *e != '/' && *e != '?' && *e != '#'; e++)
		;
	if (*e == ':' && e > s) {
		u->scheme = (slice){s, (size_t)(e - s), 1};
		q = e + 1;
	}
	if (q[0] == '/' && q[1] == '/') {
		q += 2;
		for (e = q; *e && *e != '/' && *e != '?' && *e != '#'; e++)
			;
		u->auth = (slice){q, (size_t)(e - q), 1};
		q = e;
	}
	for (e = q; *e && *e != '?' && *e != '#'; e++)
		;
	u->path = (slice){q, (size_t)(e - q), 1};
	q = e;
	if (*q == '?') {
		for (e = ++q; *e && *e != '#'; e++)
			;
		u->query = (slice){q, (size_t)(e - q), 1};
		q = e;
	}
	if (*q == '#')
		u->frag = (slice){q + 1, strlen(q + 1), 1};
}

/* RFC 3986 5.2.4 on buf (in place). */
static void remove_dots(char *buf)
{
	char *in = buf, *out = buf;
	while (*in) {
		if (!strncmp(in, "../", 3)) {
			in += 3;
		} else if (!strncmp(in, "./", 2)) {
			in += 2;
		} else if (!strncmp(in, "/./", 3)) {
			in += 2;
		} else if (!strcmp(in, "/.")) {
			in[1] = '\0';
		} else if (!strncmp(in, "/../", 4) || !strcmp(in, "/..")) {
			in += 3;
			if (*in == '\0') {
				*--in = '/';
			}
			while (out > buf && *--out != '/')
				;
			*out = '\0';
		} else if (!strcmp(in, ".") || !strcmp(in, "..")) {
			*in = '\0';
		} else {
			do
				*out++ = *in++;
			while (*in && *in != '/');
		}
	}
	*out = '\0';
}

static void put(tg_buf *b, const char *pre, const slice *s)
{
	if (s->has) {
		tg_buf_puts(b, pre);
		tg_buf_append(b, s->p, s->n);
	}
}

char *tg_suri_resolve(const char *base, const char *ref)
{
	uri b, r;
	tg_buf out = TG_BUF_INIT(0), path = TG_BUF_INIT(0);
	const slice *auth, *query, *scheme;
	char *res;
	uri_parse(&b, base);
	uri_parse(&r, ref);
	scheme = r.scheme.has ? &r.scheme : &b.scheme;
	if (r.scheme.has || r.auth.has) {
		auth = &r.auth;
		query = &r.query;
		tg_buf_append(&path, r.path.p, r.path.n);
	} else if (r.path.n == 0) {
		auth = &b.auth;
		query = r.query.has ? &r.query : &b.query;
		tg_buf_append(&path, b.path.p, b.path.n);
	} else {
		auth = &b.auth;
		query = &r.query;
		if (r.path.p[0] != '/') {
			const char *slash = NULL;
			for (size_t i = 0; i < b.path.n; i++)
				if (b.path.p[i] == '/')
					slash = b.path.p + i;
			if (b.auth.has && b.path.n == 0)
				tg_buf_puts(&path, "/");
			else if (slash)
				tg_buf_append(&path, b.path.p, (size_t)(slash - b.path.p) + 1);
		}
		tg_buf_append(&path, r.path.p, r.path.n);
	}
	tg_buf_append(&path, "", 1);
	path.len--;
	if (!path.ptr) {
		tg_buf_free(&out);
		return NULL;
	}
	remove_dots(path.ptr);
	if (scheme->has) {
		tg_buf_append(&out, scheme->p, scheme->n);
		tg_buf_puts(&out, ":");
	}
	put(&out, "//", auth);
	tg_buf_puts(&out, path.ptr);
	put(&out, "?", query);
	put(&out, "#", &r.frag);
	tg_buf_free(&path);
	res = tg_buf_detach(&out, NULL);
	return res;
}

/* ---- the registry of resources and anchors -------------------------------- */

static tg_snode *res_find(const tg_schema *s, const char *u, size_t n)
{
	for (size_t i = 0; i < s->nres; i++)
		if (strlen(s->res[i].uri) == n && !memcmp(s->res[i].uri, u, n))
			return s->res[i].node;
	return NULL;
}

static int res_add(tg_schema *s, tg_snode *node, const char *u, size_t n, const char *what)
{
	tg_snode *other = res_find(s, u, n);
	if (other && other != node)
		return tg_error_set(TG_ERR_INVALID, "%s: %s \"%.*s\" is already used by %s", node->where,
				    what, (int)(n > 200 ? 200 : n), u, other->where);
	if (other)
		return 0;
	if (s->nres == s->rescap) {
		size_t cap = s->rescap ? s->rescap * 2 : 8;
		tg_sres *v = realloc(s->res, cap * sizeof(*v));
		if (!v)
			return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		s->res = v;
		s->rescap = cap;
	}
	if (!(s->res[s->nres].uri = strndup(u, n)))
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	s->res[s->nres++].node = node;
	return 0;
}

static size_t no_fragment(const char *u)
{
	const char *h = strchr(u, '#');
	return h ? (size_t)(h - u) : strlen(u);
}

int tg_sref_register(tg_schema *s, tg_snode *n, const char *id_uri, const char *anchor)
{
	int r;
	if (id_uri && (r = res_add(s, n, id_uri, no_fragment(id_uri), "$id")) < 0)
		return r;
	if (anchor) {
		tg_buf b = TG_BUF_INIT(0);
		tg_buf_append(&b, n->base, no_fragment(n->base));
		tg_buf_printf(&b, "#%s", anchor);
		if (!b.ptr)
			return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
		r = res_add(s, n, b.ptr, b.len, "$anchor");
		tg_buf_free(&b);
		return r;
	}
	return 0;
}

/* ---- resolving $ref ------------------------------------------------------- */

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Percent-decode s in place; -1 if malformed or it decodes to a NUL. */
static int pct_decode(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '%') {
			int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
			if (lo < 0 || (hi == 0 && lo == 0))
				return -1;
			*o++ = (char)(hi * 16 + lo);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return 0;
}

/* The value at JSON pointer ptr ("/a/0/b~1c") in doc; NULL if none. */
static const json_t *pointer_get(const json_t *doc, char *ptr)
{
	while (doc && *ptr == '/') {
		char *tok = ++ptr, *o = tok;
		ptr += strcspn(ptr, "/");
		char save = *ptr;
		*ptr = '\0';
		for (char *q = tok; *q; q++) {
			if (*q == '~' && (q[1] == '0' || q[1] == '1'))
				*o++ = *++q == '0' ? '~' : '/';
			else if (*q == '~')
				return NULL;
			else
				*o++ = *q;
		}
		*o = '\0';
		if (json_is_object(doc)) {
			doc = json_object_get(doc, tok);
		} else if (json_is_array(doc)) {
			char *end;
			unsigned long i = strtoul(tok, &end, 10);
			doc = (*tok >= '0' && *tok <= '9' && !*end && (tok[0] != '0' || !tok[1]))
				      ? json_array_get(doc, i) : NULL;
		} else {
			doc = NULL;
		}
		*ptr = save;
	}
	return *ptr ? NULL : doc;
}

static int resolve_one(tg_schema *s, tg_snode *n, tg_scompile_fn compile)
{
	char *abs = tg_suri_resolve(n->base, n->ref_text), *frag;
	size_t ulen;
	tg_snode *res;
	int r = 0;
	if (!abs)
		return tg_error_set(TG_ERR_NOMEM, "schema: out of memory");
	ulen = no_fragment(abs);
	frag = abs[ulen] == '#' ? abs + ulen + 1 : abs + ulen;
	res = res_find(s, abs, ulen);
	if (!res) {
		r = tg_error_set(TG_ERR_INVALID,
				 "%s.$ref: \"%s\" is outside this schema (remote references are not "
				 "supported: put the schema under $defs)", n->where, n->ref_text);
	} else if (pct_decode(frag) < 0) {
		r = tg_error_set(TG_ERR_INVALID, "%s.$ref: malformed percent-encoding in \"%s\"",
				 n->where, n->ref_text);
	} else if (*frag == '\0') {
		n->ref = res;
	} else if (*frag == '/') {
		const json_t *at = pointer_get(res->json, frag);
		if (!at) {
			r = tg_error_set(TG_ERR_INVALID, "%s.$ref: \"%s\" points to nothing in the document",
					 n->where, n->ref_text);
		} else if (!(n->ref = tg_sschema_find(s, at))) {
			tg_spath p;
			tg_spath_init(&p, n->where);
			tg_spath_key(&p, "$ref");
			n->ref = compile(s, at, &p, res->base, 0);
			r = n->ref ? 0 : tg_error_last()->code;
		}
	} else {
		tg_buf b = TG_BUF_INIT(0);
		tg_buf_append(&b, abs, ulen);
		tg_buf_printf(&b, "#%s", frag);
		n->ref = b.ptr ? res_find(s, b.ptr, b.len) : NULL;
		if (!n->ref)
			r = tg_error_set(TG_ERR_INVALID, "%s.$ref: no $anchor \"%s\" in the document",
					 n->where, n->ref_text);
		tg_buf_free(&b);
	}
	free(abs);
	return r;
}

/* In-place edges of n (same instance): the targets, into out (size >= 8+lists). */
static int inplace_cycle(tg_snode *n);

static int edge(tg_snode *from, tg_snode *to)
{
	if (!to)
		return 0;
	if (to->mark == 1)
		return tg_error_set(TG_ERR_INVALID,
				    "%s: a cycle of $ref that does not consume input (it comes back to %s "
				    "without going into a property or an item)", from->where, to->where);
	return to->mark == 0 ? inplace_cycle(to) : 0;
}

static int list_edges(tg_snode *n, const tg_slist *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (edge(n, l->v[i]) < 0)
			return TG_ERR_INVALID;
	return 0;
}

static int inplace_cycle(tg_snode *n)
{
	n->mark = 1;
	if (edge(n, n->ref) < 0 || list_edges(n, &n->all_of) < 0 || list_edges(n, &n->any_of) < 0 ||
	    list_edges(n, &n->one_of) < 0 || edge(n, n->not_) < 0 || edge(n, n->if_) < 0 ||
	    edge(n, n->then_) < 0 || edge(n, n->else_) < 0)
		return TG_ERR_INVALID;
	for (size_t i = 0; i < n->ndep; i++)
		if (edge(n, n->dep_schemas[i].node) < 0)
			return TG_ERR_INVALID;
	n->mark = 2;
	return 0;
}

int tg_sref_link(tg_schema *s, tg_scompile_fn compile)
{
	const char *b = s->root->base;
	int r;
	/* the document itself, under the base it started with */
	if (!res_find(s, b, no_fragment(b)) && (r = res_add(s, s->root, b, no_fragment(b), "$id")) < 0)
		return r;
	/* resolve_one may compile more nodes: they are appended and visited */
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i]->ref_text && !s->nodes[i]->ref && (r = resolve_one(s, s->nodes[i], compile)) < 0)
			return r;
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i]->mark == 0 && (r = inplace_cycle(s->nodes[i])) < 0)
			return r;
	return 0;
}
