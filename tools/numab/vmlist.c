// SPDX-License-Identifier: GPL-2.0
/*
 * One process's VMAs: /proc/<pid>/maps joined with numa_maps and numa_vmas
 * by start address.  maps and numa_maps are streamed into arrays, sorted if
 * the kernel did not already emit them in order and merged in one linear
 * pass; numa_vmas lines are looked up (binary search) as they are read.
 */
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numabctl.h"
#include "backend.h"

struct loader {
	struct nx_vmlist *l;
	const struct nx_topo *topo;
	size_t cap_v;
	bool append;		/* maps had no VMA: numa_vmas provides the rows */
	bool nv_sorted;		/* numa_vmas lines came in address order */
	size_t pos;		/* find_start(): the row of the last line */
	uint64_t nv_last;
	unsigned long bad, first_bad;
};

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	void *p;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	p = realloc(*arr, nc * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

/* one shared copy of the name most VMAs have (numa_vmas "anon") */
static char anon_name[] = "anon";

static char *span_dup(struct nx_span s)
{
	char *buf;

	if (!s.p || !s.n)
		return NULL;
	if (s.n == 4 && !memcmp(s.p, "anon", 4))
		return anon_name;
	buf = malloc(s.n + 1);
	if (buf)
		nx_unescape(s, buf, s.n + 1);
	return buf;
}

static void name_free(char *name)
{
	if (name != anon_name)
		free(name);
}

static void bad_line(struct loader *ld, unsigned long no)
{
	if (!ld->bad++)
		ld->first_bad = no;
	ld->l->bad_lines++;
}

static int maps_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct loader *ld = priv;
	struct nx_vmlist *l = ld->l;
	struct nx_maps_entry e;
	struct nx_vma *v;

	if (nx_parse_maps_line(line, len, &e)) {
		bad_line(ld, no);
		return 0;
	}
	if (grow((void **)&l->v, &ld->cap_v, l->n, sizeof(*l->v)))
		return -ENOMEM;
	v = &l->v[l->n++];
	memset(v, 0, sizeof(*v));
	v->start = e.start;
	v->end = e.end;
	memcpy(v->perms, e.perms, sizeof(v->perms));
	v->name = span_dup(e.path);
	v->in_maps = true;
	return 0;
}

/* first VMA starting at or after @start (l->v is sorted) */
static size_t lower_bound(const struct nx_vmlist *l, uint64_t start)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * lower_bound() for numa_vmas lines in address order, the kernel's: walk
 * on from the last line's row, and search only when a line goes back.
 */
static size_t find_start(struct loader *ld, uint64_t start)
{
	const struct nx_vmlist *l = ld->l;
	size_t i = ld->pos;

	if (i > l->n || (i > 0 && l->v[i - 1].start >= start))
		i = lower_bound(l, start);
	else
		while (i < l->n && l->v[i].start < start)
			i++;
	ld->pos = i;
	return i;
}

/* bytes of @pages pages of @kb KiB, saturated: a bad count must not wrap */
static uint64_t page_bytes(uint64_t pages, uint64_t kb)
{
	return pages > UINT64_MAX / 1024 / kb ? UINT64_MAX : pages * kb * 1024;
}

bool nx_vmlist_nodes;

/* the N<node>=<pages> of a numa_maps line, per node of @topo (numastat's columns) */
static uint64_t *node_bytes(const struct nx_topo *topo, const char *line, size_t len,
			    uint64_t kb)
{
	uint64_t *b = calloc(topo->nnodes + 1, sizeof(*b)), id, pages;
	const char *p = line, *end = line + len;
	struct nx_kv kv;

	while (b && nx_kv_next(&p, end, &kv)) {
		if (!kv.val.p || kv.key.n < 2 || kv.key.p[0] != 'N' ||
		    nx_parse_u64(kv.key.p + 1, kv.key.n - 1, 10, &id) ||
		    nx_parse_u64(kv.val.p, kv.val.n, 10, &pages))
			continue;
		for (size_t i = 0; i < topo->nnodes; i++)
			if ((uint64_t)topo->nodes[i].id == id)
				b[i] = page_bytes(pages, kb);
	}
	return b;
}

/*
 * numa_maps line: straight into the rows with its start (the first line
 * for a start wins; its name goes to the first row without one).
 */
static int numa_maps_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct loader *ld = priv;
	struct nx_vmlist *l = ld->l;
	struct nx_numa_maps_entry e;
	bool named = false;

	if (nx_parse_numa_maps_line(line, len, &ld->topo->slow, &e)) {
		bad_line(ld, no);
		return 0;
	}
	for (size_t i = find_start(ld, e.start); i < l->n && l->v[i].start == e.start; i++) {
		struct nx_vma *v = &l->v[i];
		uint64_t fast = page_bytes(e.pages_fast, e.pagesize_kb);
		uint64_t slow = page_bytes(e.pages_slow, e.pagesize_kb);

		if (v->in_numa_maps)
			continue;
		/* more pages than the VMA holds: a malformed line, not 16E */
		if (fast > v->end - v->start || slow > v->end - v->start - fast) {
			bad_line(ld, no);
			return 0;
		}
		v->in_numa_maps = true;
		v->fast_bytes = fast;
		v->slow_bytes = slow;
		if (nx_vmlist_nodes && !v->node_bytes)
			v->node_bytes = node_bytes(ld->topo, line, len, e.pagesize_kb);
		if (!v->name && !named) {
			v->name = span_dup(e.name);
			named = true;
		}
	}
	return 0;
}

