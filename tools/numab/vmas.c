// SPDX-License-Identifier: GPL-2.0
/* numabctl vmas PID: per-VMA scan state, tier residency and verdict */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "override.h"
#include "backend.h"

enum {
	VC_START, VC_END, VC_SIZE, VC_PERMS, VC_NAME, VC_FAST, VC_SLOW, VC_SLOWPCT,
	VC_FILTER, VC_STATE, VC_SEQS, VC_PSEQS, VC_START_SEQ, VC_PREV_SEQ, VC_PIDBITS,
	VC_PROMO_ONLY, VC_SCANS, VC_PROMO_SCANS, VC_PTE_UPDATES, VC_SKIP_DELAY,
	VC_SKIP_SEQ, VC_SKIP_PID, VC_LAST_SKIP, VC_NEXT_SCAN, VC_VERDICT, VC_WHY,
	VC_RELEASE, VC_RELEASE_S, VC_RELEASE_ERR,
};

#define NUM(n, h) { n, 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, h }
const struct nx_colspec nx_vma_cols[] = {
	[VC_START] = { "START", 12, 0, SCOLS_JSON_STRING, "first address (hex)" },
	[VC_END] = { "END", 12, 0, SCOLS_JSON_STRING, "end address (hex, exclusive)" },
	[VC_SIZE] = NUM("SIZE", "size of the VMA"),
	[VC_PERMS] = { "PERMS", 4, 0, SCOLS_JSON_STRING, "permissions from maps" },
	[VC_NAME] = { "NAME", 0.3, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, "mapped file, [heap], [stack], ..." },
	[VC_FAST] = NUM("FAST", "resident in the fast (top) tier"),
	[VC_SLOW] = NUM("SLOW", "resident in slower tiers"),
	[VC_SLOWPCT] = NUM("SLOW%", "slow share of the resident memory"),
	[VC_FILTER] = { "FILTER", 6, 0, SCOLS_JSON_STRING, "static filter that applies (none, shared_ro, ...)" },
	[VC_STATE] = { "STATE", 4, 0, SCOLS_JSON_STRING, "ok, or none if never visited by the scanner" },
	[VC_SEQS] = NUM("SEQS", "scan sequences since the last full scan"),
	[VC_PSEQS] = NUM("PSEQS", "scan sequences since the last promotion-only scan"),
	[VC_START_SEQ] = NUM("START_SEQ", "scan sequence the VMA was first seen"),
	[VC_PREV_SEQ] = NUM("PREV_SEQ", "scan sequence of the last full scan"),
	[VC_PIDBITS] = NUM("PIDBITS", "bits set in the active-PID masks"),
	[VC_PROMO_ONLY] = NUM("PONLY", "1 if the scan that started last was promotion-only"),
	[VC_SCANS] = NUM("SCANS", "completed full scans (stops at 65535)"),
	[VC_PROMO_SCANS] = NUM("PSCANS", "completed promotion-only scans (stops at 65535)"),
	[VC_PTE_UPDATES] = NUM("PTES", "PTEs made PROT_NONE by scans (stops at 4294967295)"),
	[VC_SKIP_DELAY] = NUM("SKIP_DELAY", "skips for scan_delay (stops at 65535)"),
	[VC_SKIP_SEQ] = NUM("SKIP_SEQ", "skips for seq_completed: scanned in this sequence (stops at 65535)"),
	[VC_SKIP_PID] = NUM("SKIP_PID", "skips for pid_inactive (stops at 4294967295)"),
	[VC_LAST_SKIP] = { "LAST_SKIP", 8, 0, SCOLS_JSON_STRING, "last skip reason" },
	[VC_NEXT_SCAN] = NUM("NEXT_MS", "ms to the next allowed scan (negative: due)"),
	[VC_VERDICT] = { "VERDICT", 8, 0, SCOLS_JSON_STRING, "ok, stranded, skipped, unscanned, unknown" },
	[VC_WHY] = { "WHY", 0.2, 0, SCOLS_JSON_STRING, "reason for the verdict" },
	[VC_RELEASE] = NUM("RELEASE", "sequences until the legacy PID filter's fallback scans it"),
	[VC_RELEASE_S] = NUM("RELEASE_S", "the same in seconds at the measured scan rate (--rate)"),
	[VC_RELEASE_ERR] = NUM("RELEASE_ERR", "+- seconds of RELEASE_S"),
};
const size_t nx_vma_ncols = sizeof(nx_vma_cols) / sizeof(nx_vma_cols[0]);

