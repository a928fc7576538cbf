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
 *    behaviour): none of the text's pages on node 0 after at least
 *    TIER_SEQ scan sequences;
 *  - tier (shared_folio=2, or a kernel without that sysctl): >= 95% on
 *    node 0 within TIER_SEQ (5) scan sequences. Today's series: 0 PTE
 *    updates, 0 promotions (fails). Measured on the series (v3): within
 *    0 or 1 sequence (0.3 s) in 10 runs of 2 and 8 readers and 5 of the
 *    disk variant; the skip variants watch for as long as the tier ones
 *    may take.
 * Mode 1, shared_ro=0, the text on node 0 (top tier), 2 readers each
 * with a second (sleeping) thread, so that change_pte_range() does not
 * skip node-0 folios as the node of a single-threaded process: the PTE
 * updates of the text VMA (numa_vmas pte_updates of both readers) must be
 * 0 with shared_folio=1 and with 2, over 5 scan sequences. Control: one
 * such reader alone (the folios mapped once) gets PTE updates > 0.
 *
 * The disk variants (unit shared-text-disk) put the text on a real
 * filesystem instead: ext2 made by busybox mke2fs on a loop device over a
 * file in the guest's tmpfs, mounted with the ext4 driver. Its page cache
 * is file LRU, not swap-backed like tmpfs, so only there does the hinting
 * fault reach the VM_EXEC check of migrate_misplaced_folio_prepare(): the
 * case of a server binary on disk. The file is written while bound to
 * node 1 and fsync()ed (clean folios migrate in MIGRATE_ASYNC mode); 8
 * readers, mode 2, as the tier variants: with shared_folio=1 none of it
 * on node 0 after 5 sequences, with the default >= 95% within 5.
 *
 * KSM (fixture ksm): two identical MADV_MERGEABLE anonymous regions on
 * node 1, merged by ksmd, read in a loop in mode 2 with the defaults.
 * change_pte_range() skips KSM folios before any check of sharing, so
 * the scanner never marks them: 0 PTE updates in both VMAs and the merged
 * pages stay on node 1 over 5 scan sequences. (Promotion leaves them on
 * the lower tier, as it always did.)
 *
 * Fan-out (a measurement, not a pass/fail bound): SHARED_TEXT_READERS=N
 * (up to 1024) runs the tier variants with N readers instead, and the
 * RESULT line adds the time task_numa_work() took on all CPUs (function
 * profiler), the hinting faults per promoted page and the time to
 * promotion.
 *
 * Knobs: SHARED_TEXT_MAX_SECONDS [90] (cap per phase),
 * SHARED_TEXT_READERS (see above).
 */
#include <signal.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#define TEXT_MB		32
#define TIER_SEQ	5	/* sequences to promotion; skip: to watch */
#define MAX_READERS	1024
#define SCAN_DELAY_MS	1000
#define SHARED_FOLIO	"/proc/sys/kernel/numa_balancing_filter_shared_folio"
#define EXEC_MNT	"/tmp/numab-exec"
#define DISK_IMG	"/tmp/numab-disk.img"
#define DISK_MNT	"/tmp/numab-disk"
#define DISK_MB		48

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
 * When the text's pages reached node 0: seconds from START (the readers'
 * go) to the first page there and to WANT pages there; -1 until then.
 */
struct promo_watch {
	double start, first_s, want_s;
	long want;
};

static void watch_update(struct promo_watch *w, const struct nt_placement *pl)
{
	double t = nt_now() - w->start;

	if (w->first_s < 0 && pl->node[0] > 0)
		w->first_s = t;
	if (w->want_s < 0 && pl->node[0] >= w->want)
		w->want_s = t;
}

/*
 * Wait (reading nothing but placement) until the text VMA's scan delay is
 * over in reader PID: numa_vmas state=ok next_scan_ms<0, or 1.5 scan
 * delays on a kernel without numa_vmas. W (if not NULL) follows the
 * text's promotion meanwhile. Returns the seconds waited.
 */
static double wait_scan_delay(pid_t pid, char *text, double max_s,
			      struct promo_watch *w, long npages, long pagesz)
{
	double t0 = nt_now();
	struct nt_placement pl = { 0 };
	struct text_state s;

