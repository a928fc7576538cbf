// SPDX-License-Identifier: GPL-2.0
/* numabctl filter: show or set kernel.numa_balancing_filter_* */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numabctl.h"

static const char *const meaning[NX_NFILTERS][3] = {
	{ "scan VMAs whatever the PID activity",
	  "skip VMAs the task did not fault on recently (6.12)",
	  "skip in normal mode, promotion-only scan when tiering" },
	{ "scan read-only file mappings",
	  "skip read-only file mappings (6.12)",
	  "skip in normal mode, promotion-only scan when tiering" },
	{ "scan new VMAs at once",
	  "new VMAs wait scan_delay before the first scan", NULL },
	{ "scan even when cpuset.mems is a single node",
	  "skip tasks whose cpuset.mems is a single node", NULL },
	{ "treat folios mapped by several processes like any other",
	  "leave folios mapped by several processes alone (6.12)",
	  "leave them alone, but mark and promote lower-tier ones when tiering" },
};

enum { FC_NAME, FC_VALUE, FC_SETTING, FC_DEFAULT, FC_MEANING, FC_SYSCTL };
static const struct nx_colspec filter_cols[] = {
	[FC_NAME] = { "NAME", 10, 0, SCOLS_JSON_STRING, "filter name" },
	[FC_VALUE] = { "VALUE", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "sysctl value" },
	[FC_SETTING] = { "SETTING", 4, 0, SCOLS_JSON_STRING, "value name: off, skip, tier, on" },
	[FC_DEFAULT] = { "DEFAULT", 4, 0, SCOLS_JSON_STRING, "kernel default" },
	[FC_MEANING] = { "MEANING", 40, 0, SCOLS_JSON_STRING, "what the current value does" },
	[FC_SYSCTL] = { "SYSCTL", 30, 0, SCOLS_JSON_STRING, "sysctl name" },
};

int nx_filter_table(struct nx_table *t, const struct nx_filters_state *st,
		    const char *name, const bool *only, const char *cols)
{
	if (nx_table_init(t, name, filter_cols, sizeof(filter_cols) / sizeof(filter_cols[0]),
			  "NAME,VALUE,SETTING,DEFAULT,MEANING", cols))
		return -1;
	for (int i = 0; i < NX_NFILTERS; i++) {
		struct libscols_line *ln;
		int v = st->val[i];

		if (only && !only[i])
			continue;
		ln = nx_table_line(t);
		nx_table_set(t, ln, FC_NAME, "%s", nx_filters[i].name);
		nx_table_set(t, ln, FC_DEFAULT, "%s",
			     nx_filter_value_name(i, nx_filters[i].def));
		nx_table_set(t, ln, FC_SYSCTL, "kernel.numa_balancing_filter_%s",
			     nx_filters[i].name);
		if (v < 0) {
			nx_table_set(t, ln, FC_VALUE, nx_opt.json ? "null" : "-");
			nx_table_set(t, ln, FC_SETTING, "absent");
			nx_table_set(t, ln, FC_MEANING, "sysctl not provided by this kernel");
			continue;
		}
		nx_table_set(t, ln, FC_VALUE, "%d", v);
		nx_table_set(t, ln, FC_SETTING, "%s", nx_filter_value_name(i, v));
		nx_table_set(t, ln, FC_MEANING, "%s", v <= nx_filters[i].max ?
			     meaning[i][v] : "unknown value");
	}
	return 0;
}

/* sysctl.conf syntax, so the file can also be fed to 'sysctl -p' */
static int save_filters(const char *file)
{
	struct nx_filters_state st;
	char buf[1024];
	size_t off = 0;
	int r;

	nx_filters_read(&st);
	if (!st.present) {
		nx_warn("no kernel.numa_balancing_filter_* sysctls to save: "
			"kernel lacks the numab series");
		return NX_ENOTSUP;
	}
	off += (size_t)snprintf(buf, sizeof(buf), "# numabctl filter --save\n");
	for (int i = 0; i < NX_NFILTERS; i++)
		if (st.val[i] >= 0)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"kernel.numa_balancing_filter_%s = %d\n",
						nx_filters[i].name, st.val[i]);
	r = nx_write_atomic(file, buf, off);
	if (r)
		return nx_file_error(file, r);
	return NX_OK;
}

struct restore_ctx {
	int val[NX_NFILTERS];
	bool set[NX_NFILTERS];
	unsigned long bad;
};

static int restore_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct restore_ctx *rc = priv;
	size_t i = 0;
	int idx, val;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#' || line[i] == ';')
		return 0;
	if (nx_parse_filter_assign(line, len, &idx, &val)) {
		nx_warn("line %lu: not a valid filter setting: %.*s", no, (int)len, line);
		rc->bad++;
		return 0;
	}
	rc->val[idx] = val;
	rc->set[idx] = true;
	return 0;
}