#define NCELLS (VC_RELEASE_ERR + 1)

/* one VMA's cells; the strings live here until the next row */
struct vma_rows {
	struct nx_table *t;
	const struct nx_vmlist *l;
	bool stranded_only, nonzero;
	uint64_t min_size;
	int pid_col, node_col, nnodes;	/* the spec columns PID and N<id> (cmd_vmas), or -1 */
	char pid[16], node[NX_MAX_SPEC][32];
	char num[NCELLS][32];
	char verdict[48];
	char why[224];
};

/* no data: blank in a table, null in JSON */
static const char *null_cell(void)
{
	return NULL;
}

static void cell_s64(struct vma_rows *r, const char **cells, int col,
		     const struct nx_numab_vma *n, unsigned int bit, int64_t v)
{
	if (nx_table_wants(r->t, col))
		cells[col] = n->have & bit ? nx_fmt_s64(r->num[col], v) : null_cell();
}

static void cell_u64(struct vma_rows *r, const char **cells, int col,
		     const struct nx_numab_vma *n, unsigned int bit, uint64_t v)
{
	if (nx_table_wants(r->t, col))
		cells[col] = n->have & bit ? nx_fmt_u64(r->num[col], v) : null_cell();
}

/* scan sequences from SEQ (a key with bit BIT) to the mm's scan_seq */
static void cell_seqs(struct vma_rows *r, const char **cells, int col,
		      const struct nx_numab_vma *n, unsigned int bit, int64_t seq)
{
	const struct nx_vmlist *l = r->l;

	if (!nx_table_wants(r->t, col))
		return;
	if ((n->have & bit) && (l->mm.have & MM_HAVE_SEQ) &&
	    (int64_t)l->mm.scan_seq >= seq)
		cells[col] = nx_fmt_u64(r->num[col], nx_seqs_since(l->mm.scan_seq, seq));
	else
		cells[col] = null_cell();
}

/* a formatted cell only for a printed column: every row is formatted twice */
#define WANT(col) nx_table_wants(r->t, (col))

static void cells_maps(struct vma_rows *r, const char **cells, const struct nx_vma *v)
{
	uint64_t res = v->fast_bytes + v->slow_bytes;

	if (WANT(VC_START))
		cells[VC_START] = nx_fmt_hex(r->num[VC_START], v->start);
	if (WANT(VC_END))
		cells[VC_END] = nx_fmt_hex(r->num[VC_END], v->end);
	if (WANT(VC_SIZE))
		cells[VC_SIZE] = nx_fmt_size(r->num[VC_SIZE], v->end - v->start);
	cells[VC_PERMS] = v->perms;
	cells[VC_NAME] = v->name ? v->name : "";
	if (!v->in_numa_maps || r->l->tiers_unknown) {
		cells[VC_FAST] = cells[VC_SLOW] = cells[VC_SLOWPCT] = null_cell();
		return;
	}
	if (WANT(VC_FAST))
		cells[VC_FAST] = nx_fmt_size(r->num[VC_FAST], v->fast_bytes);
	if (WANT(VC_SLOW))
		cells[VC_SLOW] = nx_fmt_size(r->num[VC_SLOW], v->slow_bytes);
	/* all on one tier is the common case: no floating point */
	if (!v->slow_bytes || v->slow_bytes == res)
		cells[VC_SLOWPCT] = v->slow_bytes ? "100.0" : "0.0";
	else if (WANT(VC_SLOWPCT))
		cells[VC_SLOWPCT] = nx_fmt_pct(r->num[VC_SLOWPCT],
					       100.0 * (double)v->slow_bytes / (double)res);
}

