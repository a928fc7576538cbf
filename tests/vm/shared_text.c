// SPDX-License-Identifier: GPL-2.0
/*
 * Program text shared by several processes on the slow tier.
 *
 * Two page-level checks keep the text of a pre-forking server on a lower
 * tier even when its VMAs are scanned (shared_ro=2 scans read-only file
 * mappings promotion-only):
 *  - change_pte_range() skips folios of COW mappings (ELF text is
 *    MAP_PRIVATE) that are likely mapped by more than one process;
 *  - migrate_misplaced_folio_prepare() refuses shared VM_EXEC folios of
 *    the file LRU.
 * kernel.numa_balancing_filter_shared_folio (v2): 0 off, 1 skip (stock),
 * 2 tier (default): with 2 and the tiering bit, folios on a lower-tier
 * node are exempt from both; top-tier folios keep the stock checks.
 *
 * The text: a 32 MiB tmpfs file whose page cache is written under a
 * temporary MPOL_BIND (as strand_rofile), mapped MAP_PRIVATE with
 * PROT_READ|PROT_EXEC by the test process and inherited by N forked
 * readers (the test process never touches it and unmaps it after the
 * forks). Each reader faults the whole text in, waits until all have, then
 * reads it in a loop. The scan sequence is the first reader's
 * (numa_vmas); counting starts when the text VMA's scan delay is over
 * (its numa_vmas next_scan_ms < 0). Placement is asked of the first
 * reader with move_pages(2).
 *
 * Tiered topology, mode 2, the other filters at the numab defaults
 * (shared_ro=2), 2 and 8 readers (scan periods: see the variants):
 *  - skip (shared_folio=1, or a kernel without that sysctl: the stock
 *    behaviour): none of the text's pages on node 0 after at least 10
 *    scan sequences;
 *  - tier (shared_folio=2, or a kernel without that sysctl): >= 95% on
 *    node 0 within 5 scan sequences. Today's series: 0 PTE updates, 0
 *    promotions (fails).
 * Mode 1, shared_ro=0, the text on node 0 (top tier), 2 readers each
 * with a second (sleeping) thread, so that change_pte_range() does not
 * skip node-0 folios as the node of a single-threaded process: the PTE
 * updates of the text VMA (numa_vmas pte_updates of both readers) must be
 * 0 with shared_folio=1 and with 2, over 5 scan sequences. Control: one
 * such reader alone (the folios mapped once) gets PTE updates > 0.
 *
 * Not covered: a disk-backed filesystem. tmpfs folios are swap-backed,
 * not file LRU, so migrate_misplaced_folio_prepare()'s VM_EXEC check is
 * never reached here; the test kernel has no block device, loop driver or
 * ext2 (kernel/configs/numab-test.config), and ramfs folios are dirty and
 * cannot be migrated in MIGRATE_ASYNC mode.
 *
 * Knobs: SHARED_TEXT_MAX_SECONDS [90] (cap per phase).
 */
#include <signal.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#define TEXT_MB		32
#define MAX_READERS	8
#define SCAN_DELAY_MS	1000
#define SHARED_FOLIO	"/proc/sys/kernel/numa_balancing_filter_shared_folio"
#define EXEC_MNT	"/tmp/numab-exec"

struct readers {
	int n;
	pid_t pid[MAX_READERS];
	char *text;
};

/* A reader: touch the text, say so, wait for the go, read it forever. */
static void reader_main(char *text, long npages, long pagesz, int threads,
			int ready, int go)
{
	struct nw_sleepers s;
	volatile char sink = 0;
	char c;
	long i;

	if (threads && nw_sleepers_start(&s, 1))
		_exit(2);
	for (i = 0; i < npages; i++)
		sink += ((volatile char *)text)[i * pagesz];
	if (write(ready, "r", 1) != 1)
		_exit(3);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	for (;;)
		for (i = 0; i < npages; i++)
			sink += ((volatile char *)text)[i * pagesz];
}

static void readers_stop(struct readers *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		kill(r->pid[i], SIGKILL);
		waitpid(r->pid[i], NULL, 0);
	}
	r->n = 0;
}

/*
 * Map PATH (SIZE bytes) PROT_READ|PROT_EXEC MAP_PRIVATE, fork N readers
 * that inherit the mapping (with a second thread each when THREADS),
 * unmap it here, wait until every reader has faulted the whole text in,
 * and let them all read. 0 or -errno.
 */
