/*
 * analyzer/prescan.c: lexical checks on the raw submitted bytes, run before
 * anything is handed to clang. It caps the size, refuses NUL bytes and
 * trigraphs, undoes backslash-newline splices (keeping the original
 * positions), skips comments and literals, and inspects every directive:
 * each #include must name an allowlisted header literally (no computed
 * include, no absolute path, no '..', no include_next/import), and pragmas,
 * _Pragma, __has_include, line markers, #line and unknown directives are
 * refused. A refused directive does not stop the analysis: its whole
 * logical line is blanked (newlines kept, so positions stay) in the copy
 * handed to clang, so a forbidden include is never opened and the rest of
 * the file is still checked in the same pass. Only what the lexer cannot
 * blank safely (size, NUL, lone CR, trigraphs, _Pragma, __has_include,
 * reserved identifiers, which pasting can turn into either) keeps the
 * source away from the parser.
 */
#include "internal.h"

#include <string.h>

typedef struct scan {
	tg_flist *l;
	const tg_policy *p;
	const char *raw;
	size_t rawlen;
	char *s;         /* logical (spliced) text */
	size_t *orig;    /* orig[i]: raw offset of s[i] */
	size_t n;
	size_t *lines;   /* raw offsets of line starts */
	size_t nlines;
	int nfind;
	int hard;        /* a finding that keeps the source from the parser */
	char *clean;     /* raw copy with refused directive lines blanked */
	int have_include;
	size_t last_include;   /* logical offset of the last #include */
	int have_early;
	size_t first_macro;    /* first #define/#undef of a non-feature macro */
	char first_macro_name[48];
} scan;

static void pos_of(const scan *sc, size_t logical, unsigned *line, unsigned *col)
{
	size_t off = logical < sc->n ? sc->orig[logical] : sc->rawlen;
	size_t lo = 0, hi = sc->nlines;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (sc->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)(lo + 1);
	*col = (unsigned)(off - sc->lines[lo] + 1);
}

static void at_raw(const scan *sc, size_t rawoff, unsigned *line, unsigned *col)
{
	size_t lo = 0, hi = sc->nlines;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (sc->lines[mid] <= rawoff)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)(lo + 1);
	*col = (unsigned)(rawoff - sc->lines[lo] + 1);
}

#define FIND(sc, at, rule, sym, ...)                                               \
	do {                                                                          \
		unsigned ln_, co_;                                                    \
		pos_of((sc), (at), &ln_, &co_);                                       \
		tg_flist_add((sc)->l, (sc)->p, (rule), ln_, co_, (sym), __VA_ARGS__); \
		(sc)->nfind++;                                                        \
	} while (0)

static int is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
	       (unsigned char)c >= 0x80 || c == '\\';
}

static int is_ident(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Skip blanks and comments on the current logical line; returns the index of
 * the next significant character (or of the newline / end). */
static size_t skip_blank(const scan *sc, size_t i)
{
	while (i < sc->n) {
		char c = sc->s[i];
		if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
			i++;
		} else if (c == '/' && i + 1 < sc->n && sc->s[i + 1] == '*') {
			const char *e = NULL;
			size_t k;
			for (k = i + 2; k + 1 < sc->n; k++)
				if (sc->s[k] == '*' && sc->s[k + 1] == '/') {
					e = sc->s + k;
					break;
				}
			i = e ? (size_t)(e - sc->s) + 2 : sc->n;
		} else if (c == '/' && i + 1 < sc->n && sc->s[i + 1] == '/') {
			while (i < sc->n && sc->s[i] != '\n')
				i++;
		} else {
			break;
		}
	}
	return i;
}

