// SPDX-License-Identifier: GPL-2.0
/*
 * A page-level check of the scanner that no VMA state shows.
 *
 * change_pte_range() passes over a folio of a copy-on-write mapping (any
 * private mapping: anonymous memory, program text, a file mapped
 * MAP_PRIVATE) that is likely mapped by more than one process, so stock
 * 6.12 never makes its PTE PROT_NONE and never promotes it: a heap shared
 * with a forked child (Redis's BGSAVE, a preforked server), program text
 * run by several processes. The VMA itself is scanned and looks fine.
 * The numab series marks such folios when they are on a lower tier in
 * tiering mode (filter_shared_folio=tier, its default).
 *
 * When the process's setting skips them, a sample of each private VMA
 * with slow-tier memory is looked up: where each page is (move_pages(2)
 * without nodes) and whether this process maps it alone
 * (/proc/PID/pagemap bit 56, PM_MMAP_EXCLUSIVE: the page's mapcount is 1,
 * the test folio_likely_mapped_shared() makes for a small folio).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "numabctl.h"

#define PM_PRESENT	(1ULL << 63)
#define PM_EXCLUSIVE	(1ULL << 56)

/*
 * Whether @l's process has change_pte_range() skip shared copy-on-write
 * folios on a lower tier, and how, into @how: the per-process or system
 * setting (numa_vmas' mm line, else the sysctl), or stock 6.12's rule
 * when the kernel has no such setting.
 */
static bool skips_shared(const struct nx_vmlist *l, char *how, size_t sz)
{
	int i = nx_filter_index("shared_folio", strlen("shared_folio"));
	struct nx_filters_state fs;
	long mode = nx_numa_balancing_mode();
	int val;

	if (l->mm.filt_have & (1u << i)) {
		val = l->mm.filt_val[i];
	} else {
		nx_filters_read(&fs);
		val = fs.val[i];
	}
	if (val < 0)
		snprintf(how, sz, "stock 6.12: no shared_folio filter");
	else if (val == 1)
		snprintf(how, sz, "shared_folio=%s", nx_filter_value_name(i, val));
	else if (val == 2 && !(mode > 0 && (mode & 2)))
		snprintf(how, sz, "shared_folio=%s without tiering: numa_balancing=%ld",
			 nx_filter_value_name(i, val), mode);
	else
		return false;
	return true;
}

/* pages of @v to look at: at most NX_PAGE_SAMPLE, evenly spread */
static size_t sample_pages(const struct nx_vma *v, long pagesz, uint64_t *addr)
{
	uint64_t npages = (v->end - v->start) / (uint64_t)pagesz;
	uint64_t step = npages > NX_PAGE_SAMPLE ? npages / NX_PAGE_SAMPLE : 1;
	size_t n = 0;

	for (uint64_t i = 0; i < npages && n < NX_PAGE_SAMPLE; i += step)
		addr[n++] = v->start + i * (uint64_t)pagesz;
	return n;
}

/* one VMA: 0, or -errno when pagemap or move_pages(2) cannot be read */
static int sample_vma(pid_t pid, int pm, long pagesz, const struct nx_topo *topo,
		      struct nx_vma *v)
{
	static uint64_t addr[NX_PAGE_SAMPLE], ent[NX_PAGE_SAMPLE];
	static void *pages[NX_PAGE_SAMPLE];
	static int status[NX_PAGE_SAMPLE];
	size_t n = sample_pages(v, pagesz, addr), k = 0;

	for (size_t i = 0; i < n; i++) {
		off_t off = (off_t)(addr[i] / (uint64_t)pagesz) * 8;

		if (pread(pm, &ent[i], 8, off) != 8)
			return -(errno ? errno : EIO);
		if (ent[i] & PM_PRESENT) {
			pages[k] = (void *)(uintptr_t)addr[i];
			ent[k++] = ent[i];
		}
	}
	if (!k)
		return 0;
	if (syscall(SYS_move_pages, pid, k, pages, NULL, status, 0))
		return -errno;
	for (size_t i = 0; i < k; i++) {
		if (status[i] < 0 || !nx_mask_test(&topo->slow, (unsigned int)status[i]))
			continue;
		v->pg_slow++;
		if (!(ent[i] & PM_EXCLUSIVE))
			v->pg_slow_shared++;
	}
	return 0;
}

/* more slow-tier memory first, then the lower address (qsort_r over indices) */
static int cmp_slow(const void *a, const void *b, void *vmas)
{
	const struct nx_vma *v = vmas;
	const struct nx_vma *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->slow_bytes != y->slow_bytes)
		return x->slow_bytes < y->slow_bytes ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

void nx_pages_sample(struct nx_vmlist *l, const struct nx_topo *topo)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	char path[4096];
	size_t *idx, n = 0;
	int pm;

	/* fixtures have no pages to look up; an unknown tier, no slow pages */
	if (nx_opt.sysroot[0] || topo->tiers_bad || !topo->have_tiers || pagesz <= 0)
		return;
	if (!skips_shared(l, l->pg_how, sizeof(l->pg_how)))
		return;
	idx = malloc(l->n * sizeof(*idx) + 1);
	if (!idx)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].slow_bytes && l->v[i].perms[3] == 'p')
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_slow, l->v);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)l->pid);
	pm = open(path, O_RDONLY | O_CLOEXEC);
	for (size_t i = 0; pm >= 0 && i < n && i < NX_PAGE_VMAS; i++) {
		struct nx_vma *v = &l->v[idx[i]];

		if (sample_vma(l->pid, pm, pagesz, topo, v)) {
			v->pg_slow = v->pg_slow_shared = 0;
			break;	/* the process exited, or no permission: no sample */
		}
	}
	if (pm >= 0)
		close(pm);
	free(idx);
}

bool nx_pages_held(const struct nx_vma *v)
{
	return v->pg_slow && 2 * v->pg_slow_shared >= v->pg_slow;
}