/* numa_vmas VMA line: into the rows of maps, or a new row without maps */
static int add_numab(struct loader *ld, const struct nx_numab_vma *nv)
{
	struct nx_vmlist *l = ld->l;
	struct nx_vma *v;

	if (!ld->append) {
		for (size_t i = find_start(ld, nv->start);
		     i < l->n && l->v[i].start == nv->start; i++) {
			v = &l->v[i];
			if (v->in_numab)
				continue;	/* the first line for a start wins */
			v->in_numab = true;
			v->nv = *nv;
			if (!v->name)
				v->name = span_dup(nv->name);
			v->nv.name.p = NULL;
			v->nv.name.n = 0;
		}
		return 0;
	}
	if (grow((void **)&l->v, &ld->cap_v, l->n, sizeof(*l->v)))
		return -ENOMEM;
	v = &l->v[l->n++];
	memset(v, 0, sizeof(*v));
	v->start = nv->start;
	v->end = nv->end;
	strcpy(v->perms, "----");
	v->name = span_dup(nv->name);
	v->in_numab = true;
	v->nv = *nv;
	v->nv.name.p = NULL;
	v->nv.name.n = 0;
	return 0;
}

static int numa_vmas_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct loader *ld = priv;
	struct nx_numab_mm mm;
	struct nx_numab_vma v;
	int t = nx_parse_numa_vmas_line(line, len, &mm, &v);

	if (t < 0) {
		bad_line(ld, no);
		return 0;
	}
	if (t == 1) {
		ld->l->mm = mm;
		return 0;
	}
	if (v.start < ld->nv_last)
		ld->nv_sorted = false;
	ld->nv_last = v.start;
	return add_numab(ld, &v);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_vma(const void *a, const void *b)
{
	return cmp_u64(((const struct nx_vma *)a)->start, ((const struct nx_vma *)b)->start);
}

/* sort only when needed: the kernel prints in address order */
#define SORT_IF_NEEDED(arr, n, key, cmp) do {				\
	for (size_t i_ = 1; i_ < (n); i_++)				\
		if ((arr)[i_ - 1].key > (arr)[i_].key) {		\
			qsort((arr), (n), sizeof(*(arr)), (cmp));	\
			break;						\
		}							\
} while (0)

/* snprintf() into @why if the caller wants the reason (@why not NULL) */
#define WHY(...) do { if (why) snprintf(why, sz, __VA_ARGS__); } while (0)

/*
 * A promotion-only scan that marked no page makes the next one wait 2,
 * then 4 sequences (NUMAB_PROMO_BACKOFF_MAX in the series), and a pass
 * that comes earlier skips the VMA as promo_backoff. Kernels that show
 * promo_backoff (the wait is 1 << promo_backoff sequences) also end the
 * wait once as many minimum scan periods have passed; on older ones the
 * wait is 2 or 4 sequences, which numa_vmas does not tell. A VMA whose
 * last skip was that wait is backing off: its slow-tier pages that no
 * scan has marked wait for the next promotion-only scan, due in sequence
 * promo_seq + the wait: in that sequence, at the pass that reaches the
 * VMA, which in a process paced by little CPU time comes seconds after the
 * sequence number moved. Returns that sequence (the later of the two where
 * the wait is not known), or -1 when the VMA is not waiting, or it cannot
 * be told: no promo_seq, or a full scan since the last promotion-only one
 * (last_skip is only written on a skip, so it may be older than that
 * scan).
 */
#define NX_PROMO_BACKOFF_SEQS 4

static unsigned int backoff_seqs(const struct nx_numab_vma *n)
{
	/* a value past the series' longest wait is taken as that wait */
	if ((n->have & NV_HAVE_PROMO_BACKOFF) &&
	    n->promo_backoff < 32 && (1u << n->promo_backoff) <= NX_PROMO_BACKOFF_SEQS)
		return 1u << n->promo_backoff;
	return NX_PROMO_BACKOFF_SEQS;
}

static int64_t backoff_until(const struct nx_numab_vma *n, const struct nx_vmlist *l)
{
	if (n->last_skip != NX_SYM_PROMO_BACKOFF || !(n->have & NV_HAVE_PROMO_SEQ) ||
	    !(l->mm.have & MM_HAVE_SEQ) ||
	    ((n->have & NV_HAVE_PREV_SEQ) && n->prev_seq > n->promo_seq) ||
	    nx_seqs_since(l->mm.scan_seq, n->promo_seq) > backoff_seqs(n))
		return -1;
	return (int64_t)n->promo_seq + backoff_seqs(n);
}

/*
 * Has a pass of the scanner begun in this mm? A task_numa_work() moves
 * scan_offset on or completes a sequence. A task scans once it has run
 * scan_delay_ms of CPU time of its own (task_tick_numa()): an idle process
 * never does, and what only it uses stays where it is. True when unknown.
 */
