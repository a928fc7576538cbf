// SPDX-License-Identifier: GPL-2.0
/* libsmartcols glue: column selection (-o), JSON/raw/noheadings */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numabctl.h"

static int find_col(const struct nx_colspec *spec, size_t nspec,
		    const char *name, size_t len)
{
	for (size_t i = 0; i < nspec; i++)
		if (strlen(spec[i].name) == len &&
		    strncasecmp(spec[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* a size or count as libsmartcols shows it ("12", "1.5M", "-64M") */
static bool cell_number(const char *s, double *v)
{
	static const char units[] = "BKMGTPE";
	const char *u;
	char *end;

	if (!s || !*s)
		return false;
	*v = strtod(s, &end);
	if (end == s)
		return false;
	if (*end && end[1] == '\0' && (u = strchr(units, *end)))
		*v *= (double)(1ull << (10 * (u - units)));
	else if (*end)
		return false;
	return true;
}

/*
 * -x COL: numbers (and sizes) by value, other cells as strings; cells
 * without data last
 */
static int cmp_cells(struct libscols_cell *a, struct libscols_cell *b, void *data)
{
	const struct nx_colspec *c = data;
	const char *x = scols_cell_get_data(a), *y = scols_cell_get_data(b);
	double p, q;

	if (!x || !y)
		return !x - !y;
	if (c->jtype == SCOLS_JSON_NUMBER && cell_number(x, &p) && cell_number(y, &q))
		return p < q ? -1 : p > q;
	return strcmp(x, y);
}

static int parse_columns(struct nx_table *t, size_t nspec, const char *list)
{
	const char *p = list;

	if (*p == '+')	/* "+COL": add to the defaults, like lsblk */
		p++;
	while (*p) {
		size_t len = strcspn(p, ",");
		int id = find_col(t->spec, nspec, p, len);

		if (id < 0) {
			nx_warn("unknown column '%.*s' (see --help for the list)",
				(int)len, p);
			return -1;
		}
		if (t->ncols >= NX_MAX_COLS) {
			nx_warn("too many columns");
			return -1;
		}
		t->ids[t->ncols++] = id;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int nx_table_init(struct nx_table *t, const char *name,
		  const struct nx_colspec *spec, size_t nspec,
		  const char *defaults, const char *cols)
{
	memset(t, 0, sizeof(*t));
	t->spec = spec;
	t->nspec = nspec;
	if (!cols || *cols == '+') {
		if (parse_columns(t, nspec, defaults))
			return -1;
	}
	if (cols && parse_columns(t, nspec, cols))
		return -1;
	if (nspec > NX_MAX_SPEC)
		return -1;
	if (nx_opt.sort) {	/* -x COL not shown: a hidden column, as in lsblk */
		int id = find_col(spec, nspec, nx_opt.sort, strlen(nx_opt.sort)), i;

		for (i = 0; id >= 0 && i < t->ncols && t->ids[i] != id; i++)
			;
		if (id >= 0 && i == t->ncols && t->ncols < NX_MAX_COLS) {
			t->ids[t->ncols++] = id;
			t->sort_hidden = true;
		}
	}
	memset(t->out, -1, sizeof(t->out));
	for (int i = t->ncols - 1; i >= 0; i--)
		t->out[t->ids[i]] = (signed char)i;
	t->tb = scols_new_table();
	if (!t->tb)
		return -1;
	scols_table_set_name(t->tb, name);
	scols_table_enable_raw(t->tb, nx_opt.raw);
	scols_table_enable_export(t->tb, nx_opt.pairs);
	scols_table_enable_shellvar(t->tb, nx_opt.shell);
	scols_table_enable_noheadings(t->tb, nx_opt.noheadings);
	for (int i = 0; i < t->ncols; i++) {
		const struct nx_colspec *c = &spec[t->ids[i]];
		struct libscols_column *cl;
		size_t k;

		cl = scols_table_new_column(t->tb, c->name, c->whint, c->flags |
					    (t->sort_hidden && i == t->ncols - 1 ? SCOLS_FL_HIDDEN : 0));
		if (!cl)
			return -1;
		scols_column_set_cmpfunc(cl, cmp_cells, (void *)c);
		for (k = 0; c->name[k] && k < sizeof(t->keys[i]) - 1; k++)
			t->keys[i][k] = (char)tolower((unsigned char)c->name[k]);
		t->keys[i][k] = '\0';
	}
	return 0;
}

/* the table sorted by -x COL, if the table has that column */
static void sort_table(struct nx_table *t)
{
	struct libscols_column *cl;

	if (!nx_opt.sort)
		return;
	for (int i = 0; i < t->ncols; i++)
		if (!strcasecmp(t->spec[t->ids[i]].name, nx_opt.sort)) {
			cl = scols_table_get_column(t->tb, (size_t)i);
			scols_sort_table(t->tb, cl);
			return;
		}
}

struct libscols_line *nx_table_line(struct nx_table *t)
{
	return scols_table_new_line(t->tb, NULL);
}

void nx_table_set(struct nx_table *t, struct libscols_line *ln, int spec_id,
		  const char *fmt, ...)
{
	int i = nx_table_out(t, spec_id);
	char *s = NULL;
	va_list ap;

	if (i < 0 || !ln)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	/* a column given twice (-o START,START) prints twice, as in lsblk */
	for (int j = i + 1; j < t->ncols; j++)
		if (t->ids[j] == spec_id)
			scols_line_set_data(ln, (size_t)j, s);
	if (scols_line_refer_data(ln, (size_t)i, s))
		free(s);
}

void nx_table_size(struct nx_table *t, struct libscols_line *ln, int spec_id,
		   uint64_t bytes)
{
	char buf[32];

	nx_table_set(t, ln, spec_id, "%s", nx_fmt_size(buf, bytes));
}

/*
 * "%.1f" without printf when pct * 10 is a whole number, i.e. pct is
 * within an ulp of a one-decimal value: rounding cannot change the digits.
 */
char *nx_fmt_pct(char *buf, double pct)
{
	double t = pct * 10.0;
	size_t n;

	if (!(t >= 0.0 && t < 1e15) || t != (double)(uint64_t)t) {
		snprintf(buf, 32, "%.1f", pct);
		return buf;
	}
	nx_fmt_u64(buf, (uint64_t)t / 10);
	n = strlen(buf);
	buf[n] = '.';
	buf[n + 1] = (char)('0' + (uint64_t)t % 10);
	buf[n + 2] = '\0';
	return buf;
}

char *nx_fmt_size(char *buf, uint64_t bytes)
{
	if (nx_opt.bytes || nx_opt.json)
		return nx_fmt_u64(buf, bytes);
	nx_human_size(bytes, buf, 32);
	return buf;
}

void nx_table_row(struct nx_table *t, const char *const *cells)
{
	struct libscols_line *ln = nx_table_line(t);

	if (!ln)
		return;
	for (int i = 0; i < t->ncols; i++) {
		const char *s = cells[t->ids[i]];

		if (s)
			scols_line_set_data(ln, (size_t)i, s);
	}
}

static int json_flags(void)
{
	return JSON_C_TO_STRING_NOSLASHESCAPE | (nx_opt.compact ? JSON_C_TO_STRING_PLAIN :
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
}

int nx_json_print(struct json_object *o, FILE *out)
{
	const char *s = json_object_to_json_string_ext(o, json_flags());

	return s && fputs(s, out) >= 0 && fputc('\n', out) >= 0 ? 0 : -1;
}

/* a canonical decimal number: 1 integer, 2 with a fraction, else 0 */
static int number_kind(const char *s)
{
	const char *p = s + (*s == '-');
	size_t n = strspn(p, "0123456789"), f;

	if (!n || (p[0] == '0' && n > 1))
		return 0;
	if (!p[n])
		return 1;
	if (p[n] != '.')
		return 0;
	f = strspn(p + n + 1, "0123456789");
	return f && !p[n + 1 + f] ? 2 : 0;
}

static struct json_object *json_number(const char *s)
{
	int k = number_kind(s);

	errno = 0;
	if (k == 1 && *s == '-') {
		long long v = strtoll(s, NULL, 10);

		return errno ? NULL : json_object_new_int64(v);
	}
	if (k == 1) {
		unsigned long long v = strtoull(s, NULL, 10);

		if (errno)
			return NULL;
		return v > INT64_MAX ? json_object_new_uint64(v) : json_object_new_int64((int64_t)v);
	}
	/* the digits as shown: "33.3", not 33.299999999999997 */
	return k == 2 ? json_object_new_double_s(strtod(s, NULL), s) : NULL;
}

/*
 * A JSON string of @s, which is UTF-8 as JSON must be: a byte that is not
 * part of valid UTF-8 (a file or process name is any bytes) becomes the
 * text \xNN, as the tables (libsmartcols) and export show it.  json-c, like
 * util-linux's own JSON writer, copies such a byte as it is, which makes
 * the document invalid.
 */
struct json_object *nx_json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	struct json_object *j;
	char *buf;

	while (i < n && nx_utf8_len(p + i, n - i))
		i += nx_utf8_len(p + i, n - i);
	if (i == n)
		return json_object_new_string(s);
	buf = malloc(n * 4 + 1);
	if (!buf)
		return NULL;
	for (i = 0; i < n;) {
		size_t len = nx_utf8_len(p + i, n - i);

		if (len) {
			memcpy(buf + o, p + i, len);
			o += len;
			i += len;
		} else {
			o += (size_t)sprintf(buf + o, "\\x%02x", p[i++]);
		}
	}
	j = json_object_new_string_len(buf, (int)o);
	free(buf);
	return j;
}

/* a cell as a JSON value of @jtype; no data, or no number where one is due: null */
static struct json_object *json_cell(const char *s, int jtype)
{
	if (!s)
		return NULL;
	switch (jtype) {
	case SCOLS_JSON_NUMBER:
		return json_number(s);
	case SCOLS_JSON_BOOLEAN:
		if (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes"))
			return json_object_new_boolean(1);
		if (!strcmp(s, "false") || !strcmp(s, "0") || !strcmp(s, "no"))
			return json_object_new_boolean(0);
		return NULL;
	default:
		return nx_json_string(s);
	}
}

/* the JSON type of column @i in line @ln: a line can make its value a number */
static int line_jtype(const struct nx_table *t, struct libscols_line *ln, int i)
{
	intptr_t ud = (intptr_t)scols_line_get_userdata(ln);

	return ud && i == t->ncols - 1 ? (int)ud : t->spec[t->ids[i]].jtype;
}

struct json_object *nx_table_json(struct nx_table *t)
{
	struct json_object *arr = json_object_new_array();
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;

	if (!arr || !it) {
		scols_free_iter(it);
		return arr;
	}
	while (scols_table_next_line(t->tb, it, &ln) == 0) {
		struct json_object *o = json_object_new_object();

		for (int i = 0; i < t->ncols - t->sort_hidden; i++) {
			struct libscols_cell *c = scols_line_get_cell(ln, (size_t)i);

			json_object_object_add_ex(o, t->keys[i],
						  json_cell(c ? scols_cell_get_data(c) : NULL,
							    line_jtype(t, ln, i)),
						  JSON_C_OBJECT_ADD_KEY_IS_NEW);
		}
		json_object_array_add(arr, o);
	}
	scols_free_iter(it);
	return arr;
}

int nx_table_print(struct nx_table *t, FILE *out)
{
	struct json_object *doc;
	int r;

	sort_table(t);
	if (!nx_opt.json) {
		scols_table_set_stream(t->tb, out);
		return scols_print_table(t->tb);
	}
	doc = json_object_new_object();
	json_object_object_add(doc, scols_table_get_name(t->tb), nx_table_json(t));
	r = nx_json_print(doc, out);
	json_object_put(doc);
	return r;
}

/* rows per libsmartcols table when streaming; NUMABCTL_CHUNK for tests */
static size_t chunk_rows(void)
{
	const char *e = getenv("NUMABCTL_CHUNK");

	return e && *e ? strtoul(e, NULL, 10) : 1024;
}

/*
 * The width libsmartcols gives a cell, if it prints it unescaped: printable
 * ASCII except the backslash, and in raw output no blank either (raw
 * output escapes blanks as \x20).
 */
static size_t cell_width(struct nx_table *t, const char *s)
{
	const char *p = s;

	for (; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '\\' || (nx_opt.raw && *p == ' '))
			t->unsafe = true;
	return (size_t)(p - s);
}

static const char *out_cell(const struct nx_table *t, const char *const *cells, int i)
{
	return cells[t->ids[i]];
}

static void measure_row(struct nx_table *t, const char *const *cells)
{
	for (int i = 0; i < t->ncols; i++) {
		const char *s = out_cell(t, cells, i);
		size_t w;

		if (!s)
			continue;
		w = cell_width(t, s);
		if (w > t->width[i])
			t->width[i] = w;
	}
}

/*
 * Pin each column to the width libsmartcols computes for the whole table
 * (count_column_width(): the widest cell, at least the header; an absolute
 * hint wins if larger).  With the final width as hint, a chunk gets the
 * same width: strict when it exceeds the header, so that a chunk of narrow
 * cells does not fall back to the header width.  t->width[] becomes the
 * printed width.
 */
static void pin_widths(struct nx_table *t)
{
	for (int i = 0; i < t->ncols; i++) {
		const struct nx_colspec *c = &t->spec[t->ids[i]];
		struct libscols_column *cl = scols_table_get_column(t->tb, (size_t)i);
		size_t hdr = strlen(c->name), w = t->width[i];

		if (!hdr)
			hdr = 1;
		if (w < hdr)
			w = hdr;
		else if (c->whint >= 1 && w < (size_t)c->whint && hdr < (size_t)c->whint)
			w = (size_t)c->whint;
		scols_column_set_whint(cl, (double)w);
		if (w > hdr)
			scols_column_set_flags(cl, c->flags | SCOLS_FL_STRICTWIDTH);
		t->width[i] = w;
	}
}

/*
 * Short runs, so plain loops: a libc call per cell costs more than the
 * bytes, most under emulation (QEMU TCG runs the testbed).
 */
static char *put_blanks(char *p, size_t n)
{
	while (n--)
		*p++ = ' ';
	return p;
}

static char *put_cell(char *p, const char *s, size_t *len)
{
	const char *b = s;

	while (*s)
		*p++ = *s++;
	*len = (size_t)(s - b);
	return p;
}

/*
 * One row as libsmartcols lays it out once the widths are fixed: cells
 * joined by one blank; in a table, left-aligned cells padded after (not
 * the last column), right-aligned ones before.  @line holds the widest
 * row (sum of widths + separators + newline).  Returns its length.
 */
static size_t fast_row(const struct nx_table *t, const char *const *cells, char *line)
{
	char *p = line;

	for (int i = 0; i < t->ncols; i++) {
		const char *s = out_cell(t, cells, i);
		bool right = t->spec[t->ids[i]].flags & SCOLS_FL_RIGHT;
		size_t n = 0, w = nx_opt.raw ? 0 : t->width[i];

		if (right && w) {	/* pad before: the length first */
			for (const char *q = s; q && *q; q++)
				n++;
			p = put_blanks(p, w - n);
			w = n;
		}
		if (s)
			p = put_cell(p, s, &n);
		if (i == t->ncols - 1)
			break;
		if (w > n)
			p = put_blanks(p, w - n);
		*p++ = ' ';
	}
	*p++ = '\n';
	return (size_t)(p - line);
}

struct emit {
	struct nx_table *t;
	FILE *out;
	char *line;		/* fast_row() output */
	size_t linecap;		/* the widest row */
	char *batch;		/* rows after the first chunk, written 64K at a time */
	size_t nbatch, capbatch;
	char *fast;		/* the first chunk laid out by fast_row() */
	size_t nfast, capfast;
	size_t pending, fast_rows;
	bool verify, fast_ok;
};

static int flush_chunk(struct emit *e)
{
	struct nx_table *t = e->t;
	char *s = NULL, *body;
	int r;

	if (!e->verify) {
		r = scols_print_table(t->tb);
	} else {
		/* libsmartcols prints the first chunk; rows after it go out by
		 * fast_row() only if it laid this chunk out byte for byte */
		r = scols_print_table_to_string(t->tb, &s);
		if (!r && s) {
			/* a string has no newline after its last line */
			size_t len = strlen(s);

			body = s;
			if (!nx_opt.noheadings)	/* the rows start after the header */
				body = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + len;
			len -= (size_t)(body - s);
			e->fast_ok = len + 1 == e->nfast && !memcmp(body, e->fast, len) &&
				     e->fast[len] == '\n';
			r = fputs(s, e->out) < 0 || fputc('\n', e->out) < 0 ? -1 : 0;
		}
		free(s);
		free(e->fast);
		e->fast = NULL;
		e->verify = false;
	}
	scols_table_remove_lines(t->tb);
	scols_table_enable_noheadings(t->tb, 1);
	e->pending = 0;
	return r;
}

static int keep_fast(struct emit *e, size_t n)
{
	if (e->nfast + n > e->capfast) {
		size_t cap = (e->capfast + n) * 2;
		char *p = realloc(e->fast, cap);

		if (!p)
			return -1;
		e->fast = p;
		e->capfast = cap;
	}
	memcpy(e->fast + e->nfast, e->line, n);
	e->nfast += n;
	return 0;
}

/* the first chunk, compared with fast_row(), needs no more rows than this */
#define VERIFY_ROWS 128

static int flush_batch(struct emit *e)
{
	size_t n = e->nbatch;

	e->nbatch = 0;
	return fwrite(e->batch, 1, n, e->out) == n ? 0 : -1;
}

static int emit_row(struct emit *e, const char *const *cells, size_t chunk)
{
	if (e->fast_ok) {
		e->nbatch += fast_row(e->t, cells, e->batch + e->nbatch);
		e->fast_rows++;
		return e->nbatch + e->linecap > e->capbatch ? flush_batch(e) : 0;
	}
	nx_table_row(e->t, cells);
	if (e->verify && keep_fast(e, fast_row(e->t, cells, e->line)))
		e->verify = false;	/* no memory to compare: libsmartcols only */
	if (e->verify && chunk > VERIFY_ROWS)
		chunk = VERIFY_ROWS;
	return ++e->pending == chunk ? flush_chunk(e) : 0;
}

/* row @i of @fn into @cells, cleared first; false if @fn leaves it out */
static bool get_row(const struct nx_table *t, nx_row_fn fn, void *priv, size_t i,
		    const char **cells)
{
	memset(cells, 0, t->nspec * sizeof(cells[0]));
	return fn(priv, i, cells);
}

/* rows after the first chunk skip libsmartcols if it agrees; NUMABCTL_FAST=0 */
static bool fast_wanted(void)
{
	const char *e = getenv("NUMABCTL_FAST");

	return !e || strcmp(e, "0");
}

static int emit_chunks(struct nx_table *t, FILE *out, size_t n, size_t chunk,
		       nx_row_fn fn, void *priv)
{
	const char *cells[NX_MAX_SPEC];
	struct emit e = { .t = t, .out = out, .linecap = 2 };
	int r = 0;

	pin_widths(t);
	for (int i = 0; i < t->ncols; i++)
		e.linecap += t->width[i] + 1;
	e.capbatch = e.linecap > 1 << 15 ? 2 * e.linecap : 1 << 16;
	e.line = malloc(e.linecap);
	e.batch = malloc(e.capbatch);
	e.verify = e.line && e.batch && fast_wanted();
	for (size_t i = 0; i < n && !r; i++)
		if (get_row(t, fn, priv, i, cells))
			r = emit_row(&e, cells, chunk);
	if (e.pending && !r)
		r = flush_chunk(&e);
	if (e.nbatch && !r)
		r = flush_batch(&e);
	t->fast_rows = e.fast_rows;
	free(e.fast);
	free(e.batch);
	free(e.line);
	return r;
}

/*
 * JSON rows: json-c builds the document of the first rows; if the layout
 * below gives the same bytes for it, the other rows are laid out the same
 * way (json-c escapes any string that needs it) and streamed, instead of
 * holding a json-c object per cell of a 100k-row table (0.2 s, 100 MB).
 */
struct jbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void jb_put(struct jbuf *b, const char *s, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = (b->cap + n) * 2;
		char *p = b->oom ? NULL : realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void jb_str(struct jbuf *b, const char *s)
{
	jb_put(b, s, strlen(s));
}

/* a string json-c would print unescaped */
static bool json_plain(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return false;
	return true;
}

static void jb_value(struct jbuf *b, const char *s, int jtype)
{
	struct json_object *o;

	if (s && jtype == SCOLS_JSON_NUMBER && number_kind(s)) {
		jb_str(b, s);
	} else if (s && jtype == SCOLS_JSON_STRING && json_plain(s)) {
		jb_put(b, "\"", 1);
		jb_str(b, s);
		jb_put(b, "\"", 1);
	} else {	/* null, booleans, strings with escapes: json-c's text */
		o = json_cell(s, jtype);
		jb_str(b, o ? json_object_to_json_string_ext(o, json_flags()) : "null");
		json_object_put(o);
	}
}

static void jb_row(struct jbuf *b, const struct nx_table *t, const char *const *cells,
		   bool first)
{
	bool pretty = !nx_opt.compact;

	jb_str(b, first ? "" : pretty ? ",\n" : ",");
	jb_str(b, pretty ? "    {\n" : "{");
	for (int i = 0; i < t->ncols; i++) {
		if (i)
			jb_str(b, pretty ? ",\n" : ",");
		jb_str(b, pretty ? "      \"" : "\"");
		jb_str(b, t->keys[i]);
		jb_str(b, pretty ? "\": " : "\":");
		jb_value(b, out_cell(t, cells, i), t->spec[t->ids[i]].jtype);
	}
	jb_str(b, pretty ? "\n    }" : "}");
}

static struct json_object *row_json(const struct nx_table *t, const char *const *cells)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < t->ncols; i++)
		json_object_object_add_ex(o, t->keys[i],
					  json_cell(out_cell(t, cells, i), t->spec[t->ids[i]].jtype),
					  JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
	return o;
}

static int emit_json(struct nx_table *t, FILE *out, size_t n, size_t verify,
		     nx_row_fn fn, void *priv)
{
	const char *cells[NX_MAX_SPEC], *name = scols_table_get_name(t->tb), *ref;
	struct json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	struct jbuf b = { 0 };
	size_t i = 0, rows = 0, head;
	int r = 0;

	json_object_object_add(doc, name, arr);
	jb_str(&b, nx_opt.compact ? "{\"" : "{\n  \"");
	jb_str(&b, name);
	jb_str(&b, nx_opt.compact ? "\":[" : "\": [\n");
	for (; i < n && (!verify || rows < verify); i++)
		if (get_row(t, fn, priv, i, cells)) {
			json_object_array_add(arr, row_json(t, cells));
			jb_row(&b, t, cells, !rows++);
		}
	head = b.n;
	jb_str(&b, nx_opt.compact ? "]}" : "\n  ]\n}");
	ref = json_object_to_json_string_ext(doc, json_flags());
	if (i == n || !verify || b.oom || !ref || strlen(ref) != b.n || memcmp(ref, b.p, b.n)) {
		/* json-c for every row */
		for (; i < n; i++)
			if (get_row(t, fn, priv, i, cells))
				json_object_array_add(arr, row_json(t, cells));
		r = nx_json_print(doc, out);
		goto out;
	}
	b.n = head;
	for (; i < n && !r; i++) {
		if (!get_row(t, fn, priv, i, cells))
			continue;
		jb_row(&b, t, cells, false);
		t->fast_rows++;
		if (b.n >= 1 << 16) {
			r = fwrite(b.p, 1, b.n, out) == b.n && !b.oom ? 0 : -1;
			b.n = 0;
		}
	}
	jb_str(&b, nx_opt.compact ? "]}\n" : "\n  ]\n}\n");
	if (!r)
		r = fwrite(b.p, 1, b.n, out) == b.n && !b.oom ? 0 : -1;
out:
	free(b.p);
	json_object_put(doc);
	return r;
}

static bool has_sort_column(const struct nx_table *t)
{
	for (int i = 0; nx_opt.sort && i < t->ncols; i++)
		if (!strcasecmp(t->spec[t->ids[i]].name, nx_opt.sort))
			return true;
	return false;
}

static int emit(struct nx_table *t, FILE *out, size_t n, nx_row_fn fn, void *priv)
{
	const char *cells[NX_MAX_SPEC];
	size_t chunk = chunk_rows(), rows = 0;

	scols_table_set_stream(t->tb, out);
	if (has_sort_column(t)) {	/* -x COL: libsmartcols sorts the whole table */
		for (size_t i = 0; i < n; i++)
			if (get_row(t, fn, priv, i, cells))
				nx_table_row(t, cells);
		return nx_table_print(t, out);
	}
	if (nx_opt.json)
		return emit_json(t, out, n, fast_wanted() && chunk ?
				 (chunk < VERIFY_ROWS ? chunk : VERIFY_ROWS) : 0, fn, priv);
	if (chunk && n > chunk && !nx_opt.pairs && !isatty(fileno(out))) {
		memset(t->width, 0, sizeof(t->width));
		t->unsafe = false;
		for (size_t i = 0; i < n && !t->unsafe; i++) {
			if (get_row(t, fn, priv, i, cells)) {
				measure_row(t, cells);
				rows++;
			}
		}
		if (rows > chunk && !t->unsafe)
			return emit_chunks(t, out, n, chunk, fn, priv);
	}
	for (size_t i = 0; i < n; i++)
		if (get_row(t, fn, priv, i, cells))
			nx_table_row(t, cells);
	return nx_table_print(t, out);
}

int nx_table_emit(struct nx_table *t, FILE *out, size_t n, nx_row_fn fn, void *priv)
{
	int r;

	t->fast_rows = 0;
	r = emit(t, out, n, fn, priv);
	if (getenv("NUMABCTL_EMIT_DEBUG"))
		fprintf(stderr, "numabctl: %zu rows after the first chunk laid out without libsmartcols\n",
			t->fast_rows);
	return r;
}

void nx_table_free(struct nx_table *t)
{
	scols_unref_table(t->tb);
	t->tb = NULL;
}

void nx_print_columns_help(FILE *out, const struct nx_colspec *spec, size_t nspec)
{
	fputs("\nAvailable output columns (-o COL,... or -o +COL to add):\n", out);
	for (size_t i = 0; i < nspec; i++)
		fprintf(out, " %12s  %s\n", spec[i].name, spec[i].help);
}

static const struct nx_colspec kv_cols[] = {
	{ "KEY", 0.3, 0, SCOLS_JSON_STRING, "name" },
	{ "VALUE", 0.7, 0, SCOLS_JSON_STRING, "value" },
};

int nx_kv_table_init(struct nx_table *t, const char *name)
{
	return nx_table_init(t, name, kv_cols, 2, "KEY,VALUE", NULL);
}

void nx_kv_add(struct nx_table *t, const char *key, const char *fmt, ...)
{
	struct libscols_line *ln = nx_table_line(t);
	char *s = NULL;
	va_list ap;

	if (!ln)
		return;
	scols_line_set_data(ln, 0, key);
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s && scols_line_refer_data(ln, 1, s))
		free(s);
}

void nx_kv_num(struct nx_table *t, const char *key, const char *val)
{
	struct libscols_line *ln = nx_table_line(t);

	if (!ln)
		return;
	scols_line_set_userdata(ln, (void *)(intptr_t)SCOLS_JSON_NUMBER);
	scols_line_set_data(ln, 0, key);
	scols_line_set_data(ln, 1, val ? val : "-");
}

void nx_kv_value(struct nx_table *t, const char *key, const char *val, size_t n)
{
	char buf[64];

	/* a canonical decimal number is a JSON number; anything else a string */
	if (n < sizeof(buf)) {
		memcpy(buf, val, n);
		buf[n] = '\0';
		if (number_kind(buf)) {
			nx_kv_num(t, key, buf);
			return;
		}
	}
	nx_kv_add(t, key, "%.*s", (int)n, val);
}

void nx_kv_bool(struct nx_table *t, const char *key, int val)
{
	struct libscols_line *ln = nx_table_line(t);

	if (!ln)
		return;
	scols_line_set_userdata(ln, (void *)(intptr_t)SCOLS_JSON_BOOLEAN);
	scols_line_set_data(ln, 0, key);
	scols_line_set_data(ln, 1, val < 0 ? "-" : val ? "yes" : "no");
}

/* one JSON object (json-c) with a member per table, or titled text tables */
void nx_doc_begin(struct nx_doc *d, FILE *out)
{
	d->out = out;
	d->n = 0;
	d->root = nx_opt.json ? json_object_new_object() : NULL;
}

void nx_doc_table(struct nx_doc *d, struct nx_table *t, const char *title)
{
	if (!nx_opt.json) {
		if (title)
			fprintf(d->out, "%s%s:\n", d->n ? "\n" : "", title);
		nx_table_print(t, d->out);
		d->n++;
		return;
	}
	sort_table(t);
	json_object_object_add(d->root, scols_table_get_name(t->tb), nx_table_json(t));
	d->n++;
}

void nx_doc_title(struct nx_doc *d, const char *title)
{
	if (nx_opt.json)
		return;
	fprintf(d->out, "%s%s:\n", d->n ? "\n" : "", title);
	d->n++;
}

void nx_doc_json(struct nx_doc *d, const char *name, struct json_object *o)
{
	if (!d->root) {
		json_object_put(o);
		return;
	}
	json_object_object_add(d->root, name, o);
	d->n++;
}

void nx_doc_end(struct nx_doc *d)
{
	if (!d->root)
		return;
	nx_json_print(d->root, d->out);
	json_object_put(d->root);
	d->root = NULL;
}
