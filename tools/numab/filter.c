// SPDX-License-Identifier: GPL-2.0
/* numabctl filter: show or set kernel.numa_balancing_filter_* */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "override.h"

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
	  "skip tasks whose cpuset.mems is a single node (not a top-tier one when tiering)", NULL },
	{ "treat folios mapped by several processes like any other",
	  "leave folios mapped by several processes alone (6.12)",
	  "leave them alone, but mark and promote lower-tier ones when tiering" },
	{ "when tiering, a scan sequence that mostly promotes shortens the scan period",
	  "promotions lengthen the scan period like other remote faults (6.12)", NULL },
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
		if (v < 0) {	/* absent, unreadable and malformed told apart */
			int err = st->err[i];

			nx_table_set(t, ln, FC_VALUE, "-");
			nx_table_set(t, ln, FC_SETTING, "%s", nx_filter_err_name(err));
			if (err == -ENOENT)
				nx_table_set(t, ln, FC_MEANING, "sysctl not provided by this kernel");
			else if (err == -EINVAL)
				nx_table_set(t, ln, FC_MEANING, "the kernel's value is not a number");
			else
				nx_table_set(t, ln, FC_MEANING, "cannot read it: %s%s%s%s", strerror(-err),
					     err == -EACCES || err == -EPERM ? " (" : "",
					     err == -EACCES || err == -EPERM ?
					     nx_root_hint("CAP_DAC_OVERRIDE") : "",
					     err == -EACCES || err == -EPERM ? ")" : "");
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
	return nx_write_output(file, buf, off);
}

static int parse_assignments(int argc, char **argv, int *val, bool *set,
			     bool *any, bool *named)
{
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		int idx = nx_filter_index(argv[i], eq ? (size_t)(eq - argv[i]) : strlen(argv[i]));

		if (idx < 0)
			return nx_filter_assign_error(argv[i]);
		named[idx] = true;
		if (!eq)
			continue;	/* show only */
		val[idx] = nx_filter_value(idx, eq + 1, strlen(eq + 1));
		if (val[idx] < 0)
			return nx_filter_assign_error(argv[i]);
		set[idx] = true;
		*any = true;
	}
	return NX_OK;
}

static void filter_usage(FILE *out)
{
	fputs("Usage: numabctl filter [NAME[=VALUE] ...]\n"
	      "       numabctl filter --legacy | --default\n"
	      "       numabctl filter --save FILE | --restore FILE\n"
	      "       numabctl filter --pid PID [NAME[=VALUE] ...] [--legacy|--default|--inherit]\n\n"
	      "Show or set the scan filters (kernel.numa_balancing_filter_*).\n"
	      "Filters: pid, shared_ro, shared_folio (off|skip|tier, 0..2),\n"
	      "scan_delay, cpuset (off|on); promo_slowdown (off|on), no VMA filter but\n"
	      "the scan-period rule for promotions in memory-tiering mode.\n\n"
	      "  --legacy         stock 6.12 behaviour: pid=skip shared_ro=skip\n"
	      "                   scan_delay=on cpuset=off shared_folio=skip\n"
	      "                   promo_slowdown=on\n"
	      "  --default        kernel defaults: pid=tier shared_ro=tier scan_delay=on\n"
	      "                   cpuset=on shared_folio=tier promo_slowdown=off\n"
	      "                   (both set only the filters this kernel has)\n"
	      "  --save FILE      write the current values (sysctl.conf syntax; - for stdout)\n"
	      "  --restore FILE   set the values saved in FILE (- for stdin)\n"
	      "  --force          set even while a 'numabctl run' holds the filters\n\n"
	      "Per process (kernels with /proc/PID/numa_filters; no sysctl changes):\n"
	      "  numabctl filter --pid PID [NAME ...]           its overrides, effective values\n"
	      "  numabctl filter --pid PID NAME=VALUE ...       set them; VALUE may be inherit\n"
	      "  numabctl filter --pid PID --legacy|--default|--inherit   all it has\n"
	      "  -p, --pid PID    the process (its mm: every thread, kept across execve,\n"
	      "                   inherited by fork); a value less restrictive than the\n"
	      "                   sysctl needs CAP_SYS_NICE, another user's process ptrace\n"
	      "                   rights; exit 7 if the kernel has no per-process filters\n", out);
	nx_print_columns_help(out, filter_cols, sizeof(filter_cols) / sizeof(filter_cols[0]));
	fputs("\nColumns with --pid: NAME, OVERRIDE (inherit or the value), VALUE and\n"
	      "SETTING (effective), SOURCE (process or system), SYSTEM (the sysctl), SYSCTL.\n", out);
}