static bool scan_begun(const struct nx_numab_mm *mm)
{
	return !(mm->have & MM_HAVE_SEQ) || mm->scan_seq ||
	       !(mm->have & MM_HAVE_OFFSET) || mm->scan_offset;
}

/*
 * The verdict on @v, and into @why (NULL: not wanted; vmas prints it only
 * in the WHY column) the reason for it. @page_held, @backoff and @pid_held
 * (NULL: not wanted) say whether the page check holds its slow-tier memory,
 * a promotion-only backoff makes it wait, or the PID filter skipped it at
 * the last pass.
 */
static const char *judge(const struct nx_vma *v, const struct nx_vmlist *l,
			 char *why, size_t sz, bool *page_held, bool *backoff, bool *pid_held)
{
	const struct nx_numab_vma *n = &v->nv;
	bool slow = v->slow_bytes > 0, promo_recent;
	unsigned int stale = l->stale;
	uint64_t seqs;
	int64_t by;
	char filt[72] = "";

	if (why)
		why[0] = '\0';
	if (!l->have_numab || !v->in_numab) {
		WHY("%s", l->have_numab ? "not in numa_vmas" : "no numa_vmas");
		return "unknown";
	}
	if (n->filter == NX_SYM_UNCERTAIN) {
		WHY("filter uncertain: %s on a kernel whose vma_policy_mof() does not fall back "
		    "to the task policy for shmem, %s on one that does", nx_sym_str(n->maybe[0]), nx_sym_str(n->maybe[1]));
		return "unknown";
	}
	if (n->filter != NX_SYM_NONE && !nx_sym_promo_only(n->filter)) {
		WHY("filter=%s", nx_sym_str(n->filter));
		return slow ? "stranded" : "skipped";
	}
	if (n->state != NX_SYM_OK) {
		bool old = (l->mm.have & MM_HAVE_SEQ) && l->mm.scan_seq >= stale;

		if (!scan_begun(&l->mm)) {
			char cpu[64] = "";

			if (why && l->cpu_ms_max >= 0)	/* the text only when asked: per VMA */
				snprintf(cpu, sizeof(cpu), "; its busiest thread has run %ld ms",
					 l->cpu_ms_max);
			if (l->balancing_off)
				WHY("never scanned (state=%s): the process has not begun a scan "
				    "(scan_seq=0), and NUMA balancing is off", nx_sym_str(n->state));
			else
				WHY("never scanned (state=%s): the process has not begun a scan "
				    "(scan_seq=0), which a task does once it has run scan_delay_ms "
				    "of CPU time of its own%s", nx_sym_str(n->state), cpu);
		} else {
			WHY("never scanned (state=%s)", nx_sym_str(n->state));
		}
		return slow && old ? "stranded" : "unscanned";
	}
	seqs = (n->have & NV_HAVE_PREV_SEQ) ? nx_seqs_since(l->mm.scan_seq, n->prev_seq) : 0;
	/*
	 * A promotion-only scan leaves prev_seq alone: such a VMA is being
	 * scanned if its last promotion-only scan is recent (promo_seq), or,
	 * on kernels without promo_seq, if it has completed one or the last
	 * pass restricted it or waited after one (promo_backoff).
	 */
	if (n->have & NV_HAVE_PROMO_SEQ)
		promo_recent = nx_seqs_since(l->mm.scan_seq, n->promo_seq) < stale ||
			       backoff_until(n, l) >= 0;
	else
		promo_recent = n->promo_scans || nx_sym_promo_only(n->last_skip) ||
			       n->last_skip == NX_SYM_PROMO_BACKOFF;
	if (slow && seqs >= stale && !promo_recent) {
		char rel[128] = "";

		if (why && v->release_in >= 0)
			nx_release_text(v, l, rel, sizeof(rel));
		WHY("not scanned for %llu seqs%s%s%s%s", (unsigned long long)seqs,
		    n->last_skip ? ", last_skip=" : "", nx_sym_str(n->last_skip),
		    rel[0] ? "; " : "", rel);
		return "stranded";
	}
	if (slow && nx_pages_held(v)) {
		if (page_held)
			*page_held = true;
		WHY("scanned, but %u of %u sampled slow-tier pages are mapped by more than one "
		    "process: change_pte_range() skips them (%s)", v->pg_slow_shared, v->pg_slow,
		    l->pg_how);
		return "stranded";
	}
	/*
	 * The last skip recorded was the PID filter's, and no full scan came
	 * in this sequence (last_skip is written at a skip and never cleared:
	 * a VMA the forced retry scanned after the skip has prev_seq at the
	 * current sequence), but it is not stale: not stranded by that
	 * measure, yet in a process that completes few sequences (a busy
	 * server's forked workers on few CPUs) the memory stays where it is
	 * for as long as the filter's horizon. Said, not hidden behind "ok".
	 */
	if (slow && n->last_skip == NX_SYM_PID_INACTIVE && (n->have & NV_HAVE_PREV_SEQ) &&
	    seqs >= 1 && seqs < stale) {
		char rel[128] = "", last[64];

		if (pid_held)
			*pid_held = true;
		if (why && v->release_in >= 0)
			nx_release_text(v, l, rel, sizeof(rel));
		if (!why)
			last[0] = '\0';
		else if ((n->have & NV_HAVE_SCANS) && !n->scans)
			snprintf(last, sizeof(last), "not scanned in full yet");
		else
			snprintf(last, sizeof(last), "last scanned in full %llu seqs ago",
				 (unsigned long long)seqs);
		WHY("last skipped by the PID filter (last_skip=pid_inactive), %s: stranded if "
		    "that reaches %u seqs%s%s", last, stale, rel[0] ? "; " : "", rel);
		return "ok";
	}
	if (why && nx_sym_promo_only(n->filter))
		snprintf(filt, sizeof(filt), " (filter=%s)", nx_sym_str(n->filter));
	by = backoff_until(n, l);
	if (slow && by >= 0) {
		char about[48] = "";

		if (backoff)
			*backoff = true;
		if (why && l->sec_per_seq > 0) {
			char d[32];

			nx_fmt_duration((double)(by - (int64_t)l->mm.scan_seq) * l->sec_per_seq,
					d, sizeof(d));
			snprintf(about, sizeof(about), ", at most about %s", d);
		}
		if (n->have & NV_HAVE_PROMO_BACKOFF)
			WHY("scanned promotion-only%s, backing off: the last such scan (seq %lld) "
			    "marked no page, the next is due in seq %lld or once %u minimum scan "
			    "periods have passed, whichever comes first (now %llu%s)", filt,
			    (long long)n->promo_seq, (long long)by, backoff_seqs(n),
			    (unsigned long long)l->mm.scan_seq, about);
		else
			WHY("scanned promotion-only%s, backing off: the last such scan (seq %lld) "
			    "marked no page, the next is due in seq %lld or %lld (now %llu%s)", filt,
			    (long long)n->promo_seq, (long long)by - 2, (long long)by,
			    (unsigned long long)l->mm.scan_seq, about);
		return "ok";
	}
	if (filt[0])
		WHY("scanned promotion-only%s", filt);
	return "ok";
}