static int readers_start(struct readers *r, int n, const char *path,
			 size_t size, int threads)
{
	long pagesz = getpagesize(), npages = size / pagesz;
	int ready[2], go[2], i, fd, ret = 0;
	char c;

	r->n = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	r->text = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (r->text == MAP_FAILED)
		return -errno;
	if (pipe(ready) || pipe(go))
		return -errno;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			ret = -errno;
			break;
		}
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			reader_main(r->text, npages, pagesz, threads, ready[1], go[0]);
		}
		r->pid[r->n++] = pid;
	}
	munmap(r->text, size);
	close(ready[1]);
	close(go[0]);
	for (i = 0; !ret && i < r->n; i++)
		if (read(ready[0], &c, 1) != 1)
			ret = -EIO;
	close(ready[0]);
	close(go[1]);		/* go */
	return ret;
}

/* Placement of the text, asked of reader PID with move_pages(2). */
static int text_placement(pid_t pid, char *text, long npages, long pagesz,
			  struct nt_placement *pl)
{
	return nt_placement_of(pid, text, 0, 1, npages, pagesz, pl);
}

/* numa_vmas of the text VMA in reader PID: pte_updates etc.; 0 or -1 */
struct text_state {
	long long pte_updates, promo_scans, scans, next_scan_ms;
	char filter[32], state[8];
};

static int text_state(pid_t pid, char *text, struct text_state *s)
{
	char line[1024];

	memset(s, 0, sizeof(*s));
	s->pte_updates = s->next_scan_ms = -1;
	if (nv_vma_line(pid, text, line, sizeof(line)))
		return -1;
	nv_key_word(line, "filter", s->filter, sizeof(s->filter));
	nv_key_word(line, "state", s->state, sizeof(s->state));
	s->pte_updates = nv_key_ll(line, "pte_updates", 0);
	s->promo_scans = nv_key_ll(line, "promo_scans", 0);
	s->scans = nv_key_ll(line, "scans", 0);
	s->next_scan_ms = nv_key_ll(line, "next_scan_ms", 1);
	return 0;
}

/*
 * Wait (reading nothing) until the text VMA's scan delay is over in
 * reader PID: numa_vmas state=ok next_scan_ms<0, or 1.5 scan delays on a
 * kernel without numa_vmas. Returns the seconds waited.
 */
static double wait_scan_delay(pid_t pid, char *text, double max_s)
{
	double t0 = nt_now();
	struct text_state s;

	for (;;) {
		double t = nt_now() - t0;

		if (text_state(pid, text, &s)) {
			if (t >= 1.5 * SCAN_DELAY_MS / 1000.0)
				return t;
		} else if (!strcmp(s.state, "ok") && s.next_scan_ms < 0) {
			return t;
		}
		if (t > max_s)
			return t;
		usleep(50000);
	}
}

FIXTURE(shared_text) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct readers r;
	long shared_folio;	/* saved value, -1: no sysctl */
	long shared_ro;
	int mounted;
	char path[96];
	long pagesz, npages;
};

/*
 * PERIOD_MS: the scan period (min = max). 100 ms where the text must be
 * promoted within 5 sequences (a faster period would count the sequences
 * that pass while the readers' faults migrate 8192 pages); 25 ms (and
 * 64 MiB windows, so that task_scan_min()'s floor is 25 ms) where only
 * the number of scans counts, to keep the unit short.
 */
FIXTURE_VARIANT(shared_text) {
	int mode;
	int readers;
	int shared_folio;	/* 1 skip, 2 tier; 0: the top-tier check */
	int period_ms;
};
FIXTURE_VARIANT_ADD(shared_text, tier_2_skip) {
	.mode = 2, .readers = 2, .shared_folio = 1, .period_ms = 25,
};
FIXTURE_VARIANT_ADD(shared_text, tier_2_tier) {
	.mode = 2, .readers = 2, .shared_folio = 2, .period_ms = 100,
};
FIXTURE_VARIANT_ADD(shared_text, tier_8_skip) {
	.mode = 2, .readers = 8, .shared_folio = 1, .period_ms = 25,
};
FIXTURE_VARIANT_ADD(shared_text, tier_8_tier) {
	.mode = 2, .readers = 8, .shared_folio = 2, .period_ms = 100,
};
FIXTURE_VARIANT_ADD(shared_text, toptier_2) {
	.mode = 1, .readers = 2, .shared_folio = 0, .period_ms = 25,
};