/* filter --pid PID [NAME[=VALUE] ...]: one process's overrides */
static int filter_pid(pid_t pid, int argc, char **argv, int preset)
{
	int val[NX_NFILTERS] = { 0 }, idx, v, r;
	bool set[NX_NFILTERS] = { false }, named[NX_NFILTERS] = { false };
	bool any = false, some = false;

	if (preset >= 0) {
		nx_pf_preset(val, set, preset);
		any = true;
	}
	for (int i = 0; i < argc; i++) {
		if (!strchr(argv[i], '=')) {
			idx = nx_filter_index(argv[i], strlen(argv[i]));
			if (idx < 0) {
				nx_warn("unknown filter '%s' (%s)", argv[i], nx_filter_names());
				return NX_EUSAGE;
			}
			named[idx] = some = true;
			continue;
		}
		if (nx_pf_parse_assign(argv[i], &idx, &v))
			return NX_EUSAGE;
		val[idx] = v;
		set[idx] = named[idx] = some = any = true;
	}
	if (any) {
		r = nx_pf_write(pid, val, set);
		if (r)
			return r;
	}
	return nx_pf_show(pid, some && !(preset >= 0) ? named : NULL);
}

static int show(const bool *only)
{
	struct nx_filters_state st;
	struct nx_table t;

	nx_filters_read(&st);
	if (!st.present)
		nx_warn("no kernel.numa_balancing_filter_* sysctls: kernel lacks the "
			"numab series (its scan filters are the kernel's own: as in stock "
			"6.12, pid, shared_ro and shared_folio skip)");
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
		{ "pid", required_argument, NULL, 'p' },
		{ "inherit", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	pid_t pid = 0;
	int preset = -1;
	const char *save = NULL, *restore = NULL, *pid_arg = NULL;
	int val[NX_NFILTERS] = { 0 }, c, r, lock = -1;
	bool set[NX_NFILTERS] = { false }, named[NX_NFILTERS] = { false };
	bool any = false, force = false, some = false;

	while ((c = getopt_long(argc, argv, ":p:" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 's': save = optarg; break;
		case 'R': restore = optarg; break;
		case 'L':
		case 'D':
		case 'I':
			if (preset >= 0 && preset != (c == 'L' ? NX_PF_LEGACY : c == 'D' ?
						      NX_PF_DEFAULT : NX_PF_INHERIT))
				return nx_usage_error("--legacy, --default and --inherit cannot "
						      "be used together");
			preset = c == 'L' ? NX_PF_LEGACY : c == 'D' ? NX_PF_DEFAULT : NX_PF_INHERIT;
			break;
		case 'f': force = true; break;
		case 'p': pid_arg = optarg; break;
		default:
			r = nx_opt_other(c, optarg, filter_usage);
			if (r >= 0)
				return r;
		}
	}
	/* after the options: a thread ID is resolved below a later --sysroot */
	if (pid_arg && nx_parse_pid(pid_arg, &pid))
		return NX_EUSAGE;
	if (pid) {
		if (save || restore || force)
			return nx_usage_error("--save, --restore and --force are for the "
					      "system-wide filters, not with --pid");
		r = nx_opts_done(nx_pf_cols, nx_pf_ncols);
		if (r >= 0)
			return r;
		return filter_pid(pid, argc - optind, argv + optind, preset);
	}
	if (preset == NX_PF_INHERIT)
		return nx_usage_error("--inherit is for one process's filters: use it with --pid");
	if (preset >= 0) {
		nx_filters_preset(val, set, preset == NX_PF_LEGACY);
		any = true;
	}
	r = nx_opts_done(filter_cols, sizeof(filter_cols) / sizeof(filter_cols[0]));
	if (r >= 0)
		return r;
	if (save && (restore || preset >= 0 || optind < argc))
		return nx_usage_error("--save writes the current values: it takes no %s",
				      restore ? "--restore" : preset >= 0 ? "--legacy or --default" :
				      "filter names or assignments");
	if (restore && preset >= 0)
		return nx_usage_error("--restore and --%s cannot be used together",
				      preset == NX_PF_LEGACY ? "legacy" : "default");
	for (int i = optind; (restore || preset >= 0) && i < argc; i++)
		if (strchr(argv[i], '='))
			return nx_usage_error("%s and an assignment ('%s') cannot be used "
					      "together: set the filters one way", restore ?
					      "--restore" : preset == NX_PF_LEGACY ? "--legacy" :
					      "--default", argv[i]);
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
	r = nx_filters_writable(set);
	if (r)
		return r;
	if (!force) {
		r = nx_lock_filters(&lock, false);
		if (r)
			return r;
	}
	r = nx_filters_write(val, set);
	nx_unlock_filters(lock);
	return r ? r : show(some ? named : NULL);
}
