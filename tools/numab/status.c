// SPDX-License-Identifier: GPL-2.0
/* numabctl status: what this kernel supports and how it is tuned */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "override.h"
#include "backend.h"

static bool relevant_counter(struct nx_span k)
{
	static const char *const pfx[] = { "numa_", "pgpromote_", "pgdemote_",
					   "pgmigrate_", "promo" };

	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (k.n >= strlen(pfx[i]) && !memcmp(k.p, pfx[i], strlen(pfx[i])))
			return true;
	/* VMA skip counters, whatever their final names (not pgskip_*) */
	return memmem(k.p, k.n, "skip", 4) && memmem(k.p, k.n, "vma", 3);
}

static int counter_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct nx_counters *c = priv;
	struct nx_span k;
	uint64_t v;

	(void)no;
	if (nx_parse_vmstat_line(line, len, &k, &v) || !relevant_counter(k))
		return 0;
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 32;
		char **nn = realloc(c->name, nc * sizeof(*nn));
		uint64_t *nv;

		if (!nn)
			return -ENOMEM;
		c->name = nn;
		nv = realloc(c->val, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->val = nv;
		c->cap = nc;
	}
	c->name[c->n] = strndup(k.p, k.n);
	if (!c->name[c->n])
		return -ENOMEM;
	c->val[c->n++] = v;
	return 0;
}

int nx_counters_load(struct nx_counters *c)
{
	char path[4096];

	memset(c, 0, sizeof(*c));
	nx_path(path, sizeof(path), "/proc/vmstat");
	return nx_for_each_line(path, counter_line, c);
}

void nx_counters_free(struct nx_counters *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->name[i]);
	free(c->name);
	free(c->val);
	memset(c, 0, sizeof(*c));
}

bool nx_counters_get(const struct nx_counters *c, const char *name, uint64_t *v)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name)) {
			*v = c->val[i];
			return true;
		}
	return false;
}

uint64_t nx_counters_sum(const struct nx_counters *c, const char *prefix)
{
	uint64_t s = 0;

	for (size_t i = 0; i < c->n; i++)
		if (!strncmp(c->name[i], prefix, strlen(prefix)))
			s += c->val[i];
	return s;
}

enum { NC_NODE, NC_CPU, NC_TIER, NC_CLASS, NC_TOTAL, NC_FREE, NC_USED };
static const struct nx_colspec node_cols[] = {
	[NC_NODE] = { "NODE", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "node id" },
	[NC_CPU] = { "CPUS", 4, 0, SCOLS_JSON_BOOLEAN, "node has CPUs" },
	[NC_TIER] = { "TIER", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "memory_tierN (lower is faster)" },
	[NC_CLASS] = { "CLASS", 4, 0, SCOLS_JSON_STRING, "fast (top tier) or slow" },
	[NC_TOTAL] = { "TOTAL", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "memory" },
	[NC_FREE] = { "FREE", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "free memory" },
	[NC_USED] = { "USED%", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "used share of the node" },
};

int nx_nodes_table(struct nx_table *t, const struct nx_topo *topo)
{
	int r = nx_table_init(t, "nodes", node_cols, sizeof(node_cols) / sizeof(node_cols[0]),
			      "NODE,CPUS,TIER,CLASS,TOTAL,FREE,USED%", nx_opt.columns);

	if (r)
		return r;
	for (size_t i = 0; i < topo->nnodes; i++) {
		const struct nx_node *n = &topo->nodes[i];
		struct libscols_line *ln = nx_table_line(t);

		nx_table_set(t, ln, NC_NODE, "%d", n->id);
		nx_table_set(t, ln, NC_CPU, "%s", n->has_cpu ? "true" : "false");
		if (n->tier >= 0)
			nx_table_set(t, ln, NC_TIER, "%d", n->tier);
		else
			nx_table_set(t, ln, NC_TIER, "-");	/* null in JSON */
		nx_table_set(t, ln, NC_CLASS, "%s", topo->tiers_bad && n->tier < 0 ? "-" :
			     n->fast ? "fast" : "slow");
		nx_table_size(t, ln, NC_TOTAL, n->total_kb * 1024);
		nx_table_size(t, ln, NC_FREE, n->free_kb * 1024);
		nx_table_set(t, ln, NC_USED, "%.1f", n->total_kb ?
			     100.0 * (double)(n->total_kb - (n->free_kb < n->total_kb ?
							     n->free_kb : n->total_kb)) /
			     (double)n->total_kb : 0.0);
	}
	return 0;
}