/* a directory for the text on a filesystem that allows exec; NULL or why not */
static const char *exec_dir(FIXTURE_DATA(shared_text) *self)
{
	struct statvfs st;

	if (statvfs("/tmp", &st))
		return "statvfs(/tmp) failed";
	if (!(st.f_flag & ST_NOEXEC)) {
		snprintf(self->path, sizeof(self->path), "/tmp/numab-text-%d", getpid());
		return NULL;
	}
	/* /tmp is noexec: a tmpfs of our own */
	if (mkdir(EXEC_MNT, 0700) && errno != EEXIST)
		return "mkdir " EXEC_MNT " failed";
	if (mount("tmpfs", EXEC_MNT, "tmpfs", 0, "size=64m"))
		return "/tmp is noexec and mounting a tmpfs at " EXEC_MNT " failed";
	self->mounted = 1;
	snprintf(self->path, sizeof(self->path), EXEC_MNT "/numab-text-%d", getpid());
	return NULL;
}

FIXTURE_SETUP(shared_text)
{
	struct nt_tunables tun = {
		.mode = variant->mode, .scan_delay = SCAN_DELAY_MS,
		.period_min = variant->period_ms, .period_max = variant->period_ms,
		.scan_size = variant->period_ms < 100 ? 64 : 256,
	};
	const char *why;

	self->shared_folio = -1;
	self->shared_ro = -1;
	self->r.n = 0;
	self->path[0] = '\0';
	/* before anything is changed: a SKIP in setup runs no teardown */
	if (!variant->shared_folio) {
		if (access("/proc/self/numa_vmas", R_OK))
			SKIP(return, "no /proc/self/numa_vmas: the text VMA's PTE updates cannot be read");
		if (access(NUMAB_FILTER "shared_ro", W_OK))
			SKIP(return, "no kernel.numa_balancing_filter_shared_ro: read-only file mappings are not scanned");
	}
	NW_TIERING_SETUP(self, 0, &tun);
	why = exec_dir(self);
	if (why)
		SKIP(return, "%s", why);
	self->shared_folio = nt_read_long(SHARED_FOLIO, -1);
	if (variant->shared_folio && self->shared_folio >= 0)
		ASSERT_EQ(nt_write_long(SHARED_FOLIO, variant->shared_folio), 0);
	if (!variant->shared_folio) {
		/* the top-tier check: read-only file mappings scanned normally */
		self->shared_ro = nt_read_long(NUMAB_FILTER "shared_ro", -1);
		ASSERT_EQ(nt_write_long(NUMAB_FILTER "shared_ro", 0), 0);
	}
	self->pagesz = getpagesize();
	self->npages = TEXT_MB * NW_MB / self->pagesz;
	ASSERT_EQ(nw_tmpfs_file_on(self->path, TEXT_MB * NW_MB,
				   variant->shared_folio ? 1 : 0), 0);
	TH_LOG("text %s, %d MiB; kernel.numa_balancing_filter_shared_folio %s",
	       self->path, TEXT_MB,
	       self->shared_folio < 0 ? "absent (the kernel's own behaviour)" :
	       variant->shared_folio ? (variant->shared_folio == 1 ? "1" : "2") :
	       "1 then 2");
}