static void cells_numab(struct vma_rows *r, const char **cells, const struct nx_numab_vma *n)
{
	cells[VC_FILTER] = nx_sym_str(n->filter);
	cells[VC_STATE] = nx_sym_str(n->state);
	cell_seqs(r, cells, VC_SEQS, n, NV_HAVE_PREV_SEQ, n->prev_seq);
	cell_seqs(r, cells, VC_PSEQS, n, NV_HAVE_PROMO_SEQ, n->promo_seq);
	cell_s64(r, cells, VC_START_SEQ, n, NV_HAVE_START_SEQ, n->start_seq);
	cell_s64(r, cells, VC_PREV_SEQ, n, NV_HAVE_PREV_SEQ, n->prev_seq);
	cell_u64(r, cells, VC_PIDBITS, n, NV_HAVE_PIDS,
		 (uint64_t)(__builtin_popcountll(n->pids[0]) +
			    __builtin_popcountll(n->pids[1])));
	cell_u64(r, cells, VC_PROMO_ONLY, n, NV_HAVE_PROMO_ONLY, n->promo_only);
	cell_u64(r, cells, VC_SCANS, n, NV_HAVE_SCANS, n->scans);
	cell_u64(r, cells, VC_PROMO_SCANS, n, NV_HAVE_PROMO_SCANS, n->promo_scans);
	cell_u64(r, cells, VC_PTE_UPDATES, n, NV_HAVE_PTE_UPDATES, n->pte_updates);
	cell_u64(r, cells, VC_SKIP_DELAY, n, NV_HAVE_SKIP_DELAY, n->skip_delay);
	cell_u64(r, cells, VC_SKIP_SEQ, n, NV_HAVE_SKIP_SEQ, n->skip_seq);
	cell_u64(r, cells, VC_SKIP_PID, n, NV_HAVE_SKIP_PID, n->skip_pid);
	/* a key the kernel (or the BPF backend) does not give: null, never "" */
	cells[VC_LAST_SKIP] = (n->have & NV_HAVE_LAST_SKIP) && n->last_skip ? nx_sym_str(n->last_skip) :
			      null_cell();
	cell_s64(r, cells, VC_NEXT_SCAN, n, NV_HAVE_NEXT_SCAN, n->next_scan_ms);
}

/* nx_row_fn: the cells of VMA @i, false if the filters leave it out */
static bool vma_cells(void *priv, size_t i, const char **cells)
{
	struct vma_rows *r = priv;
	const struct nx_vma *v = &r->l->v[i];

	if (r->stranded_only && strcmp(v->verdict, "stranded"))
		return false;
	if (v->end - v->start < r->min_size)
		return false;
	if (r->nonzero && !(v->in_numa_maps && v->fast_bytes + v->slow_bytes))
		return false;	/* -z: numastat's "skip zero rows" */
	if (r->pid_col >= 0)
		cells[r->pid_col] = r->pid;
	for (int k = 0; r->node_col >= 0 && k < r->nnodes; k++)
		if (v->in_numa_maps && v->node_bytes)
			cells[r->node_col + k] = nx_fmt_size(r->node[k], v->node_bytes[k]);
	cells_maps(r, cells, v);
	if (v->in_numab)
		cells_numab(r, cells, &v->nv);
	if (!strcmp(v->verdict, "skipped")) {
		/* most rows repeat the last filter: no snprintf per row */
		if (strncmp(r->verdict, "skipped:", 8) ||
		    strcmp(r->verdict + 8, nx_sym_str(v->nv.filter)))
			snprintf(r->verdict, sizeof(r->verdict), "skipped:%s", nx_sym_str(v->nv.filter));
		cells[VC_VERDICT] = r->verdict;
	} else {
		cells[VC_VERDICT] = v->verdict;
	}
	if (WANT(VC_WHY)) {
		nx_vma_why(v, r->l, r->why, sizeof(r->why));
		cells[VC_WHY] = r->why;
	}
	nx_release_cells(v, r->l, cells, VC_RELEASE, VC_RELEASE_S, VC_RELEASE_ERR,
			 r->num[VC_RELEASE], r->num[VC_RELEASE_S], r->num[VC_RELEASE_ERR]);
	return true;
}

