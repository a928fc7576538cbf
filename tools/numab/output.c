// SPDX-License-Identifier: GPL-2.0
/* libsmartcols glue: column selection (-o), JSON/raw/noheadings */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	if (!cols || *cols == '+') {
		if (parse_columns(t, nspec, defaults))
			return -1;
	}
	if (cols && parse_columns(t, nspec, cols))
		return -1;
	t->tb = scols_new_table();
	if (!t->tb)
		return -1;
	scols_table_set_name(t->tb, name);
	scols_table_enable_json(t->tb, nx_opt.json);
	scols_table_enable_raw(t->tb, nx_opt.raw);
	scols_table_enable_noheadings(t->tb, nx_opt.noheadings);
	for (int i = 0; i < t->ncols; i++) {
		const struct nx_colspec *c = &spec[t->ids[i]];
		struct libscols_column *cl;

		cl = scols_table_new_column(t->tb, c->name, c->whint, c->flags);
		if (!cl)
			return -1;
		scols_column_set_json_type(cl, c->jtype);
	}
	return 0;
}

struct libscols_line *nx_table_line(struct nx_table *t)
{
	return scols_table_new_line(t->tb, NULL);
}

static int out_index(const struct nx_table *t, int spec_id)
{
	for (int i = 0; i < t->ncols; i++)
		if (t->ids[i] == spec_id)
			return i;
	return -1;
}

void nx_table_set(struct nx_table *t, struct libscols_line *ln, int spec_id,
		  const char *fmt, ...)
{
	int i = out_index(t, spec_id);
	char *s = NULL;
	va_list ap;

	if (i < 0 || !ln)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s && scols_line_refer_data(ln, (size_t)i, s))
		free(s);
}

void nx_table_size(struct nx_table *t, struct libscols_line *ln, int spec_id,
		   uint64_t bytes)
{
	char buf[32];

	if (nx_opt.bytes || nx_opt.json) {
		nx_table_set(t, ln, spec_id, "%llu", (unsigned long long)bytes);
		return;
	}
	nx_human_size(bytes, buf, sizeof(buf));
	nx_table_set(t, ln, spec_id, "%s", buf);
}

int nx_table_print(struct nx_table *t, FILE *out)
{
	scols_table_set_stream(t->tb, out);
	return scols_print_table(t->tb);
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

void nx_doc_begin(struct nx_doc *d, FILE *out)
{
	d->out = out;
	d->n = 0;
	if (nx_opt.json)
		fputs("{\n", out);
}

/* scols prints '{ "name": [...] }' per table: splice the members together */
void nx_doc_table(struct nx_doc *d, struct nx_table *t, const char *title)
{
	char *s = NULL, *open, *close;

	if (!nx_opt.json) {
		if (title)
			fprintf(d->out, "%s%s:\n", d->n ? "\n" : "", title);
		nx_table_print(t, d->out);
		d->n++;
		return;
	}
	if (scols_print_table_to_string(t->tb, &s) || !s)
		return;
	open = strchr(s, '{');
	close = strrchr(s, '}');
	if (open && close && close > open) {
		char *b = open + 1, *e = close;

		while (*b == '\n')
			b++;
		while (e > b && (e[-1] == '\n' || e[-1] == ' '))
			e--;
		fprintf(d->out, "%s%.*s", d->n ? ",\n" : "", (int)(e - b), b);
		d->n++;
	}
	free(s);
}

void nx_doc_end(struct nx_doc *d)
{
	if (nx_opt.json)
		fputs("\n}\n", d->out);
}