void nx_vma_why(const struct nx_vma *v, const struct nx_vmlist *l, char *buf, size_t sz)
{
	judge(v, l, buf, sz, NULL, NULL, NULL);
}

const char *nx_vma_verdict(const struct nx_vma *v, const struct nx_vmlist *l)
{
	return judge(v, l, NULL, 0, NULL, NULL, NULL);
}

void nx_vma_judge(struct nx_vma *v, const struct nx_vmlist *l)
{
	v->pg_held = v->backoff = v->pid_held = false;
	v->verdict = judge(v, l, NULL, 0, &v->pg_held, &v->backoff, &v->pid_held);
}

void nx_vmlist_totals(const struct nx_vmlist *l, uint64_t *fast, uint64_t *slow,
		      uint64_t *stranded)
{
	*fast = *slow = *stranded = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct nx_vma *v = &l->v[i];

		*fast += v->fast_bytes;
		*slow += v->slow_bytes;
		if (!strcmp(v->verdict, "stranded"))
			*stranded += v->slow_bytes;
	}
}

const char *nx_vma_holder(const struct nx_vma *v)
{
	const struct nx_numab_vma *n = &v->nv;

	if (!v->in_numab)
		return "unknown";
	/*
	 * scanned: nothing holds it; a promotion-only filter is named, or
	 * what makes it wait (a backoff, the PID filter's last skip)
	 */
	if (v->verdict && !strcmp(v->verdict, "ok"))
		return v->backoff ? "promo_backoff" : v->pid_held ? "pid" : nx_sym_str(n->filter);
	if (n->filter != NX_SYM_NONE && !nx_sym_promo_only(n->filter))
		return nx_sym_str(n->filter);	/* shared_ro, inaccessible, ... */
	if (v->pg_held)
		return "shared_folio";
	if (n->filter != NX_SYM_NONE)
		return nx_sym_str(n->filter);	/* *_promo_only */
	if (n->last_skip == NX_SYM_PID_INACTIVE_PROMO)
		return "pid_promo_only";
	if (n->last_skip == NX_SYM_PID_INACTIVE || v->release_in >= 0)
		return "pid";
	if (n->last_skip == NX_SYM_SCAN_DELAY)
		return "scan_delay";
	return "none";
}

/*
 * What holds slow-tier memory and what to do about it, by verdict and
 * holder (nx_vma_holder()); a NULL holder: any.  One line each: report
 * prints it under its "Slow-tier memory by cause" table.
 */
#define PROMO_STALE_TEXT "scanned for promotion only, but not even such a scan came for " \
	"--stale sequences: `numabctl trace PID` (root) records why"