/*
 * cmd_vmas's columns: those of nx_vma_cols, PID (for several processes)
 * and one per node, N0, N1, ... (numastat); report keeps nx_vma_cols.
 */
static struct nx_colspec vspec[NX_MAX_SPEC];
static size_t vnspec;
static int vpid_col = -1, vnode_col = -1, vnnodes;
static char vnode_names[NX_MAX_SPEC][12], vdefaults[NX_MAX_SPEC * 12 + 128];
/* --output-all and -H: PID first, the node columns after SLOW% (the man page's order) */
static char vall[NX_MAX_SPEC * 16];
/* -N with -o LIST: the list with the node columns added */
static char vcols[NX_MAX_SPEC * 16 + 1024];
static bool vnonzero;

static void vmas_spec(const struct nx_topo *topo, bool pid, bool nodes)
{
	size_t off;

	memcpy(vspec, nx_vma_cols, nx_vma_ncols * sizeof(*vspec));
	vnspec = nx_vma_ncols;
	vpid_col = (int)vnspec;
	vspec[vnspec++] = (struct nx_colspec){ "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
					       "the process (several PIDs, -p)" };
	vnode_col = (int)vnspec;
	vnnodes = 0;
	for (size_t i = 0; i < topo->nnodes && vnspec < NX_MAX_SPEC; i++, vnnodes++) {
		snprintf(vnode_names[i], sizeof(vnode_names[i]), "N%d", topo->nodes[i].id);
		vspec[vnspec++] = (struct nx_colspec){ vnode_names[i], 4, SCOLS_FL_RIGHT,
						       SCOLS_JSON_NUMBER, "resident on this node" };
	}
	/* defaults: PID first, the node columns after SLOW% */
	off = (size_t)snprintf(vdefaults, sizeof(vdefaults), "%s%s", pid ? "PID," : "",
			       "START,SIZE,NAME,FAST,SLOW,SLOW%");
	for (int k = 0; nodes && k < vnnodes; k++)
		off += (size_t)snprintf(vdefaults + off, sizeof(vdefaults) - off, ",%s",
					vnode_names[k]);
	snprintf(vdefaults + off, sizeof(vdefaults) - off, "%s",
		 NX_VMA_DEFAULT_COLS + strlen("START,SIZE,NAME,FAST,SLOW,SLOW%"));
	off = (size_t)snprintf(vall, sizeof(vall), "PID");
	for (int i = 0; i < (int)nx_vma_ncols; i++) {
		off += (size_t)snprintf(vall + off, sizeof(vall) - off, ",%s", nx_vma_cols[i].name);
		for (int k = 0; i == VC_SLOWPCT && k < vnnodes; k++)
			off += (size_t)snprintf(vall + off, sizeof(vall) - off, ",%s",
						vnode_names[k]);
	}
	nx_opt.all_order = vall;
}

const char *nx_vmas_report_cols(const struct nx_topo *topo)
{
	vmas_spec(topo, false, false);
	return vall + strlen("PID,");
}

/*
 * -N with -o LIST (not +LIST, whose defaults have them): the node
 * columns after SLOW% in LIST, else at its end
 */
static const char *with_nodes(const char *cols)
{
	size_t off = 0;
	bool done = false;

	for (const char *c = cols; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ',')) {
		size_t len = strcspn(c, ",");

		off += (size_t)snprintf(vcols + off, sizeof(vcols) - off, "%s%.*s",
					off ? "," : "", (int)len, c);
		if (!done && len == 5 && !strncasecmp(c, "SLOW%", 5)) {
			for (int k = 0; k < vnnodes; k++)
				off += (size_t)snprintf(vcols + off, sizeof(vcols) - off, ",%s",
							vnode_names[k]);
			done = true;
		}
		if (off >= sizeof(vcols) - 16)
			return cols;
	}
	for (int k = 0; !done && k < vnnodes; k++)
		off += (size_t)snprintf(vcols + off, sizeof(vcols) - off, ",%s", vnode_names[k]);
	return vcols;
}