	for (;;) {
		double t = nt_now() - t0;

		if (w && !text_placement(pid, text, npages, pagesz, &pl))
			watch_update(w, &pl);
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
	char loopdev[32];	/* the disk variants' loop device, or "" */
	int disk_mounted;
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
	int disk;		/* the text on ext2 over a loop device */
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
FIXTURE_VARIANT_ADD(shared_text, disk_8_skip) {
	.mode = 2, .readers = 8, .shared_folio = 1, .period_ms = 25, .disk = 1,
};
FIXTURE_VARIANT_ADD(shared_text, disk_8_tier) {
	.mode = 2, .readers = 8, .shared_folio = 2, .period_ms = 100, .disk = 1,
};

/* Run a shell command line in the guest; 0 when it exited with 0 */
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st != -1 && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/* Why a block filesystem cannot be made here, or NULL (nothing changed) */
static const char *disk_prereqs(void)
{
	char fs[4096];

	if (access("/dev/loop-control", F_OK))
		return "no /dev/loop-control (CONFIG_BLK_DEV_LOOP)";
	if (nt_read("/proc/filesystems", fs, sizeof(fs)) < 0 || !strstr(fs, "\text4\n"))
		return "no ext4 in /proc/filesystems (CONFIG_EXT4_FS)";
	if (sh("command -v mke2fs >/dev/null"))
		return "no mke2fs in the guest";
	return NULL;
}

/*
 * ext2 (mke2fs) on a loop device over a DISK_MB file in /tmp, mounted
 * with the ext4 driver at DISK_MNT; the text's path in it into PATH.
 */
static const char *disk_setup(FIXTURE_DATA(shared_text) *self)
{
	int fd, ctl, loop, img, n, ret;

	fd = open(DISK_IMG, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, DISK_MB * NW_MB)) {
		if (fd >= 0)
			close(fd);
		return "cannot make " DISK_IMG;
	}
	close(fd);
	/* a free loop device over the image */
	ctl = open("/dev/loop-control", O_RDWR);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (ctl >= 0)
		close(ctl);
	if (n < 0)
		return "no free loop device (LOOP_CTL_GET_FREE)";
	snprintf(self->loopdev, sizeof(self->loopdev), "/dev/loop%d", n);
	loop = open(self->loopdev, O_RDWR);
	img = open(DISK_IMG, O_RDWR);
	ret = loop < 0 || img < 0 ? -1 : ioctl(loop, LOOP_SET_FD, img);
	if (img >= 0)
		close(img);
	if (loop >= 0)
		close(loop);
	if (ret) {
		self->loopdev[0] = '\0';
		return "LOOP_SET_FD on a free loop device failed";
	}
	if (sh("mke2fs -q %s >/dev/null 2>&1 || mke2fs %s >/dev/null 2>&1",
	       self->loopdev, self->loopdev))
		return "mke2fs failed";
	if (mkdir(DISK_MNT, 0700) && errno != EEXIST)
		return "mkdir " DISK_MNT " failed";
	if (mount(self->loopdev, DISK_MNT, "ext4", 0, NULL))
		return "mounting the loop device with the ext4 driver failed";
	self->disk_mounted = 1;
	snprintf(self->path, sizeof(self->path), DISK_MNT "/text");
	return NULL;
}

static void disk_teardown(FIXTURE_DATA(shared_text) *self)
{
	if (self->disk_mounted) {
		unlink(self->path);
		self->path[0] = '\0';
		umount(DISK_MNT);
	}
	if (self->loopdev[0]) {
		int loop = open(self->loopdev, O_RDWR);

		if (loop >= 0) {
			ioctl(loop, LOOP_CLR_FD, 0);
			close(loop);
		}
	}
	unlink(DISK_IMG);
}

/* The page cache of the file at PATH written back: clean folios migrate */
static int file_sync(const char *path)
{
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return -errno;
	ret = fsync(fd) ? -errno : 0;
	close(fd);
	return ret;
}

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
	self->loopdev[0] = '\0';
	self->disk_mounted = 0;
	/* before anything is changed: a SKIP in setup runs no teardown */
	if (variant->disk) {
		why = disk_prereqs();
		if (why)
			SKIP(return, "%s", why);
	}
	if (!variant->shared_folio) {
		if (access("/proc/self/numa_vmas", R_OK))
			SKIP(return, "no /proc/self/numa_vmas: the text VMA's PTE updates cannot be read");
		if (access(NUMAB_FILTER "shared_ro", W_OK))
			SKIP(return, "no kernel.numa_balancing_filter_shared_ro: read-only file mappings are not scanned");
	}
	NW_TIERING_SETUP(self, 0, &tun);
	why = variant->disk ? disk_setup(self) : exec_dir(self);
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
	if (variant->disk) {
		ASSERT_EQ(chmod(self->path, 0755), 0);
		ASSERT_EQ(file_sync(self->path), 0);
	}
	TH_LOG("text %s%s%s, %d MiB; kernel.numa_balancing_filter_shared_folio %s",
	       self->path, variant->disk ? " on ext2 over " : "",
	       variant->disk ? self->loopdev : "", TEXT_MB,
	       self->shared_folio < 0 ? "absent (the kernel's own behaviour)" :
	       variant->shared_folio ? (variant->shared_folio == 1 ? "1" : "2") :
	       "1 then 2");
}