static const struct {
	const char *verdict, *holder, *text;
} cause_texts[] = {
	{ "stranded", "pid", "the PID filter skips VMAs no thread took a hinting fault in lately, "
	  "and an unscanned VMA takes none: `numabctl filter pid=tier` on a numab kernel (its "
	  "default; `numabctl filter --pid PID pid=tier` for this process only)" },
	{ "stranded", "shared_ro", "read-only file mappings (program text, libraries) are not "
	  "scanned: `numabctl filter shared_ro=tier` with kernel.numa_balancing=2 (numab's "
	  "default; `numabctl filter --pid PID shared_ro=tier` for this process only)" },
	{ "stranded", "scan_delay", "the scan delay of new VMAs keeps it waiting: "
	  "`numabctl filter scan_delay=off` (`numabctl filter --pid PID scan_delay=off` for "
	  "this process only)" },
	{ "stranded", "unsuitable", "the kernel never migrates this mapping by NUMA balancing "
	  "(VM_IO/VM_PFNMAP, hugetlb, DAX, or a memory policy without MPOL_F_MOF): no filter "
	  "lifts it; migratepages(8) or another memory policy moves it" },
	{ "stranded", "inaccessible", "a PROT_NONE mapping is never scanned and no filter lifts "
	  "it: its pages move once mprotect() makes it accessible and a scan passes" },
	{ "stranded", "shared_folio", "scanned, but its pages on the slow tier are mapped by "
	  "more than one process (a copy-on-write heap shared with a forked child, program "
	  "text run by several processes), and change_pte_range() never marks such a page "
	  "of a private mapping: `numabctl filter shared_folio=tier` with "
	  "kernel.numa_balancing=2 on a numab kernel (its default; `numabctl filter --pid "
	  "PID shared_folio=tier` for this process only)" },
	{ "stranded", "none", "not scanned for --stale sequences and no filter names why: WHY "
	  "in the VMA table has the last skip reason; `numabctl trace PID` (root) records them" },
	{ "stranded", "shared_ro_promo_only", PROMO_STALE_TEXT },
	{ "stranded", "pid_promo_only", PROMO_STALE_TEXT },
	{ "stranded", NULL, "a filter this numabctl does not know skips it: `numabctl filter` "
	  "lists the filters, `numabctl trace PID` (root) records the skip reasons" },
	{ "unscanned", NULL, "not visited by the scanner yet (state=none) and the process has "
	  "run fewer than --stale scan sequences: not stranded yet; look again later. A "
	  "process that has not begun a scan (WHY says so) scans once one of its threads "
	  "has run scan_delay_ms of CPU time: an idle one never does" },
	{ "unknown", "uncertain", "shmem whose filter depends on this kernel's vma_policy_mof(): "
	  "`numabctl trace PID` as root, once per boot, learns which" },
	{ "unknown", NULL, "no scan state (no /proc/PID/numa_vmas, no BPF backend): whether the "
	  "scanner visits it is unknown; use a kernel with the numab series, or run as root "
	  "with the BPF backend" },
	{ "ok", "promo_backoff", "scanned for promotion only, but the last promotion-only "
	  "scan marked no page, so the next waits 2 or 4 scan sequences (WHY in the VMA "
	  "table says until which), or on kernels that show promo_backoff as many minimum "
	  "scan periods if that ends first: slow-tier pages no scan has marked (moved there "
	  "since) become candidates for promotion only then, late in a process that "
	  "completes few sequences (its scan is paced by its threads' own CPU time) on "
	  "kernels without that bound" },
	{ "ok", "pid", "scanned in full within --stale sequences, but the PID filter skipped it "
	  "since (no thread took a hinting fault in it lately, and only a scan makes one): "
	  "in a process that completes few sequences (a busy server's forked workers on few "
	  "CPUs) its slow-tier memory stays there as long as stranded memory would: "
	  "`numabctl filter pid=tier` with kernel.numa_balancing=2 or 3 on a numab kernel "
	  "(its default; `numabctl filter --pid PID pid=tier` for this process only)" },
	{ "ok", "none", "scanned: its slow-tier pages are promoted when touched after a scan "
	  "marked them (while the fast tier is short of free memory, only those touched within "
	  "the hot threshold of the scan and under kernel.numa_balancing_promote_rate_limit_MBps); "
	  "what stays there was not touched since, or was mapped or moved there "
	  "after the last scan sequence and waits for the next (sequences are paced by the "
	  "process's own CPU time: scan_seq counts them)" },
	{ "ok", NULL, "scanned for promotion only: its slow-tier pages are promoted when "
	  "touched after a scan marked them (while the fast tier is short of free memory, only "
	  "those touched within the hot threshold of the scan and under the promotion rate "
	  "limit); nothing to do" },
};

const char *nx_cause_text(const char *verdict, const char *holder)
{
	for (size_t i = 0; i < sizeof(cause_texts) / sizeof(cause_texts[0]); i++)
		if (!strcmp(cause_texts[i].verdict, verdict) &&
		    (!cause_texts[i].holder || !strcmp(cause_texts[i].holder, holder)))
			return cause_texts[i].text;
	return "see the verdicts in numabctl(8)";
}