static int vmas_init(struct nx_table *t, struct vma_rows *r, const struct nx_vmlist *l,
		     const char *cols, const char *name, bool stranded_only,
		     uint64_t min_size)
{
	r->t = t;
	r->l = l;
	r->stranded_only = stranded_only;
	r->min_size = min_size;
	r->nonzero = vnonzero;
	r->verdict[0] = '\0';	/* no "skipped:FILTER" laid out yet */
	if (l)
		snprintf(r->pid, sizeof(r->pid), "%d", (int)l->pid);
	r->pid_col = vnspec ? vpid_col : -1;
	r->node_col = vnspec ? vnode_col : -1;
	r->nnodes = vnnodes;
	if (vnspec)	/* cmd_vmas: with PID and a column per node */
		return nx_table_init(t, name, vspec, vnspec, vdefaults, cols);
	return nx_table_init(t, name, nx_vma_cols, nx_vma_ncols, NX_VMA_DEFAULT_COLS, cols);
}

int nx_vmas_table(struct nx_table *t, const struct nx_vmlist *l,
		  const char *cols, const char *name, bool stranded_only,
		  uint64_t min_size)
{
	const char *cells[NX_MAX_SPEC];
	struct vma_rows r;

	if (vmas_init(t, &r, l, cols, name, stranded_only, min_size))
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		memset(cells, 0, sizeof(cells));
		if (vma_cells(&r, i, cells))
			nx_table_row(t, cells);
	}
	return 0;
}

/* the VMAs --stranded, --min-size and -z leave: none is said, not silence */
static void say_if_none(const struct nx_vmlist *l, bool stranded_only, uint64_t min_size)
{
	char sz[32], what[160];

	for (size_t i = 0; i < l->n; i++) {
		const struct nx_vma *v = &l->v[i];

		if ((!stranded_only || !strcmp(v->verdict, "stranded")) &&
		    v->end - v->start >= min_size &&
		    (!vnonzero || (v->in_numa_maps && v->fast_bytes + v->slow_bytes)))
			return;
	}
	if (!stranded_only && !min_size && !vnonzero)
		return;
	nx_human_size(min_size, sz, sizeof(sz));
	snprintf(what, sizeof(what), "%s%s%s%s%s", stranded_only ? " is stranded" : "",
		 stranded_only && (min_size || vnonzero) ? " and" : "",
		 min_size ? " is at least " : "", min_size ? sz : "",
		 vnonzero ? (stranded_only || min_size ? " and has memory resident" :
			     " has memory resident") : "");
	nx_warn("no VMA of %d%s (of %zu VMAs)", (int)l->pid, what, l->n);
}

/* cmd_vmas: big tables stream out in chunks (nx_table_emit) */
static int vmas_print(const struct nx_vmlist *l, const char *cols,
		      bool stranded_only, uint64_t min_size)
{
	struct nx_table t;
	struct vma_rows r;
	char fl[512];

	if (vmas_init(&t, &r, l, cols, "vmas", stranded_only, min_size)) {
		nx_table_free(&t);
		return -1;
	}
	/* per-process filters: the effective ones of the mm line */
	nx_pf_mm_line(&l->mm, fl, sizeof(fl));
	if (fl[0] && nx_opt.json) {
		nx_pf_vmas_json(&l->mm, &t, l->n, vma_cells, &r, stdout);
	} else {
		if (fl[0] && !nx_opt.noheadings)
			printf("filters: %s\n", fl);
		nx_table_emit(&t, stdout, l->n, vma_cells, &r);
	}
	nx_table_free(&t);
	return 0;
}

static const char *const sort_keys[] = { "start", "size", "slow", "fast", "seqs", "scans" };
static int sort_key;
static uint64_t sort_scan_seq;