static const char *const debugfs_tunables[] = {
	"scan_delay_ms", "scan_period_min_ms", "scan_period_max_ms",
	"scan_size_mb", "hot_threshold_ms",
};

static void present_row(struct nx_table *t, const char *key, const char *rel)
{
	char path[4096];

	nx_path(path, sizeof(path), "%s", rel);
	nx_kv_add(t, key, "%s", nx_exists(path) ? "yes" : "no");
}

static void support_table(struct nx_table *t, const struct nx_filters_state *fs,
			  const struct nx_counters *vm, int vm_err)
{
	char path[4096], buf[256];
	bool skipctr = false;

	nx_path(path, sizeof(path), "/proc/sys/kernel/osrelease");
	if (nx_read_str(path, buf, sizeof(buf)))
		strcpy(buf, "unknown");
	nx_kv_add(t, "kernel", "%s", buf);
	nx_kv_add(t, "numa_balancing", "%s", nx_mode_name(nx_numa_balancing_mode()));
	present_row(t, "numa_maps", "/proc/self/numa_maps");
	present_row(t, "numa_vmas", "/proc/self/numa_vmas");
	nx_backend_status(t);	/* numa_vmas, BPF or none (backend.c) */
	{	/* what vma_policy_mof() does for shmem without a policy (shmem.c) */
		char how[256];
		int rule = nx_shmem_rule(how, sizeof(how));

		nx_kv_add(t, "shmem_task_policy", "%s (%s)", rule == NX_SHMEM_TASKPOL ? "yes" :
			  rule == NX_SHMEM_NOPOL ? "no" : "unknown", how);
	}
	nx_kv_add(t, "filter_sysctls", "%d/%d", fs->present, NX_NFILTERS);
	nx_pf_status_row(t);	/* per-process filters */
	for (size_t i = 0; i < vm->n; i++)
		skipctr |= strstr(vm->name[i], "skip") != NULL;
	nx_kv_add(t, "skip_counters", "%s", vm_err == -ENOENT ? "no (no /proc/vmstat)" :
		  vm_err ? "unknown (/proc/vmstat unreadable)" : skipctr ? "yes" : "no");
	present_row(t, "memory_tiering", "/sys/devices/virtual/memory_tiering");
	switch (nx_tracefs_find(path, sizeof(path))) {
	case NX_TFS_OK: nx_kv_add(t, "tracepoint", "yes"); break;
	case NX_TFS_NOEVENT: nx_kv_add(t, "tracepoint", "no"); break;
	case NX_TFS_UNMOUNTED: nx_kv_add(t, "tracepoint", "unknown (tracefs not mounted)"); break;
	default: nx_kv_add(t, "tracepoint", "unknown (tracefs unreadable)"); break;
	}
}

/*
 * A sysctl: its number; "-" (null) if absent; what went wrong if it is
 * there but cannot be read, or is not a number (null in JSON)
 */
static void sysctl_row(struct nx_table *t, const char *key, const char *path)
{
	char buf[64], err[96];
	long v;
	int r = nx_read_long(path, &v);

	if (!r) {
		snprintf(buf, sizeof(buf), "%ld", v);
		nx_kv_num(t, key, buf);
		return;
	}
	if (r == -ENOENT) {
		nx_kv_num(t, key, NULL);
		return;
	}
	snprintf(err, sizeof(err), "%s", r == -EINVAL ? "malformed (not a number)" :
		 r == -EACCES || r == -EPERM ? "unreadable (permission denied)" :
		 "unreadable");
	nx_kv_num(t, key, err);
}

static void tunables_table(struct nx_table *t)
{
	char path[4096], buf[64];
	bool denied = false;

	nx_path(path, sizeof(path), "/proc/sys/kernel/numa_balancing");
	sysctl_row(t, "kernel.numa_balancing", path);
	nx_path(path, sizeof(path),
		"/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps");
	sysctl_row(t, "kernel.numa_balancing_promote_rate_limit_MBps", path);
	for (size_t i = 0; i < sizeof(debugfs_tunables) / sizeof(debugfs_tunables[0]); i++) {
		char key[128];
		int r;

		nx_path(path, sizeof(path), NX_NB_DEBUGFS "/%s", debugfs_tunables[i]);
		snprintf(key, sizeof(key), "debugfs:%s", debugfs_tunables[i]);
		r = nx_read_str(path, buf, sizeof(buf));
		if (r == -EACCES || r == -EPERM)
			denied = true;
		nx_kv_num(t, key, r == 0 ? buf : r == -ENOENT ? NULL : "unreadable (root only)");
	}
	if (denied)
		nx_warn("debugfs tunables unreadable: %s", nx_root_hint("CAP_DAC_OVERRIDE"));
}