/* stranded first, then the most slow memory; verdict and holder break ties */
static int cmp_cause(const void *a, const void *b)
{
	const struct nx_cause *x = a, *y = b;
	bool xs = !strcmp(x->verdict, "stranded"), ys = !strcmp(y->verdict, "stranded");
	int c;

	if (xs != ys)
		return xs ? -1 : 1;
	if (x->slow != y->slow)
		return x->slow > y->slow ? -1 : 1;
	c = strcmp(x->verdict, y->verdict);
	return c ? c : strcmp(x->holder, y->holder);
}

int nx_slow_causes(const struct nx_vmlist *l, struct nx_cause **causes, size_t *n)
{
	struct nx_cause *c = NULL;
	size_t nc = 0, cap = 0;

	*causes = NULL;
	*n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct nx_vma *v = &l->v[i];
		const char *holder;
		struct nx_cause *g = NULL;
		size_t k;

		if (!v->slow_bytes)
			continue;
		holder = nx_vma_holder(v);
		for (k = 0; k < nc && !g; k++)
			if (!strcmp(c[k].verdict, v->verdict) && !strcmp(c[k].holder, holder))
				g = &c[k];
		if (!g) {
			if (grow((void **)&c, &cap, nc, sizeof(*c))) {
				free(c);
				return -ENOMEM;
			}
			g = &c[nc++];
			memset(g, 0, sizeof(*g));
			g->verdict = v->verdict;
			g->holder = holder;
		}
		g->slow += v->slow_bytes;
		g->nvmas++;
		/* insert into the largest NX_CAUSE_TOP; the earlier VMA wins a tie */
		for (k = g->ntop; k > 0 && l->v[g->top[k - 1]].slow_bytes < v->slow_bytes; k--)
			if (k < NX_CAUSE_TOP)
				g->top[k] = g->top[k - 1];
		if (k < NX_CAUSE_TOP) {
			g->top[k] = i;
			if (g->ntop < NX_CAUSE_TOP)
				g->ntop++;
		}
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cmp_cause);
	*causes = c;
	*n = nc;
	return 0;
}

static int load_optional(struct loader *ld, pid_t pid, const char *file,
			 nx_line_fn fn, bool *have)
{
	char path[4096], status[4096];
	int r;

	nx_path(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	nx_path(status, sizeof(status), "/proc/%d/status", (int)pid);
	ld->bad = 0;
	ld->pos = 0;	/* find_start() walks each file from the first row */
	r = nx_for_each_line(path, fn, ld);
	if (r == -ENOENT && nx_exists(status))
		return NX_OK;	/* the kernel does not have this file */
	if (r)	/* also ENOENT/ESRCH when the process exited meanwhile */
		return r == -ENOMEM ? NX_ERUNTIME : nx_pid_error(pid, path, r);
	if (ld->bad)
		nx_warn("%s: %lu malformed line(s) ignored (first: line %lu)",
			path, ld->bad, ld->first_bad);
	*have = true;
	return NX_OK;
}

static void set_missing(struct nx_vmlist *l, pid_t pid)
{
	if (!l->have_numa_maps && !l->have_numab)
		snprintf(l->missing, sizeof(l->missing),
			 "no /proc/%d/numa_maps or numa_vmas: kernel built without "
			 "CONFIG_NUMA_BALANCING/CONFIG_NUMA; showing address ranges only",
			 (int)pid);
	else if (!l->have_numab)
		snprintf(l->missing, sizeof(l->missing),
			 "no /proc/%d/numa_vmas: kernel lacks the numab scan-state ABI; "
			 "showing residency from numa_maps, verdict unknown%s%s", (int)pid,
			 l->backend_note[0] ? "; " : "", l->backend_note);
}

/* a record of the BPF backend (backend.c): numa_vmas_line() without text */
static int bpf_record(void *priv, const struct nx_numab_mm *mm, const struct nx_numab_vma *v)
{
	struct loader *ld = priv;

	if (mm) {
		ld->l->mm = *mm;
		return 0;
	}
	if (v->start < ld->nv_last)
		ld->nv_sorted = false;
	ld->nv_last = v->start;
	return add_numab(ld, v);
}

/*
 * The scan state: numa_vmas when the file exists; else the BPF iterator
 * when the kernel has BTF and we may load BPF; else none (degraded).
 * --backend forces one.
 */
static int load_scan_state(struct loader *ld, pid_t pid)
{
	struct nx_vmlist *l = ld->l;
	struct nx_bpf_info info;
	char path[4096], why[200] = "";
	int want = nx_backend_opt, r;
	double t0 = nx_now();

	nx_path(path, sizeof(path), "/proc/%d/numa_vmas", (int)pid);
	if (want == NX_BACKEND_AUTO)
		want = nx_exists(path) ? NX_BACKEND_NUMA_VMAS :
		       nx_bpf_usable(why, sizeof(why)) ? NX_BACKEND_NONE : NX_BACKEND_BPF;
	l->backend = want;
	if (want == NX_BACKEND_NUMA_VMAS) {
		r = load_optional(ld, pid, "numa_vmas", numa_vmas_line, &l->have_numab);
		l->state_seconds = nx_now() - t0;
		if (r || l->have_numab)
			return r;
		l->backend = NX_BACKEND_NONE;
		if (nx_backend_opt != NX_BACKEND_NUMA_VMAS)
			return NX_OK;
		nx_warn("--backend numa_vmas: no %s: the kernel lacks the numab series", path);
		return NX_ENOTSUP;
	}
	if (want == NX_BACKEND_NONE) {
		/* under --sysroot the BPF backend is no option: say nothing */
		if (nx_backend_opt == NX_BACKEND_AUTO && !nx_opt.sysroot[0])
			snprintf(l->backend_note, sizeof(l->backend_note),
				 "no BPF backend: %s", why);
		return NX_OK;
	}
	r = nx_bpf_read(pid, bpf_record, ld, &info, why, sizeof(why));
	l->state_seconds = nx_now() - t0;
	if (!r) {
		l->have_numab = true;
		nx_shmem_resolve(l);	/* filters that depend on the kernel's vma_policy_mof() */
		l->nr_threads = (long)info.nr_threads;
		l->scan_period_ms = (long)info.scan_period_ms;
		l->scan_period_tid = info.tid;
		l->next_hz_unknown = !info.hz;
		snprintf(l->bpf_timing, sizeof(l->bpf_timing), ": load %.6f s%s, walk %.6f s",
			 info.load_seconds, info.cached ? " from the cache" : "", info.seconds);
		snprintf(l->backend_note, sizeof(l->backend_note),
			 "scan state from the BPF task_vma iterator (no /proc/%d/numa_vmas)%s%s",
			 (int)pid, info.hz ? "" : "; times absent: HZ ", info.hz ? "" : info.hz_how);
		return NX_OK;
	}
	/* what a failed read left in the rows is not a state */
	for (size_t i = 0; i < l->n; i++)
		l->v[i].in_numab = false;
	if (nx_backend_opt == NX_BACKEND_BPF || r == NX_ENOPROC) {
		nx_warn("%s%s", nx_backend_opt == NX_BACKEND_BPF ? "--backend bpf: " : "", why);
		return r;
	}
	l->backend = NX_BACKEND_NONE;
	snprintf(l->backend_note, sizeof(l->backend_note), "BPF backend failed: %s", why);
	return NX_OK;
}

struct mm_status {
	bool kthread, vm;
};

static int mm_status_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct mm_status *st = priv;

	(void)no;
	if (len >= 10 && !memcmp(line, "Kthread:", 8) && line[len - 1] == '1')
		st->kthread = true;
	if (len > 7 && !memcmp(line, "VmSize:", 7))
		st->vm = true;
	return 0;
}