static uint64_t key_of(const struct nx_vma *v)
{
	switch (sort_key) {
	case 1: return v->end - v->start;
	case 2: return v->slow_bytes;
	case 3: return v->fast_bytes;
	case 4: return v->in_numab ? nx_seqs_since(sort_scan_seq, v->nv.prev_seq) : 0;
	case 5: return v->nv.scans;
	default: return v->start;
	}
}

/* start sorts ascending, everything else descending (largest first) */
static int cmp_sort(const void *a, const void *b)
{
	uint64_t x = key_of(a), y = key_of(b);
	int c = x < y ? -1 : x > y;

	return sort_key ? -c : c;
}

static void vmas_usage(FILE *out)
{
	fputs("Usage: numabctl vmas [OPTIONS] PID...\n"
	      "       numabctl vmas [OPTIONS] -p PATTERN [PID...]\n\n"
	      "One row per VMA of PID, joining /proc/PID/numa_vmas with numa_maps and\n"
	      "maps: residency per tier, scan state and a verdict.  A VMA is 'stranded'\n"
	      "when it has pages on a slow tier and a filter skips it, it was never\n"
	      "scanned, or its last full scan is --stale sequences old.\n\n"
	      "  -s, --stranded      only stranded VMAs\n"
	      "  -p, --process PAT   the processes whose name (comm) matches PAT, an\n"
	      "                      extended regex, or PID if PAT is a number (as\n"
	      "                      numastat -p); with several processes a PID column\n"
	      "                      comes first (PID may also be self)\n"
	      "  -N, --per-node      a column per node (N0, N1, ...) after SLOW%\n"
	      "  -z, --nonzero       leave out VMAs with nothing resident\n"
	      "  -m, --min-size SIZE only VMAs of at least SIZE (1.5M, 64K, 1G, ...)\n"
	      "  -x, --sort COL      sort by a column: START (the default) lowest first;\n"
	      "                      SIZE, SLOW, FAST, SEQS, SCANS largest first; any\n"
	      "                      other column ascending\n"
	      "      --stale N       sequences without a scan that make a VMA stranded\n"
	      "                      (default 4)\n"
	      NX_BACKEND_HELP, out);
	/* the --output-all order: PID first, the node columns after SLOW% */
	fputs("\nAvailable output columns (-o COL,... or -o +COL to add):\n"
	      "          PID  the process (a column of its own with several, -p)\n", out);
	for (size_t i = 0; i < nx_vma_ncols; i++) {
		fprintf(out, " %12s  %s\n", nx_vma_cols[i].name, nx_vma_cols[i].help);
		if (i == VC_SLOWPCT)
			fputs("  N0, N1, ...  resident on that node, a column per node (-N)\n", out);
	}
}

/* does a column list name a node column (N0, N1, ...)? */
static bool names_node(const char *s)
{
	for (const char *p = s; p && *p; p++)
		if ((p == s || p[-1] == ',' || p[-1] == '+') && (*p == 'N' || *p == 'n') &&
		    p[1] >= '0' && p[1] <= '9')
			return true;
	return false;
}

/* the rows of several processes, one after the other: nx_row_fn of vmas_multi */
struct multi_rows {
	struct vma_rows r;
	struct nx_vmlist *l;	/* the processes read */
	size_t nl;
	size_t cur, base;	/* l[cur] has rows base, base + 1, ... */
};

/* rows are asked for in order, once to measure, then to print */
static bool multi_cells(void *priv, size_t i, const char **cells)
{
	struct multi_rows *m = priv;

	if (i < m->base)
		m->cur = m->base = 0;
	while (i - m->base >= m->l[m->cur].n)
		m->base += m->l[m->cur++].n;
	if (m->r.l != &m->l[m->cur]) {
		m->r.l = &m->l[m->cur];
		snprintf(m->r.pid, sizeof(m->r.pid), "%d", (int)m->r.l->pid);
	}
	return vma_cells(&m->r, i - m->base, cells);
}

/*
 * Several processes (numastat -p): one table with a PID column, the rows
 * of each process in its order, streamed as one process's are (the same
 * work per row).  A process that cannot be read is reported and left out;
 * the exit status is its error.
 */