/* A printable, short copy of an agent-written name for a message. */
static void safe_name(char *out, size_t outsz, const char *s, size_t n)
{
	size_t i, o = 0;
	for (i = 0; i < n && o + 4 < outsz; i++) {
		unsigned char c = (unsigned char)s[i];
		out[o++] = (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') ? (char)c : '?';
	}
	if (i < n && o + 4 <= outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

static size_t do_include(scan *sc, size_t hash, size_t i, const char *kw)
{
	char name[256], shown[80];
	size_t k, start;
	char close;

	if (strcmp(kw, "include") != 0) {
		FIND(sc, hash, "include", NULL, "#%s is not allowed", kw);
		return i;
	}
	i = skip_blank(sc, i);
	if (i >= sc->n || (sc->s[i] != '<' && sc->s[i] != '"')) {
		FIND(sc, hash, "include", NULL,
		     "computed #include (a macro instead of <header> or \"header\") is not allowed");
		return i;
	}
	close = sc->s[i] == '<' ? '>' : '"';
	start = i + 1;
	for (k = start; k < sc->n && sc->s[k] != close && sc->s[k] != '\n'; k++)
		;
	if (k >= sc->n || sc->s[k] != close) {
		FIND(sc, hash, "include", NULL, "malformed #include");
		return k;
	}
	if (k - start >= sizeof(name) || k == start) {
		FIND(sc, hash, "include", NULL, "#include of a header outside the allowlist");
		return k + 1;
	}
	memcpy(name, sc->s + start, k - start);
	name[k - start] = 0;
	if (!tg_include_allowed(name)) {
		safe_name(shown, sizeof(shown), name, k - start);
		FIND(sc, hash, "include", NULL,
		     "#include \"%s\" is outside the allowlist (the file is not opened)", shown);
	}
	return k + 1;
}

static const char *const ok_directives[] = {
	"define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif", "error",
	"warning", NULL,
};

/* The logical end of the directive starting at hash: the newline that is
 * not inside a block comment (or the end). */
static size_t directive_end(const scan *sc, size_t i)
{
	while (i < sc->n && sc->s[i] != '\n') {
		if (sc->s[i] == '/' && i + 1 < sc->n && sc->s[i + 1] == '*') {
			size_t k;
			for (k = i + 2; k + 1 < sc->n && !(sc->s[k] == '*' && sc->s[k + 1] == '/'); k++)
				;
			i = k + 2;
		} else if (sc->s[i] == '/' && i + 1 < sc->n && sc->s[i + 1] == '/') {
			while (i < sc->n && sc->s[i] != '\n')
				i++;
		} else {
			i++;
		}
	}
	return i < sc->n ? i : sc->n;
}

/* Blank the raw bytes of the logical range [a, b) in the clean copy, newlines
 * (and so every later position) kept. */
static void blank(scan *sc, size_t a, size_t b)
{
	size_t ra, rb, k;
	if (!sc->clean || a >= sc->n)
		return;
	ra = sc->orig[a];
	rb = b < sc->n ? sc->orig[b] : sc->rawlen;
	for (k = ra; k < rb && k < sc->rawlen; k++)
		if (sc->clean[k] != '\n')
			sc->clean[k] = ' ';
}

static size_t directive_checked(scan *sc, size_t hash, size_t i);

/* i: just after '#' (or "%:"). Returns where normal lexing resumes. A
 * directive with a finding is blanked in the clean copy. */
static size_t directive(scan *sc, size_t hash, size_t i)
{
	int before = sc->nfind;
	size_t r = directive_checked(sc, hash, i);
	if (sc->nfind != before) {
		size_t e = directive_end(sc, hash);
		blank(sc, hash, e);
		if (r < e)
			r = e;
	}
	return r;
}

static size_t directive_checked(scan *sc, size_t hash, size_t i)
{
	char kw[32];
	size_t k, n;

	i = skip_blank(sc, i);
	if (i >= sc->n || sc->s[i] == '\n')
		return i; /* null directive */
	if (sc->s[i] >= '0' && sc->s[i] <= '9') {
		FIND(sc, hash, "line_marker", NULL, "line markers (# N \"file\") are not allowed");
		return i;
	}
	if (!is_ident_start(sc->s[i])) {
		FIND(sc, hash, "directive", NULL, "malformed preprocessor directive");
		return i;
	}
	for (k = i; k < sc->n && is_ident(sc->s[k]); k++)
		;
	n = k - i;
	if (n >= sizeof(kw)) {
		FIND(sc, hash, "directive", NULL, "unknown preprocessor directive");
		return k;
	}
	memcpy(kw, sc->s + i, n);
	kw[n] = 0;
	if (!strcmp(kw, "include") || !strcmp(kw, "include_next") || !strcmp(kw, "import")) {
		sc->have_include = 1;
		sc->last_include = hash;
		return do_include(sc, hash, k, kw);
	}
	if ((!strcmp(kw, "define") || !strcmp(kw, "undef")) && !sc->have_early) {
		/* the headers included after it would see this macro */
		size_t a = skip_blank(sc, k), b = a;
		while (b < sc->n && is_ident(sc->s[b]))
			b++;
		if (b == a || !tg_feature_macro(sc->s + a, b - a)) {
			sc->have_early = 1;
			sc->first_macro = hash;
			safe_name(sc->first_macro_name, sizeof(sc->first_macro_name), sc->s + a, b - a);
		}
	}
	if (!strcmp(kw, "line")) {
		FIND(sc, hash, "line_marker", NULL, "#line is not allowed");
		return k;
	}
	if (!strcmp(kw, "pragma")) {
		FIND(sc, hash, "pragma", NULL, "#pragma is not allowed");
		return k;
	}
	for (n = 0; ok_directives[n]; n++)
		if (!strcmp(ok_directives[n], kw))
			return k;
	safe_name(kw, sizeof(kw), sc->s + i, k - i);
	FIND(sc, hash, "directive", NULL, "#%s is not allowed", kw);
	return k;
}

static void check_ident(scan *sc, size_t i, size_t n)
{
	const char *w = sc->s + i;
	if ((n == 7 && !memcmp(w, "_Pragma", 7)) || (n == 8 && !memcmp(w, "__pragma", 8))) {
		FIND(sc, i, "pragma", NULL, "_Pragma is not allowed");
		sc->hard = 1;
	} else if ((n == 13 && !memcmp(w, "__has_include", 13)) ||
		 (n == 18 && !memcmp(w, "__has_include_next", 18))) {
		FIND(sc, i, "include", NULL, "__has_include probing is not allowed");
		sc->hard = 1;
	} else if (((n == 1 && w[0] == '_') || (n >= 2 && w[0] == '_' && w[1] == '_') ||
		  (n >= 2 && w[0] == '_' && w[1] >= 'A' && w[1] <= 'Z')) &&
		 !tg_reserved_allowed(w, n)) {
		char shown[48];
		/* pasting reserved pieces can build _Pragma or __has_include
		 * that this lexer never sees whole: keep such a source from clang */
		sc->hard = 1;
		safe_name(shown, sizeof(shown), w, n);
		FIND(sc, i, "reserved_identifier", NULL,
		     "%s is reserved for the compiler and library (clang and gcc define such names differently)",
		     shown);
	}
}

static void lex(scan *sc)
{
	size_t i = 0;
	int bol = 1;

	while (i < sc->n && sc->nfind < 64) {
		char c = sc->s[i];
		if (c == '\n') {
			bol = 1;
			i++;
		} else if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
			i++;
		} else if (c == '/' && i + 1 < sc->n && sc->s[i + 1] == '/') {
			while (i < sc->n && sc->s[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < sc->n && sc->s[i + 1] == '*') {
			size_t k;
			for (k = i + 2; k + 1 < sc->n && !(sc->s[k] == '*' && sc->s[k + 1] == '/'); k++)
				if (sc->s[k] == '\n')
					bol = 1; /* conservative: a directive may follow */
			i = k + 2;
		} else if (c == '"' || c == '\'') {
			size_t k = i + 1;
			while (k < sc->n && sc->s[k] != c && sc->s[k] != '\n') {
				if (sc->s[k] == '\\' && k + 1 < sc->n)
					k++;
				k++;
			}
			i = k + 1;
			bol = 0;
		} else if (bol && (c == '#' || (c == '%' && i + 1 < sc->n && sc->s[i + 1] == ':'))) {
			size_t hash = i;
			i = directive(sc, hash, i + (c == '#' ? 1 : 2));
			bol = 0;
		} else if (is_ident_start(c)) {
			size_t k = i;
			while (k < sc->n && is_ident(sc->s[k]))
				k++;
			check_ident(sc, i, k - i);
			i = k;
			bol = 0;
		} else if (c >= '0' && c <= '9') {
			size_t k = i + 1;
			while (k < sc->n && (is_ident(sc->s[k]) || sc->s[k] == '.' ||
					     ((sc->s[k] == '+' || sc->s[k] == '-') &&
					      strchr("eEpP", sc->s[k - 1]))))
				k++;
			i = k;
			bol = 0;
		} else {
			i++;
			bol = 0;
		}
	}
}

void tg_prescan_free(tg_prescan *st)
{
	free(st->clean);
	st->clean = NULL;
}

void tg_prescan_run(tg_prescan *st, tg_flist *l, const tg_policy *p, const char *src,
		    size_t len, size_t max_bytes)
{
	scan sc = { 0 };
	size_t i, o, ntri = 0;

	st->blocking = 0;
	st->clean = NULL;
	sc.l = l;
	sc.p = p;
	sc.raw = src;
	sc.rawlen = len;
	if (len > max_bytes) {
		tg_flist_add(l, p, "limits", 0, 0, NULL,
			     "the source is larger than the limit of %zu bytes", max_bytes);
		st->blocking = 1;
		return;
	}
	if (memchr(src, 0, len)) {
		tg_flist_add(l, p, "parse", 0, 0, NULL, "the source contains a NUL byte");
		st->blocking = 1;
		return;
	}
	sc.lines = malloc((len + 2) * sizeof(*sc.lines));
	sc.s = malloc(len + 1);
	sc.orig = malloc((len + 1) * sizeof(*sc.orig));
	sc.clean = malloc(len + 1);
	if (!sc.lines || !sc.s || !sc.orig || !sc.clean) {
		l->oom = 1;
		st->blocking = 1;
		goto out;
	}
	sc.lines[sc.nlines++] = 0;
	for (i = 0; i < len; i++)
		if (src[i] == '\n')
			sc.lines[sc.nlines++] = i + 1;
	/* trigraphs, on the raw bytes (everywhere, strings and comments too) */
	for (i = 0; i + 2 < len && ntri < 8; i++)
		if (src[i] == '?' && src[i + 1] == '?' && strchr("=/'()!<>-", src[i + 2]) &&
		    src[i + 2]) {
			unsigned ln, co;
			at_raw(&sc, i, &ln, &co);
			tg_flist_add(l, p, "trigraph", ln, co, NULL, "trigraph \"?\?%c\" is not allowed",
				     src[i + 2]);
			ntri++;
			i += 2;
		}
	/* a lone CR is a line break to clang but not to this lexer: refuse it */
	for (i = 0; i < len; i++)
		if (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n')) {
			unsigned ln, co;
			at_raw(&sc, i, &ln, &co);
			tg_flist_add(l, p, "parse", ln, co, NULL,
				     "a carriage return not followed by a newline is not allowed");
			st->blocking = 1;
			goto out;
		}
	/* splice backslash-newline, also with blanks or a CR between them (clang
	 * joins "\ <newline>" too) */
	for (i = 0, o = 0; i < len; i++) {
		if (src[i] == '\\') {
			size_t k = i + 1;
			while (k < len && (src[k] == ' ' || src[k] == '\t' || src[k] == '\f' ||
					   src[k] == '\v' || src[k] == '\r'))
				k++;
			if (k < len && src[k] == '\n') {
				i = k;
				continue;
			}
		}
		sc.s[o] = src[i];
		sc.orig[o] = i;
		o++;
	}
	sc.n = o;
	sc.s[o] = 0;
	memcpy(sc.clean, src, len);
	sc.clean[len] = 0;
	lex(&sc);
	if (sc.have_early && sc.have_include && sc.first_macro < sc.last_include)
		FIND(&sc, sc.first_macro, "directive", NULL,
		     "#define or #undef of %s before an #include: only feature-test macros may come "
		     "before the headers", sc.first_macro_name);
	/* stopped early (64 findings): the rest was not scanned */
	if (ntri || sc.hard || sc.nfind >= 64)
		st->blocking = 1;
	if (!st->blocking) {
		st->clean = sc.clean;
		sc.clean = NULL;
	}
out:
	free(sc.clean);
	free(sc.lines);
	free(sc.s);
	free(sc.orig);
}