/*
 * An empty maps: a kernel thread (Kthread: 1 in status), or a zombie (no
 * Vm* lines), has no address space; say so instead of an empty table.
 */
static int no_address_space(pid_t pid)
{
	char path[4096], comm[64] = "?";
	struct mm_status st = { false, false };

	nx_path(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (nx_for_each_line(path, mm_status_line, &st) || (!st.kthread && st.vm))
		return NX_OK;
	nx_path(path, sizeof(path), "/proc/%d/comm", (int)pid);
	nx_read_str(path, comm, sizeof(comm));
	nx_warn("process %d (%s) is %s: it has no address space, so no VMAs", (int)pid,
		comm, st.kthread ? "a kernel thread" : "a zombie or a kernel thread");
	return NX_ERUNTIME;
}

/*
 * maps (sorted), then numa_maps and numa_vmas streamed into its rows: no
 * copy of either is kept.  Without any maps VMA, the numa_vmas lines are
 * the rows and numa_maps comes last.
 */
static int load_all(struct loader *ld, pid_t pid)
{
	struct nx_vmlist *l = ld->l;
	int r = load_optional(ld, pid, "maps", maps_line, &l->have_maps);

	if (!r && !l->have_maps) {
		char path[4096];

		nx_path(path, sizeof(path), "/proc/%d/maps", (int)pid);
		r = nx_pid_error(pid, path, ENOENT);
	}
	if (!r && !l->n)
		r = no_address_space(pid);
	if (r)
		return r;
	SORT_IF_NEEDED(l->v, l->n, start, cmp_vma);
	ld->append = !l->n;
	if (!ld->append) {
		r = load_optional(ld, pid, "numa_maps", numa_maps_line, &l->have_numa_maps);
		if (r)
			return r;
	}
	ld->nv_sorted = true;
	r = load_scan_state(ld, pid);
	if (r || !ld->append)
		return r;
	if (!ld->nv_sorted)
		qsort(l->v, l->n, sizeof(*l->v), cmp_vma);
	ld->append = false;
	return load_optional(ld, pid, "numa_maps", numa_maps_line, &l->have_numa_maps);
}

int nx_vmlist_load(struct nx_vmlist *l, pid_t pid, const struct nx_topo *topo,
		   unsigned int stale_seqs)
{
	struct loader ld = { .l = l, .topo = topo };
	int r;

	memset(l, 0, sizeof(*l));
	l->pid = pid;
	r = load_all(&ld, pid);
	if (r) {
		nx_vmlist_free(l);
		return r;
	}
	/*
	 * maps names no anonymous VMA, numa_vmas and the BPF backend call it
	 * "anon": one name whatever the backend
	 */
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].name)
			l->v[i].name = anon_name;
	set_missing(l, pid);
	l->tiers_unknown = topo->tiers_bad;
	l->stale = stale_seqs;
	nx_release_predict(l);
	l->cpu_ms_max = -1;
	if (l->have_numab && !scan_begun(&l->mm)) {
		l->balancing_off = nx_numa_balancing_mode() == 0;
		l->cpu_ms_max = nx_threads_cpu_ms_max(pid);
	}
	nx_pages_sample(l, topo);
	for (size_t i = 0; i < l->n; i++)
		nx_vma_judge(&l->v[i], l);
	return NX_OK;
}