static int vmas_multi(const struct nx_pidlist *pl, const struct nx_topo *topo,
		      unsigned int stale, bool stranded, uint64_t min_size)
{
	struct multi_rows m = { .nl = 0 };
	struct nx_table t = { .tb = NULL }, ft;
	size_t rows = 0;
	int ret = NX_OK, e;
	/* per-process filters: a line (text) or a table (-J) per process */
	char *flines = NULL, fl[512];
	size_t flen = 0;
	FILE *fmem = nx_opt.json || nx_opt.noheadings ? NULL : open_memstream(&flines, &flen);
	bool fany = false, fjson = nx_opt.json && !nx_pf_multi_init(&ft);

	m.l = calloc(pl->n ? pl->n : 1, sizeof(*m.l));
	if (!m.l || vmas_init(&t, &m.r, NULL, nx_opt.columns, "vmas", stranded, min_size)) {
		ret = m.l ? NX_EUSAGE : NX_ERUNTIME;
		goto out;
	}
	for (size_t p = 0; p < pl->n; p++) {
		struct nx_vmlist *l = &m.l[m.nl];

		e = nx_vmlist_load(l, pl->p[p], topo, stale);
		if (e) {
			ret = ret ? ret : e;
			continue;
		}
		m.nl++;
		if (!p)
			nx_vmlist_warn(l);
		if (sort_key) {
			sort_scan_seq = l->mm.scan_seq;
			qsort(l->v, l->n, sizeof(*l->v), cmp_sort);
		}
		rows += l->n;
		if (fjson)
			fany |= nx_pf_multi_add(&ft, pl->p[p], &l->mm);
		nx_pf_mm_line(&l->mm, fl, sizeof(fl));
		if (fmem && fl[0])
			fprintf(fmem, "filters %d: %s\n", (int)pl->p[p], fl);
	}
	if (fmem && !fclose(fmem) && flen)
		fputs(flines, stdout);
	fmem = NULL;
	if (fany ? nx_pf_multi_vmas_json(&ft, &t, rows, multi_cells, &m, stdout) :
		   nx_table_emit(&t, stdout, rows, multi_cells, &m))
		ret = ret ? ret : NX_ERUNTIME;
out:
	for (size_t p = 0; p < m.nl; p++)
		nx_vmlist_free(&m.l[p]);
	free(m.l);
	if (fjson)
		nx_table_free(&ft);
	nx_table_free(&t);
	if (fmem)
		fclose(fmem);
	free(flines);
	return ret;
}