int nx_filters_load_file(const char *file, int *val, bool *set)
{
	struct restore_ctx rc;
	int r;

	memset(&rc, 0, sizeof(rc));
	r = nx_for_each_line(file, restore_line, &rc);
	if (r)
		return nx_file_error(file, r);
	if (rc.bad)
		return NX_EUSAGE;
	memcpy(val, rc.val, sizeof(rc.val));
	memcpy(set, rc.set, sizeof(rc.set));
	return NX_OK;
}

static int parse_assignments(int argc, char **argv, int *val, bool *set,
			     bool *any, bool *named)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		int idx = nx_filter_index(argv[i], eq ? (size_t)(eq - argv[i]) : strlen(argv[i]));

		if (idx < 0) {
			nx_warn("unknown filter '%s' (pid, shared_ro, scan_delay, cpuset, "
				"shared_folio)", argv[i]);
			return NX_EUSAGE;
		}
		named[idx] = true;
		if (!eq)
			continue;	/* show only */
		val[idx] = nx_filter_value(idx, eq + 1, strlen(eq + 1));
		if (val[idx] < 0) {
			nx_warn("invalid value '%s' for filter %s (%s)", eq + 1,
				nx_filters[idx].name, nx_filters[idx].max == 2 ?
				"off|skip|tier or 0..2" : "off|on or 0..1");
			return NX_EUSAGE;
		}
		set[idx] = true;
		*any = true;
	}
	return NX_OK;
}

static void filter_usage(FILE *out)
{
	fputs("Usage: numabctl filter [NAME[=VALUE] ...]\n"
	      "       numabctl filter --legacy | --default\n"
	      "       numabctl filter --save FILE | --restore FILE\n\n"
	      "Show or set the scan filters (kernel.numa_balancing_filter_*).\n"
	      "Filters: pid, shared_ro, shared_folio (off|skip|tier, 0..2),\n"
	      "scan_delay, cpuset (off|on).\n\n"
	      "  --legacy         stock 6.12 behaviour: pid=skip shared_ro=skip\n"
	      "                   scan_delay=on cpuset=off shared_folio=skip\n"
	      "  --default        kernel defaults: pid=tier shared_ro=tier scan_delay=on\n"
	      "                   cpuset=on shared_folio=tier\n"
	      "                   (both set only the filters this kernel has)\n"
	      "  --save FILE      write the current values (sysctl.conf syntax)\n"
	      "  --restore FILE   set the values saved in FILE\n"
	      "  --force          set even while a 'numabctl run' holds the filters\n", out);
	nx_print_columns_help(out, filter_cols, sizeof(filter_cols) / sizeof(filter_cols[0]));
}

static int show(const bool *only)
{
	struct nx_filters_state st;
	struct nx_table t;

	nx_filters_read(&st);
	if (!st.present)
		nx_warn("no kernel.numa_balancing_filter_* sysctls: kernel lacks the "
			"numab series (filters behave like stock 6.12: pid, shared_ro and "
			"shared_folio skip)");
	if (nx_filter_table(&t, &st, "filters", only, nx_opt.columns))
		return NX_EUSAGE;
	nx_table_print(&t, stdout);
	nx_table_free(&t);
	return NX_OK;
}

int cmd_filter(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "save", required_argument, NULL, 's' },
		{ "restore", required_argument, NULL, 'R' },
		{ "legacy", no_argument, NULL, 'L' },
		{ "default", no_argument, NULL, 'D' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *save = NULL, *restore = NULL;
	int val[NX_NFILTERS] = { 0 }, c, r, lock = -1;
	bool set[NX_NFILTERS] = { false }, named[NX_NFILTERS] = { false };
	bool any = false, force = false, some = false;

	while ((c = getopt_long(argc, argv, NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 's': save = optarg; break;
		case 'R': restore = optarg; break;
		case 'L': nx_filters_preset(val, set, true); any = true; break;
		case 'D': nx_filters_preset(val, set, false); any = true; break;
		case 'f': force = true; break;
		default:
			r = nx_opt_other(c, optarg, filter_usage);
			if (r >= 0)
				return r;
		}
	}
	if (save)
		return save_filters(save);
	if (restore) {
		r = nx_filters_load_file(restore, val, set);
		if (r)
			return r;
		any = true;
	}
	r = parse_assignments(argc - optind, argv + optind, val, set, &any, named);
	if (r)
		return r;
	for (int i = 0; i < NX_NFILTERS; i++)
		some |= named[i];
	if (!any)
		return show(some ? named : NULL);
	if (!force) {
		r = nx_lock_filters(&lock, false);
		if (r)
			return r;
	}
	r = nx_filters_write(val, set);
	nx_unlock_filters(lock);
	return r ? r : show(some ? named : NULL);
}