void nx_vmlist_warn(const struct nx_vmlist *l)
{
	long mode = nx_numa_balancing_mode();

	if (l->missing[0] || mode == 0)
		nx_warn("%s%s%s", l->missing, l->missing[0] && mode == 0 ? "; also " : "",
			mode ? "" : "NUMA balancing is off (kernel.numa_balancing=0): nothing "
			"is scanned or promoted; enable with 'sysctl kernel.numa_balancing=2'");
	if (l->shmem_note[0])
		nx_warn("%s", l->shmem_note);
}

void nx_vmlist_free(struct nx_vmlist *l)
{
	for (size_t i = 0; l->v && i < l->n; i++) {
		free(l->v[i].node_bytes);
		l->v[i].node_bytes = NULL;
	}
	for (size_t i = 0; i < l->n; i++)
		name_free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* ---- the processes to read (vmas -p, export) ----------------------------- */

int nx_pidlist_add(struct nx_pidlist *pl, pid_t pid)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i] == pid)
			return 0;
	if (pl->n == pl->cap) {
		size_t nc = pl->cap ? pl->cap * 2 : 16;
		pid_t *p = realloc(pl->p, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		pl->p = p;
		pl->cap = nc;
	}
	pl->p[pl->n++] = pid;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

void nx_pidlist_sort(struct nx_pidlist *pl)
{
	qsort(pl->p, pl->n, sizeof(*pl->p), cmp_pid);
}

void nx_pidlist_free(struct nx_pidlist *pl)
{
	free(pl->p);
	pl->p = NULL;
	pl->n = pl->cap = 0;
}

int nx_add_pattern(const char **pats, size_t *n, size_t max, const char *pat)
{
	if (*n == max)
		return nx_usage_error("at most %zu --process patterns", max);
	pats[(*n)++] = pat;
	return 0;
}

int nx_parse_stale(const char *arg, uint64_t *stale)
{
	if (nx_parse_u64(arg, strlen(arg), 10, stale) || *stale > 1u << 30)
		return nx_usage_error("invalid --stale '%s': a number of scan sequences "
				      "up to 2^30", arg);
	return 0;
}

int nx_match_processes(const char *pat, struct nx_pidlist *pl, unsigned long *ndenied)
{
	char path[4096], comm[64], maps[2];
	struct dirent *de;
	size_t before = pl->n, denied = 0;
	int ret = NX_OK;
	uint64_t v;
	regex_t re;
	DIR *d;

	if (pat && !nx_parse_u64(pat, strlen(pat), 10, &v)) {
		pid_t pid;

		if (nx_parse_pid(pat, &pid))
			return NX_EUSAGE;
		return nx_pidlist_add(pl, pid) ? NX_ERUNTIME : NX_OK;
	}
	if (pat && regcomp(&re, pat, REG_EXTENDED | REG_NOSUB))
		return nx_usage_error("invalid --process pattern '%s' (an extended regex)", pat);
	nx_path(path, sizeof(path), "/proc");
	d = opendir(path);
	while (d && (de = readdir(d))) {
		int r;

		if (nx_parse_u64(de->d_name, strlen(de->d_name), 10, &v) || !v || v > 0x3fffffff)
			continue;
		if (!nx_opt.sysroot[0] && (pid_t)v == getpid())
			continue;	/* not numabctl itself */
		nx_path(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (nx_read_str(path, comm, sizeof(comm)) ||
		    (pat && regexec(&re, comm, 0, NULL, 0)))
			continue;
		/* kernel threads have no VMAs: an empty maps */
		nx_path(path, sizeof(path), "/proc/%s/maps", de->d_name);
		r = nx_read_str(path, maps, sizeof(maps));
		if (r == -EACCES || r == -EPERM) {
			if (!ndenied)
				nx_warn("process %s (%s) matches '%s' but its maps cannot be "
					"read: permission denied: %s", de->d_name, comm, pat,
					nx_root_hint("CAP_SYS_PTRACE"));
			denied++;
			ret = NX_EPERM;
			continue;
		}
		if (r || !maps[0])
			continue;
		if (nx_pidlist_add(pl, (pid_t)v)) {
			closedir(d);
			if (pat)
				regfree(&re);
			return NX_ERUNTIME;
		}
	}
	if (d)
		closedir(d);
	if (pat)
		regfree(&re);
	if (ndenied) {
		*ndenied += denied;
		ret = NX_OK;
	}
	if (pat && pl->n == before && !denied) {
		nx_warn("no process with an address space matches '%s'", pat);
		return NX_ENOPROC;
	}
	return ret;
}