FIXTURE_TEARDOWN(shared_text)
{
	readers_stop(&self->r);
	if (self->path[0])
		unlink(self->path);
	if (self->mounted)
		umount(EXEC_MNT);
	if (self->shared_folio >= 0)
		nt_write_long(SHARED_FOLIO, self->shared_folio);
	if (self->shared_ro >= 0)
		nt_write_long(NUMAB_FILTER "shared_ro", self->shared_ro);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* the text on node 1, read by the readers: promoted or left alone */
static void tier(struct __test_metadata *_metadata, FIXTURE_DATA(shared_text) *self,
		 const FIXTURE_VARIANT(shared_text) *variant)
{
	int skip = variant->shared_folio == 1;
	long min_seq = skip ? 10 : 0, max_seq = skip ? 1000 : 5;
	double max_s = nw_env_long("SHARED_TEXT_MAX_SECONDS", 90);
	long want = self->npages * 95 / 100, seq, seq0, last_seq = -1;
	long promoted_seq = -1, max_node0 = 0;
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl = { 0 };
	struct text_state st;
	char ptes[256];
	double t, t0, waited;
	size_t len;
	int i;

	ASSERT_EQ(readers_start(&self->r, variant->readers, self->path,
				TEXT_MB * NW_MB, 0), 0);
	ASSERT_EQ(text_placement(self->r.pid[0], self->r.text, self->npages,
				 self->pagesz, &pl), 0);
	TH_LOG("%d readers of %p: node0 %ld node1 %ld other %ld", self->r.n,
	       self->r.text, pl.node[0], pl.node[1], pl.other);
	ASSERT_GE(pl.node[1], self->npages * 99 / 100);

	nw_vmstat_read(&v0);
	waited = wait_scan_delay(self->r.pid[0], self->r.text, 10);
	ASSERT_EQ(text_placement(self->r.pid[0], self->r.text, self->npages,
				 self->pagesz, &pl), 0);
	text_state(self->r.pid[0], self->r.text, &st);
	TH_LOG("text VMA scan delay over after %.1f s (filter=%s state=%s next_scan_ms=%lld): node0 %ld node1 %ld",
	       waited, st.filter, st.state, st.next_scan_ms, pl.node[0], pl.node[1]);
	seq0 = nv_scan_seq(self->r.pid[0]);
	ASSERT_GE(seq0, 0);
	t0 = nt_now();
	for (;;) {
		usleep(250000);
		ASSERT_EQ(text_placement(self->r.pid[0], self->r.text, self->npages,
					 self->pagesz, &pl), 0);
		if (pl.node[0] > max_node0)
			max_node0 = pl.node[0];
		seq = nv_scan_seq(self->r.pid[0]);
		t = nt_now();
		if (seq != last_seq) {
			nw_vmstat_read(&v1);
			nw_vmstat_delta(&v0, &v1, &d);
			text_state(self->r.pid[0], self->r.text, &st);
			TH_LOG("seq +%3ld %5.1f s: text node0 %5ld node1 %5ld | reader 0's text VMA: pte_updates %lld promo_scans %lld scans %lld | pgpromote_success +%lld numa_pte_updates +%lld numa_hint_faults +%lld",
			       seq - seq0, t - t0, pl.node[0], pl.node[1],
			       st.pte_updates, st.promo_scans, st.scans,
			       d.promote_success, d.pte_updates, d.hint_faults);
		}
		last_seq = seq;
		if (promoted_seq < 0 && pl.node[0] >= want)
			promoted_seq = seq - seq0;
		if (!skip && (promoted_seq >= 0 || seq - seq0 > max_seq))
			break;
		if (skip && seq - seq0 >= min_seq)
			break;
		if (t - t0 > max_s)
			break;
	}
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	len = 0;
	ptes[0] = '\0';
	for (i = 0; i < self->r.n && len < sizeof(ptes); i++) {
		text_state(self->r.pid[i], self->r.text, &st);
		len += snprintf(ptes + len, sizeof(ptes) - len, " %lld", st.pte_updates);
	}
	TH_LOG("RESULT shared_text mode 2, %d readers, %d ms period, shared_folio=%s: %s after %ld scan sequences (%.1f s): text node0 %ld/%ld node1 %ld (most on node0 seen: %ld); pgpromote_success +%lld numa_pte_updates +%lld numa_hint_faults +%lld; text VMA pte_updates per reader:%s",
	       self->r.n, variant->period_ms,
	       self->shared_folio < 0 ? "absent" : skip ? "1" : "2", promoted_seq >= 0 ? "PROMOTED" : "ON NODE 1", seq - seq0, t - t0,
	       pl.node[0], self->npages, pl.node[1], max_node0,
	       d.promote_success, d.pte_updates, d.hint_faults, ptes);
	readers_stop(&self->r);
	if (skip) {
		/* stock: the shared text is never promoted */
		ASSERT_GE(seq - seq0, min_seq) {
			TH_LOG("only %ld scan sequences in %.0f s", seq - seq0, max_s);
		}
		ASSERT_EQ(max_node0, 0) {
			TH_LOG("%ld of the shared text's pages promoted with shared_folio=1",
			       max_node0);
		}
		return;
	}
	ASSERT_GE(pl.node[0], want) {
		TH_LOG("shared text stranded on node 1: %ld/%ld on node 0 after %ld sequences",
		       pl.node[0], self->npages, seq - seq0);
	}
	ASSERT_LE(promoted_seq, max_seq);
}

/*
 * The readers (with a sleeping thread each) read the text on node 0 for
 * SEQS scan sequences of the first one after its scan delay; the text
 * VMA's pte_updates of each reader into PTES. 0 or -1.
 */
static int toptier_run(struct __test_metadata *_metadata, FIXTURE_DATA(shared_text) *self,
		       int n, long seqs, long long *ptes, long *seq_done)
{
	double max_s = nw_env_long("SHARED_TEXT_MAX_SECONDS", 90), t0;
	struct nt_placement pl = { 0 };
	struct text_state st;
	long seq0, seq;
	int i;

	if (readers_start(&self->r, n, self->path, TEXT_MB * NW_MB, 1))
		return -1;
	if (text_placement(self->r.pid[0], self->r.text, self->npages,
			   self->pagesz, &pl) || pl.node[0] < self->npages * 99 / 100) {
		TH_LOG("the text is not on node 0: node0 %ld node1 %ld", pl.node[0], pl.node[1]);
		return -1;
	}
	wait_scan_delay(self->r.pid[0], self->r.text, 10);
	seq0 = nv_scan_seq(self->r.pid[0]);
	t0 = nt_now();
	do {
		usleep(250000);
		seq = nv_scan_seq(self->r.pid[0]);
	} while (seq - seq0 < seqs && nt_now() - t0 < max_s);
	*seq_done = seq - seq0;
	for (i = 0; i < n; i++) {
		if (text_state(self->r.pid[i], self->r.text, &st))
			return -1;
		ptes[i] = st.pte_updates;
	}
	TH_LOG("%d reader(s): text VMA filter=%s state=%s scans %lld; pte_updates %lld (first reader), %lld (last) over %ld scan sequences",
	       n, st.filter, st.state, st.scans, ptes[0], ptes[n - 1], *seq_done);
	readers_stop(&self->r);
	return 0;
}

static void toptier(struct __test_metadata *_metadata, FIXTURE_DATA(shared_text) *self,
		    const FIXTURE_VARIANT(shared_text) *variant)
{
	long long p1[2] = { -1, -1 }, p2[2] = { -1, -1 }, pc[1] = { -1 };
	long s1 = 0, s2 = 0, sc = 0;
	int have = self->shared_folio >= 0;

	if (have)
		ASSERT_EQ(nt_write_long(SHARED_FOLIO, 1), 0);
	ASSERT_EQ(toptier_run(_metadata, self, 2, 5, p1, &s1), 0);
	if (have)
		ASSERT_EQ(nt_write_long(SHARED_FOLIO, 2), 0);
	ASSERT_EQ(toptier_run(_metadata, self, 2, 5, p2, &s2), 0);
	/* control: mapped by one process, the same text is marked */
	ASSERT_EQ(toptier_run(_metadata, self, 1, 5, pc, &sc), 0);
	TH_LOG("RESULT shared_text mode 1 top tier, 2 readers: text VMA pte_updates %lld, %lld with shared_folio=%s (%ld sequences); %lld, %lld with shared_folio=%s (%ld sequences); 1 reader (control): %lld (%ld sequences)",
	       p1[0], p1[1], have ? "1" : "absent", s1, p2[0], p2[1],
	       have ? "2" : "absent", s2, pc[0], sc);
	ASSERT_GE(s1, 5);
	ASSERT_GE(s2, 5);
	ASSERT_GE(sc, 5);
	/* the control: the VMA is scanned, a folio mapped once is marked */
	ASSERT_GT(pc[0], 0) {
		TH_LOG("one reader's text VMA got no PTE update: the scanner did not mark it, the check below proves nothing");
	}
	EXPECT_EQ(p1[0], 0);
	EXPECT_EQ(p1[1], 0);
	EXPECT_EQ(p2[0], 0) TH_LOG("shared_folio=2 marked shared top-tier text");
	EXPECT_EQ(p2[1], 0) TH_LOG("shared_folio=2 marked shared top-tier text");
}

static void placement(struct __test_metadata *_metadata, FIXTURE_DATA(shared_text) *self,
		      const FIXTURE_VARIANT(shared_text) *variant)
{
	if (variant->shared_folio)
		tier(_metadata, self, variant);
	else
		toptier(_metadata, self, variant);
}

/* -O0 wrapper: see first_fault.c (the harness's setjmp, -Wclobbered) */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F_TIMEOUT(shared_text, placement, 300)
{
	placement(_metadata, self, variant);
}
#pragma GCC pop_options

TEST_HARNESS_MAIN
