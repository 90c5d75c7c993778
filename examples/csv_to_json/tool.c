/* csv_to_json: CSV text (RFC 4180) to JSON. With a header row (the default)
 * the result is an array of objects keyed by the header's names, else an
 * array of arrays. Fields may be quoted: quotes allow commas, line breaks and
 * doubled quotes ("") inside. Lines end with LF or CRLF; a final line break
 * is optional. Every row must have as many fields as the first one. */
#include <toolgate/tool.h>

typedef struct field {
	char *text;
	size_t len;
} field;

typedef struct row {
	field *fields;
	size_t n;
} row;

static void *grow(void *p, size_t count, size_t size)
{
	void *q = realloc(p, (count ? count : 1) * size);
	if (!q)
		tg_tool_fail("out of memory");
	return q;
}

static void put(field *f, size_t *cap, char c)
{
	if (f->len == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		f->text = grow(f->text, *cap, 1);
	}
	f->text[f->len++] = c;
}

/* Parse one field at s[*pos..len); leaves *pos on the separator or end. */
static field parse_field(const char *s, size_t len, size_t *pos, size_t line)
{
	field f = {grow(NULL, 16, 1), 0};
	size_t i = *pos, cap = 16;
	if (i < len && s[i] == '"') {
		for (i++;; i++) {
			if (i >= len)
				tg_tool_fail("line %zu: unterminated quoted field", line);
			if (s[i] == '"') {
				if (i + 1 < len && s[i + 1] == '"') {
					put(&f, &cap, '"');
					i++;
					continue;
				}
				i++;
				break;
			}
			put(&f, &cap, s[i]);
		}
		if (i < len && s[i] != ',' && s[i] != '\n' && !(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
			tg_tool_fail("line %zu: unexpected character after a quoted field", line);
	} else {
		for (; i < len && s[i] != ',' && s[i] != '\n' && !(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'); i++) {
			if (s[i] == '"')
				tg_tool_fail("line %zu: quote inside an unquoted field", line);
			put(&f, &cap, s[i]);
		}
	}
	*pos = i;
	return f;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	size_t len, pos = 0, line = 1, nrows = 0, r, k;
	const char *csv = tg_arg_strn(a, "csv", &len);
	bool header = tg_arg_bool(a, "header", true);
	row *rows = NULL;

	if (!csv)
		tg_tool_fail("csv: missing required argument");
	while (pos < len) {
		row cur = {NULL, 0};
		size_t start_line = line;
		for (;;) {
			cur.fields = grow(cur.fields, cur.n + 1, sizeof(field));
			cur.fields[cur.n++] = parse_field(csv, len, &pos, start_line);
			for (k = 0; k < cur.fields[cur.n - 1].len; k++)
				line += cur.fields[cur.n - 1].text[k] == '\n';
			if (pos < len && csv[pos] == ',') {
				pos++;
				continue;
			}
			if (pos < len && csv[pos] == '\r')
				pos++;
			if (pos < len && csv[pos] == '\n') {
				pos++;
				line++;
			}
			break;
		}
		if (nrows > 0 && cur.n != rows[0].n)
			tg_tool_fail("line %zu: %zu fields, but the first row has %zu", start_line, cur.n, rows[0].n);
		rows = grow(rows, nrows + 1, sizeof(row));
		rows[nrows++] = cur;
	}
	if (header && nrows > 0) {
		for (k = 0; k < rows[0].n; k++)
			for (r = 0; r < k; r++)
				if (rows[0].fields[r].len == rows[0].fields[k].len &&
				    !memcmp(rows[0].fields[r].text, rows[0].fields[k].text, rows[0].fields[k].len))
					tg_tool_fail("header: column %zu repeats the name of column %zu", k + 1, r + 1);
	}

	tg_out_array_begin();
	for (r = header ? 1 : 0; r < nrows; r++) {
		if (header)
			tg_out_object_begin();
		else
			tg_out_array_begin();
		for (k = 0; k < rows[r].n; k++) {
			if (header)
				tg_out_keyn(rows[0].fields[k].text, rows[0].fields[k].len);
			tg_out_strn(rows[r].fields[k].text, rows[r].fields[k].len);
		}
		if (header)
			tg_out_object_end();
		else
			tg_out_array_end();
	}
	tg_out_end();
	for (r = 0; r < nrows; r++) {
		for (k = 0; k < rows[r].n; k++)
			free(rows[r].fields[k].text);
		free(rows[r].fields);
	}
	free(rows);
	tg_tool_args_free(a);
	return 0;
}