FIXTURE_TEARDOWN(shared_text)
{
	readers_stop(&self->r);
	if (variant->disk)
		disk_teardown(self);
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
	long min_seq = skip ? TIER_SEQ : 0, max_seq = skip ? 1000 : TIER_SEQ;
	double max_s = nw_env_long("SHARED_TEXT_MAX_SECONDS", 90);
	long want = self->npages * 95 / 100, seq, seq0, last_seq = -1;
	long promoted_seq = -1, max_node0 = 0;
	long fanout = nw_env_long("SHARED_TEXT_READERS", 0);
	int nreaders = fanout > 0 && fanout <= MAX_READERS ? fanout : variant->readers;
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl = { 0 };
	struct promo_watch w = { .first_s = -1, .want_s = -1 };
	struct nw_scan_cpu cpu;
	struct text_state st;
	char ptes[256], cpu_str[160];
	double t, t0, waited, promoted_s = -1;
	size_t len;
	int i;

	ASSERT_EQ(readers_start(&self->r, nreaders, self->path,
				TEXT_MB * NW_MB, 0), 0);
	/*
	 * Pages move_pages() gives no node for ("other": not mapped yet by
	 * the first reader, or an error) are not placed yet: on Linux 7.3
	 * the first look once found 512 of them (a 2 MiB folio's worth) on
	 * ext2, which failed the check below. Wait for them, 2 s at most.
	 */
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(text_placement(self->r.pid[0], self->r.text,
					 self->npages, self->pagesz, &pl), 0);
		if (!pl.other)
			break;
		usleep(100 * 1000);
	}
	TH_LOG("%d readers of %p: node0 %ld node1 %ld other %ld", self->r.n,
	       self->r.text, pl.node[0], pl.node[1], pl.other);
	ASSERT_GE(pl.node[1], self->npages * 99 / 100);

	nw_vmstat_read(&v0);
	if (fanout)
		nw_scan_cpu_start(&cpu);
	w.start = nt_now();
	w.want = want;
	waited = wait_scan_delay(self->r.pid[0], self->r.text, 10, &w,
				 self->npages, self->pagesz);
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
		watch_update(&w, &pl);
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
		if (promoted_seq < 0 && pl.node[0] >= want) {
			promoted_seq = seq - seq0;
			promoted_s = t - t0;
		}
		if (!skip && (promoted_seq >= 0 || seq - seq0 > max_seq))
			break;
		if (skip && seq - seq0 >= min_seq)
			break;
		if (t - t0 > max_s)
			break;
	}
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	if (fanout) {
		nw_scan_cpu_stop(&cpu);
		nw_scan_cpu_format(&cpu, cpu_str, sizeof(cpu_str));
		TH_LOG("RESULT fanout %d readers: first page on node 0 %.2f s after the readers started, %ld pages (95%%) %.2f s after it (%.2f s after the text VMA's scan delay ended in reader 0, %ld scan sequences); %.2f hinting faults per promoted page (%lld / %lld), numa_pte_updates +%lld;%s",
		       self->r.n, w.first_s, want, w.want_s >= 0 && w.first_s >= 0 ? w.want_s - w.first_s : -1.0,
		       promoted_s >= 0 ? promoted_s : -1.0, promoted_seq >= 0 ? promoted_seq : seq - seq0,
		       d.promote_success ? (double)d.hint_faults / d.promote_success : 0.0,
		       d.hint_faults, d.promote_success, d.pte_updates, cpu_str);
	}
	TH_LOG("promotion: first page on node 0 %.2f s after the readers started, %ld pages %.2f s after it",
	       w.first_s, want, w.want_s >= 0 && w.first_s >= 0 ? w.want_s - w.first_s : -1.0);
	len = 0;
	ptes[0] = '\0';
	for (i = 0; i < self->r.n && len < sizeof(ptes); i++) {
		text_state(self->r.pid[i], self->r.text, &st);
		len += snprintf(ptes + len, sizeof(ptes) - len, " %lld", st.pte_updates);
	}
	TH_LOG("RESULT shared_text%s mode 2, %d readers, %d ms period, shared_folio=%s: %s after %ld scan sequences (%.1f s): text node0 %ld/%ld node1 %ld (most on node0 seen: %ld); pgpromote_success +%lld numa_pte_updates +%lld numa_hint_faults +%lld; text VMA pte_updates per reader:%s",
	       variant->disk ? " (ext2 on a loop device)" : "", self->r.n, variant->period_ms,
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
	wait_scan_delay(self->r.pid[0], self->r.text, 10, NULL, 0, 0);
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

/*
 * -O0 wrapper: see first_fault.c (the harness's setjmp, -Wclobbered). The
 * units' timeouts bound the normal runs; 1200 s is for the fan-out
 * measurement (SHARED_TEXT_READERS=256 took 310 s of guest time).
 */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F_TIMEOUT(shared_text, placement, 1200)
{
	placement(_metadata, self, variant);
}
#pragma GCC pop_options

/* ---- KSM folios on the lower tier ------------------------------------- */

#define KSM		"/sys/kernel/mm/ksm/"
#define KSM_MB		4

FIXTURE(ksm) {
	struct nt_tunables saved;
	struct nt_filters filters;
	long run, pages_to_scan, sleep_ms;
	char *a, *b, *c;	/* a and b identical and mergeable; c control */
	long pagesz, npages;
};

/* KSM_MB of private anonymous memory on NODE: page i is SEED bytes and i */
static char *ksm_region(long pagesz, int node, int seed)
{
	size_t size = KSM_MB * NW_MB;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		return p;
	if (madvise(p, size, MADV_NOHUGEPAGE) || nw_bind_node(node)) {
		munmap(p, size);
		return MAP_FAILED;
	}
	for (i = 0; i < (long)(size / pagesz); i++) {
		memset(p + i * pagesz, seed, pagesz);
		*(long *)(p + i * pagesz) = i;	/* pages differ from each other */
	}
	nw_bind_node(-1);
	return p;
}

FIXTURE_SETUP(ksm)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = SCAN_DELAY_MS, .period_min = 100,
		.period_max = 100, .scan_size = 256,
	};

	self->run = -1;
	self->a = self->b = self->c = MAP_FAILED;
	if (access(KSM "run", W_OK))
		SKIP(return, "no " KSM "run (CONFIG_KSM)");
	if (access("/proc/self/numa_vmas", R_OK))
		SKIP(return, "no /proc/self/numa_vmas: the VMAs' PTE updates cannot be read");
	NW_TIERING_SETUP(self, 0, &tun);
	self->run = nt_read_long(KSM "run", -1);
	self->pages_to_scan = nt_read_long(KSM "pages_to_scan", -1);
	self->sleep_ms = nt_read_long(KSM "sleep_millisecs", -1);
	self->pagesz = getpagesize();
	self->npages = KSM_MB * NW_MB / self->pagesz;
	self->a = ksm_region(self->pagesz, 1, 0);
	self->b = ksm_region(self->pagesz, 1, 0);
	self->c = ksm_region(self->pagesz, 1, 77);
	ASSERT_NE(self->a, MAP_FAILED);
	ASSERT_NE(self->b, MAP_FAILED);
	ASSERT_NE(self->c, MAP_FAILED);
	ASSERT_EQ(madvise(self->a, KSM_MB * NW_MB, MADV_MERGEABLE), 0);
	ASSERT_EQ(madvise(self->b, KSM_MB * NW_MB, MADV_MERGEABLE), 0);
	ASSERT_EQ(nt_write_long(KSM "pages_to_scan", 4096), 0);
	ASSERT_EQ(nt_write_long(KSM "sleep_millisecs", 10), 0);
	ASSERT_EQ(nt_write_long(KSM "run", 1), 0);
}

