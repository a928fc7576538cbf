// SPDX-License-Identifier: GPL-2.0
/*
 * vma_state_size [NVMAS]: what the scanner's per-VMA state costs.
 * task_numa_work() gives every VMA it looks at a struct
 * vma_numab_state from kmalloc(). Stock 6.12: 40 bytes, kmalloc-64. The
 * first numab series: 104 bytes, kmalloc-128. The goal: kmalloc-64 again.
 *
 * A process maps NVMAS (default 10000) one-page anonymous VMAs with
 * alternating protections (so that none merge) and touches each; with the
 * scan delay and the PID filter off, the scanner reaches every one of
 * them. Until numa_vmas shows state=ok for all of them (bounded: 120 s),
 * nothing else allocates in this process. Printed: the growth of the
 * kmalloc-64, kmalloc-96 and kmalloc-128 caches (/proc/slabinfo, active
 * objects) and of Slab in /proc/meminfo, per VMA.
 *
 * Asserted: kmalloc-64 grew by at least 90% of NVMAS objects and
 * kmalloc-128 by less than 10% of NVMAS (the state is in kmalloc-64). The
 * growth of Slab is printed only: it depends on how many free objects the
 * caches had before (measured: 60.6 bytes per VMA with the state in
 * kmalloc-64, 34.8 with it in kmalloc-128). On a kernel without numa_vmas
 * the test skips: the state cannot be seen.
 */
#include "../lib/numab_test.h"

struct slabs {
	long long k64, k96, k128, slab_kb;
};

/* active objects of slab cache NAME: the first number of its slabinfo line */
static long long slab_active(const char *name)
{
	return nt_keyval("/proc/slabinfo", name);
}

static void read_slabs(struct slabs *s)
{
	s->k64 = slab_active("kmalloc-64");
	s->k96 = slab_active("kmalloc-96");
	s->k128 = slab_active("kmalloc-128");
	s->slab_kb = nt_keyval("/proc/meminfo", "Slab:");
}

/* VMAs in [lo, hi) that numa_vmas shows with state=ok */
static long count_state_ok(unsigned long lo, unsigned long hi)
{
	static char line[4096];
	unsigned long start;
	long n = 0;
	FILE *f = fopen("/proc/self/numa_vmas", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-", &start) == 1 && start >= lo && start < hi &&
		    strstr(line, " state=ok "))
			n++;
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long nvmas = argc > 1 ? atol(argv[1]) : 10000, pagesz = getpagesize(), i, ok = 0;
	struct nt_tunables saved_t, t;
	struct nt_filters saved_f, f;
	struct slabs before, after;
	double deadline;
	char *base;
	int fail = 0;

	printf("TAP version 13\n1..2\n");
	if (access("/proc/self/numa_vmas", R_OK)) {
		printf("ok 1 # SKIP no /proc/self/numa_vmas: the per-VMA state cannot be seen\n");
		printf("ok 2 # SKIP\n");
		return 0;
	}
	if (access("/proc/slabinfo", R_OK)) {
		printf("ok 1 # SKIP no /proc/slabinfo (CONFIG_SLUB_DEBUG=n)\nok 2 # SKIP\n");
		return 0;
	}
	nt_tunables_save(&saved_t);
	/*
	 * No scanning before the baseline: a pass during a slow setup
	 * would allocate the VMAs' state before it is counted.
	 */
	nt_write_long(NUMAB_MODE, 0);
	t = saved_t;
	t.mode = 1;
	t.scan_delay = 0;
	t.period_min = 100;
	t.period_max = 100;
	t.scan_size = 256;
	if (nt_filters_save(&saved_f) == 0) {
		f = saved_f;
		f.pid = 0;		/* every VMA, whoever touched it */
		f.scan_delay = 0;
		nt_filters_set(&f);
	}
	if (nvmas > 30000)
		nt_write_long("/proc/sys/vm/max_map_count", 4 * nvmas);

	/* reserve the range first, then split it into NVMAS VMAs */
	base = mmap(NULL, nvmas * pagesz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (base == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 1; i < nvmas; i += 2)
		mprotect(base + i * pagesz, pagesz, PROT_READ);
	for (i = 0; i < nvmas; i++)
		(void)*(volatile char *)(base + i * pagesz);

	read_slabs(&before);
	nt_tunables_set(&t);
	deadline = nt_now() + 120;
	while (nt_now() < deadline) {
		/* busy: the scanner runs from the task's own ticks */
		for (double until = nt_now() + 0.5; nt_now() < until;)
			;
		ok = count_state_ok((unsigned long)base,
				    (unsigned long)base + nvmas * pagesz);
		if (ok >= nvmas)
			break;
	}
	read_slabs(&after);
	nt_tunables_set(&saved_t);
	if (saved_f.pid >= 0)
		nt_filters_set(&saved_f);

	printf("# %ld of %ld VMAs have scan state\n", ok, nvmas);
	printf("# kmalloc-64 +%lld, kmalloc-96 +%lld, kmalloc-128 +%lld objects; Slab +%lld kB (%.1f bytes per VMA)\n",
	       after.k64 - before.k64, after.k96 - before.k96,
	       after.k128 - before.k128, after.slab_kb - before.slab_kb,
	       (after.slab_kb - before.slab_kb) * 1024.0 / nvmas);
	if (ok < nvmas) {
		printf("not ok 1 every VMA has scan state (%ld of %ld in 120 s)\n", ok, nvmas);
		printf("ok 2 # SKIP not every VMA was scanned\n");
		munmap(base, nvmas * pagesz);
		return 1;
	}
	printf("ok 1 every VMA has scan state\n");
	if (after.k64 - before.k64 >= nvmas * 9 / 10 &&
	    after.k128 - before.k128 < nvmas / 10) {
		printf("ok 2 the per-VMA state is in kmalloc-64\n");
	} else {
		printf("not ok 2 the per-VMA state is in kmalloc-64\n");
		fail = 1;
	}
	munmap(base, nvmas * pagesz);
	return fail;
}