int cmd_vmas(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "stranded", no_argument, NULL, 's' },
		{ "min-size", required_argument, NULL, 'm' },
		NX_PROCESS_LONGOPTS,
		{ "per-node", no_argument, NULL, 'N' },
		{ "nonzero", no_argument, NULL, 'z' },
		NX_BACKEND_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	bool stranded = false, per_node = false, sorted = false;
	uint64_t min_size = 0, stale = 4;
	struct nx_pidlist pl = { NULL, 0, 0 };
	const char *pats[16];
	size_t npats = 0;
	struct nx_vmlist l;
	struct nx_topo topo;
	pid_t pid;
	int c, r, perr = NX_OK;

	sort_key = 0;
	nx_opt.sort = NULL;
	vnonzero = false;
	while ((c = getopt_long(argc, argv, ":sm:p:Nz" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 's': stranded = true; break;
		case 'N': per_node = true; break;
		case 'z': vnonzero = true; break;
		case 'p':
			if (nx_add_pattern(pats, &npats, sizeof(pats) / sizeof(pats[0]), optarg))
				return NX_EUSAGE;
			break;
		case 'm':
			if (nx_parse_size(optarg, strlen(optarg), &min_size))
				return nx_usage_error("invalid --min-size '%s': a size in bytes up to "
						      "2^64-1, with a K, M, G, T, P or E suffix (KiB; "
						      "KB for 1000), a fraction before it (1.5M)",
						      optarg);
			break;
		case 'x':	/* these columns sort largest first (start: lowest) */
			sorted = true;
			sort_key = -1;
			nx_opt.sort = optarg;
			for (size_t i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
				if (!strcasecmp(optarg, sort_keys[i]))
					sort_key = (int)i;
			if (sort_key >= 0)
				nx_opt.sort = NULL;	/* not libsmartcols' ascending sort */
			else
				sort_key = 0;
			break;
		case 'T':
			if (nx_parse_stale(optarg, &stale))
				return NX_EUSAGE;
			break;
		case NX_BACKEND_OPTS:
			if (nx_backend_opt_set(c, optarg))
				return NX_EUSAGE;
			break;
		default:
			r = nx_opt_other(c, optarg, vmas_usage);
			if (r >= 0)
				return r;
		}
	}
	if (nx_backend_dump()) {	/* numa_vmas' format: one process, no table options */
		const char *o = nx_opt.json ? "-J" : nx_opt.raw ? "-r" : nx_opt.pairs ? "-P" :
				nx_opt.columns ? "-o" : nx_opt.all_columns ? "--output-all" :
				sorted ? "-x" : nx_opt.noheadings ? "-n" :
				per_node ? "-N" : nx_opt.list_columns ? "-H" : NULL;

		if (o)
			return nx_usage_error("--numa-vmas prints numa_vmas' own format: %s "
					      "cannot be used with it", o);
		if (npats || optind + 1 < argc)
			return nx_usage_error("--numa-vmas prints the scan state of one process: "
					      "give one PID, not -p or several");
		nx_backend_dump_filter(stranded, min_size, vnonzero);
	}
	if (nx_topo_load(&topo))
		return NX_ERUNTIME;
	/* one operand and no -p: the table streams; else one row set per process */
	vmas_spec(&topo, optind + 1 != argc || npats, per_node);
	if (per_node && nx_opt.columns && *nx_opt.columns && *nx_opt.columns != '+')
		nx_opt.columns = with_nodes(nx_opt.columns);
	r = nx_opts_done(vspec, vnspec);
	/* per-node bytes cost a pass over each numa_maps line: only if shown */
	nx_vmlist_nodes = per_node || names_node(nx_opt.columns) || names_node(nx_opt.sort);
	if (r < 0 && optind >= argc && !npats)
		r = nx_usage_error("no PID given (or -p PATTERN)");
	for (int i = optind; r < 0 && i < argc; i++)
		if (nx_parse_pid(argv[i], &pid))
			r = NX_EUSAGE;
		else if (nx_pidlist_add(&pl, pid))
			r = NX_ERUNTIME;
	/* every pattern: one without a match or with unreadable matches is said,
	 * the others printed, and the first such error is the exit status */
	for (size_t i = 0; r < 0 && i < npats; i++) {
		int e = nx_match_processes(pats[i], &pl, NULL);

		if (e == NX_EUSAGE || e == NX_ERUNTIME)
			r = e;
		else if (e && !perr)
			perr = e;
	}
	if (r < 0 && npats && !pl.n)
		r = perr;
	if (r < 0 && (pl.n > 1 || npats)) {
		if (npats)
			nx_pidlist_sort(&pl);
		r = vmas_multi(&pl, &topo, (unsigned int)stale, stranded, min_size);
		if (!r)
			r = perr;
	}
	if (r >= 0) {
		free(pl.p);
		nx_topo_free(&topo);
		return r;
	}
	pid = pl.p[0];
	free(pl.p);
	r = nx_vmlist_load(&l, pid, &topo, (unsigned int)stale);
	nx_topo_free(&topo);
	if (r)
		return r;
	if (nx_vmas_backend_done(&l)) {	/* --numa-vmas: printed */
		nx_vmlist_free(&l);
		return NX_OK;
	}
	nx_vmlist_warn(&l);
	if (sort_key) {
		sort_scan_seq = l.mm.scan_seq;
		qsort(l.v, l.n, sizeof(*l.v), cmp_sort);
	}
	r = vmas_print(&l, nx_opt.columns, stranded, min_size);
	say_if_none(&l, stranded, min_size);
	nx_vmlist_free(&l);
	return r ? NX_EUSAGE : NX_OK;
}