FIXTURE_TEARDOWN(ksm)
{
	if (self->run >= 0) {
		nt_write_long(KSM "run", 2);	/* unmerge */
		nt_write_long(KSM "pages_to_scan", self->pages_to_scan);
		nt_write_long(KSM "sleep_millisecs", self->sleep_ms);
		nt_write_long(KSM "run", self->run);
	}
	if (self->a != MAP_FAILED)
		munmap(self->a, KSM_MB * NW_MB);
	if (self->b != MAP_FAILED)
		munmap(self->b, KSM_MB * NW_MB);
	if (self->c != MAP_FAILED)
		munmap(self->c, KSM_MB * NW_MB);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* pte_updates of the VMA that contains ADDR (a and b may be one VMA) */
static long long vma_pte_updates(const void *addr)
{
	char *all = nv_read_pid(0, 0), *line, *save = NULL;
	unsigned long start, end, a = (unsigned long)addr;
	long long v = -1;

	if (!all)
		return -1;
	for (line = strtok_r(all, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    a >= start && a < end) {
			v = nv_key_ll(line, "pte_updates", 0);
			break;
		}
	}
	free(all);
	return v;
}

static volatile char ksm_sink;

static void ksm_read(char *p, long npages, long pagesz)
{
	long i;

	for (i = 0; i < npages; i++)
		ksm_sink += ((volatile char *)p)[i * pagesz];
}

/* -O0 wrapper: see first_fault.c (the harness's setjmp, -Wclobbered) */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F_TIMEOUT(ksm, not_marked, 240)
{
	struct nt_placement pa = { 0 }, pb = { 0 }, pc = { 0 };
	long sharing = 0, seq0, seq = 0;
	long long ua, ub, uc;
	double t0;

	/* ksmd merges a and b page by page: 1024 KSM folios, 2 mappings each */
	t0 = nt_now();
	while (nt_now() - t0 < 60) {
		sharing = nt_read_long(KSM "pages_sharing", 0);
		if (sharing >= self->npages * 99 / 100)
			break;
		usleep(100000);
	}
	TH_LOG("ksm: pages_shared %ld pages_sharing %ld after %.1f s",
	       nt_read_long(KSM "pages_shared", 0), sharing, nt_now() - t0);
	ASSERT_GE(sharing, self->npages * 99 / 100);
	ASSERT_EQ(nt_placement(self->a, self->npages, self->pagesz, &pa), 0);
	ASSERT_GE(pa.node[1], self->npages * 99 / 100) TH_LOG("the KSM folios are not on node 1");

	/* past the VMAs' scan delay, then 5 scan sequences of reading */
	t0 = nt_now();
	while (nt_now() - t0 < 1.5 * SCAN_DELAY_MS / 1000.0) {
		ksm_read(self->a, self->npages, self->pagesz);
		ksm_read(self->b, self->npages, self->pagesz);
		ksm_read(self->c, self->npages, self->pagesz);
	}
	seq0 = nt_scan_seq();
	t0 = nt_now();
	while (nt_now() - t0 < 90) {
		ksm_read(self->a, self->npages, self->pagesz);
		ksm_read(self->b, self->npages, self->pagesz);
		ksm_read(self->c, self->npages, self->pagesz);
		seq = nt_scan_seq();
		if (seq - seq0 >= 5)
			break;
	}
	ASSERT_EQ(nt_placement(self->a, self->npages, self->pagesz, &pa), 0);
	ASSERT_EQ(nt_placement(self->b, self->npages, self->pagesz, &pb), 0);
	ASSERT_EQ(nt_placement(self->c, self->npages, self->pagesz, &pc), 0);
	ua = vma_pte_updates(self->a);
	ub = vma_pte_updates(self->b);
	uc = vma_pte_updates(self->c);
	TH_LOG("RESULT ksm mode 2, defaults, %ld scan sequences: KSM regions node0 %ld/%ld pte_updates %lld, node0 %ld/%ld pte_updates %lld; control (not merged) node0 %ld/%ld pte_updates %lld",
	       seq - seq0, pa.node[0], self->npages, ua, pb.node[0], self->npages, ub,
	       pc.node[0], self->npages, uc);
	ASSERT_GE(seq - seq0, 5);
	/* the control: the scanner marks and promotes what is not KSM */
	ASSERT_GT(uc, 0) TH_LOG("the control region was not marked: this run proves nothing");
	EXPECT_GE(pc.node[0], self->npages * 95 / 100);
	/* KSM folios: never marked, so never promoted */
	EXPECT_EQ(ua, 0);
	EXPECT_EQ(ub, 0);
	EXPECT_EQ(pa.node[0], 0);
	EXPECT_EQ(pb.node[0], 0);
}
#pragma GCC pop_options

TEST_HARNESS_MAIN