static void vmstat_table(struct nx_table *t, const struct nx_counters *vm)
{
	char buf[24];

	for (size_t i = 0; i < vm->n; i++)
		nx_kv_num(t, vm->name[i], nx_fmt_u64(buf, vm->val[i]));
}

void nx_status_doc(struct nx_doc *d, const struct nx_topo *topo, bool with_vmstat)
{
	struct nx_filters_state fs;
	struct nx_counters vm;
	struct nx_table t;
	int vm_err;

	nx_filters_read(&fs);
	vm_err = nx_counters_load(&vm);
	if (vm_err && vm_err != -ENOENT) {
		char path[4096];

		nx_path(path, sizeof(path), "/proc/vmstat");
		nx_warn("%s: cannot read: %s; counters unknown", path, strerror(-vm_err));
	}
	if (!nx_kv_table_init(&t, "support")) {
		support_table(&t, &fs, &vm, vm_err);
		nx_doc_table(d, &t, "Support");
		nx_table_free(&t);
	}
	if (!nx_nodes_table(&t, topo)) {
		nx_doc_table(d, &t, "Nodes");
		nx_table_free(&t);
	}
	if (!nx_kv_table_init(&t, "tunables")) {
		tunables_table(&t);
		nx_doc_table(d, &t, "Tunables");
		nx_table_free(&t);
	}
	if (!nx_filter_table(&t, &fs, "filters", NULL, NULL)) {
		nx_doc_table(d, &t, "Filters");
		nx_table_free(&t);
	}
	nx_pf_status_doc(d);
	if (with_vmstat && !vm_err && !nx_kv_table_init(&t, "counters")) {
		vmstat_table(&t, &vm);
		nx_doc_table(d, &t, "Counters");
		nx_table_free(&t);
	}
	nx_counters_free(&vm);
}

static void status_usage(FILE *out)
{
	fputs("Usage: numabctl status [--sysroot DIR] [-J|-r|-P] [-n] [-o COLS]\n\n"
	      "Show which numab interfaces this kernel has, the NUMA balancing mode,\n"
	      "nodes with their memory tier and free memory, every NUMA-balancing\n"
	      "tunable, the scan filters and the vmstat counters of NUMA balancing,\n"
	      "promotion, demotion and VMA skips.  -o, --output-all, -x and\n"
	      "--list-columns choose the columns of the node table.\n", out);
	nx_print_columns_help(out, node_cols, sizeof(node_cols) / sizeof(node_cols[0]));
}

/* one line naming what a degraded kernel lacks */
static void status_missing(const struct nx_topo *topo)
{
	struct nx_filters_state fs;
	long mode = nx_numa_balancing_mode();

	nx_filters_read(&fs);
	if (mode < 0 && !topo->have_nodes)
		nx_warn("no /proc/sys/kernel/numa_balancing and no /sys/devices/system/node: "
			"kernel built without CONFIG_NUMA; nothing to balance");
	else if (mode < 0)
		nx_warn("no /proc/sys/kernel/numa_balancing: kernel built without "
			"CONFIG_NUMA_BALANCING; showing topology and counters only");
	else if (!fs.present)
		nx_warn("no kernel.numa_balancing_filter_* sysctls and no numa_vmas: kernel "
			"lacks the numab series; its scan filters are the kernel's own (as in "
			"stock 6.12: pid, shared_ro and shared_folio skip; see 'vmas' for "
			"shmem)");
	else if (mode == 0)
		nx_warn("NUMA balancing is off: nothing is scanned or promoted; "
			"enable with 'sysctl kernel.numa_balancing=2'");
}

int cmd_status(int argc, char **argv)
{
	static const struct option lo[] = { NX_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct nx_topo topo;
	struct nx_doc d;
	int c;

	while ((c = getopt_long(argc, argv, ":" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		int r = nx_opt_other(c, optarg, status_usage);

		if (r >= 0)
			return r;
	}
	c = nx_opts_done(node_cols, sizeof(node_cols) / sizeof(node_cols[0]));
	if (c >= 0)
		return c;
	if (optind < argc)
		return nx_usage_error("status takes no operands ('%s')", argv[optind]);
	if (nx_topo_load(&topo))
		return NX_ERUNTIME;
	status_missing(&topo);
	nx_doc_begin(&d, stdout);
	nx_status_doc(&d, &topo, true);
	nx_doc_end(&d);
	nx_topo_free(&topo);
	return NX_OK;
}
