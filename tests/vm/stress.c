// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded stress test of the numab series.
 *
 * For -d SECONDS (STRESS_SECONDS, default 60) of guest time, at once:
 *
 *  - NMUT mutator processes map, unmap, mprotect, mremap and madvise VMAs
 *    of every kind (private anon, memfd, MAP_SHARED tmpfs file, read-only
 *    file mapping, 2 MiB-aligned anon with MADV_HUGEPAGE), touch them,
 *    move pages to node 1 and back with move_pages(2), fork short-lived
 *    children that touch memory and exit, and switch between a cpuset
 *    with mems=0 and one with mems=0-1 (cgroup v2, when available);
 *  - NREAD readers read /proc/<pid>/numa_vmas of the mutators and of
 *    their children (alive or exiting) with buffers of 1, 7, 64, 4096 and
 *    65536 bytes: whole files, partial reads then close, re-reads after
 *    lseek(0). Every line read must parse (the "mm" line first, then
 *    ascending non-overlapping ranges with a filter, a state and, for
 *    state=ok, every key in order); ENOENT/ESRCH/early EOF of exiting
 *    processes are counted;
 *  - a writer flips kernel.numa_balancing_filter_{pid,shared_ro,
 *    scan_delay,cpuset,shared_folio} through all their values and kernel.numa_balancing
 *    through 0-3, one write every STRESS_FLIP_MS [2] ms.
 *
 * The NUMA-balancing tunables are set to scan fast; they and every sysctl
 * are restored at the end, also after a failure or SIGTERM/SIGINT.
 * Pass: all processes exited normally, no parse failure, all buffer sizes
 * read whole files, the scanner ran (numa_pte_updates or numa_vma_*
 * counters grew), the run ended within its bound, sysctls restored.
 * The VM runner adds: no kernel splat, no hung task, no soft lockup.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest.h"

#include <ctype.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define NMUT		3
#define NREAD		2
#define NSLOTS		16
#define NRING		64	/* recent children, for the readers */
#define MAX_KIDS	3	/* outstanding children per mutator */
#define GRACE_S		30	/* for the processes to stop at the end */
#define FILE_SZ		(4 * NW_MB)	/* per-mutator MAP_SHARED file */
#define ROFILE_SZ	(8 * NW_MB)
#define HUGE_SZ		(2 * NW_MB)
#define CHUNK		(64 * 1024UL)
#define READ_CAP	(4 * NW_MB)	/* largest numa_vmas file we accept */
#define LINE_MAX_LEN	8192

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_ONE		CG_ROOT "/numab-stress-0"
#define CG_TWO		CG_ROOT "/numab-stress-01"
#define ROFILE		"/tmp/numab-stress-ro"
#define RWFILE_FMT	"/tmp/numab-stress-rw%d"

#define INC(x)		__atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define ADD(x, n)	__atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)

/* ---- what the processes share ------------------------------------------- */

enum op {
	OP_ANON, OP_MEMFD, OP_FILE, OP_ROFILE, OP_HUGE, OP_MUNMAP, OP_MPROTECT,
	OP_MREMAP, OP_MADVISE, OP_TOUCH, OP_MOVE, OP_FORK, OP_CPUSET, NOPS
};

static const char *const op_names[NOPS] = {
	"mmap_anon", "mmap_memfd", "mmap_file", "mmap_rofile", "mmap_huge",
	"munmap", "mprotect", "mremap", "madvise", "touch", "move_pages",
	"fork", "cpuset",
};

static const size_t bufsizes[] = { 1, 7, 64, 4096, 65536 };
#define NBUF	ARRAY_SIZE(bufsizes)

struct knob {
	const char *path;
	long max;
};

static const struct knob knobs[] = {
	{ NUMAB_FILTER "pid", 2 },
	{ NUMAB_FILTER "shared_ro", 2 },
	{ NUMAB_FILTER "scan_delay", 1 },
	{ NUMAB_FILTER "cpuset", 1 },
	{ NUMAB_FILTER "shared_folio", 2 },
	{ NUMAB_FILTER "promo_slowdown", 1 },
	{ NUMAB_MODE, 3 },
};
#define NKNOBS	ARRAY_SIZE(knobs)

struct shared {
	volatile int stop;
	double deadline;	/* CLOCK_MONOTONIC: stop by then */
	int cpuset;		/* the two cpusets exist */
	long ops[NOPS], op_errs[NOPS];
	int op_errno[NOPS];	/* of the last failure, for the summary */
	long reads[NBUF];	/* read(2) calls */
	long files[NBUF];	/* whole files parsed */
	long lines, empty, partial, rereads, enoent, esrch, early_eof;
	long parse_fail, read_fail;
	long torn[2];		/* overlaps at seq_file restarts: numa_vmas, maps */
	long maps_files;
	long flips[NKNOBS], flip_errs;
	long kids, kids_bad;
	long pages_moved;
	pid_t mut_pids[NMUT];
	pid_t ring[NRING];
	long ring_head;
	int failed_once;
	char fail_msg[1024];
};

static struct shared *sh;

static int stopped(void)
{
	return sh->stop || nt_now() > sh->deadline;
}

/* Record the first failure with its context (any process) and stop. */
static __attribute__((format(printf, 1, 2)))
void record_failure(const char *fmt, ...)
{
	va_list ap;

	sh->stop = 1;	/* fail fast: everyone winds down */
	if (__atomic_exchange_n(&sh->failed_once, 1, __ATOMIC_SEQ_CST))
		return;
	va_start(ap, fmt);
	vsnprintf(sh->fail_msg, sizeof(sh->fail_msg), fmt, ap);
	va_end(ap);
}

/*
 * An operation failed with errno: counted, not a test failure (e.g.
 * move_pages(2) to node 1 under cpuset.mems=0 is refused).
 */
static void op_fail(int op)
{
	sh->op_errno[op] = errno;
	INC(sh->op_errs[op]);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- numa_vmas parsing ------------------------------------------------------ */

static const char *const filter_names[] = {
	"none", "unsuitable", "shared_ro", "shared_ro_promo_only", "inaccessible",
};

static const char *const skip_names[] = {
	"none", "unsuitable", "shared_ro", "inaccessible", "scan_delay",
	"pid_inactive", "ignore_pid_inactive", "seq_completed",
	"pid_inactive_promo_only", "promo_backoff", "shared_ro_promo_only",
};

static int in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

/* decimal, with a leading '-' when SIGNED */
static int is_dec(const char *s, int sign)
{
	if (sign && *s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int is_hex(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int is_0x(const char *s)
{
	return s[0] == '0' && s[1] == 'x' && is_hex(s + 2, strlen(s + 2));
}

/* next token must be KEY=VALUE; *VAL points at VALUE */
static int kv(char **save, const char *key, char **val)
{
	char *tok = strtok_r(NULL, " ", save);
	size_t n = strlen(key);

	if (!tok || strncmp(tok, key, n) || tok[n] != '=')
		return -1;
	*val = tok + n + 1;
	return 0;
}

/*
 * "mm scan_seq=N scan_offset=0x.. next_scan_ms=N", then with the
 * per-process filters "filter_NAME=V:system|process" for each filter
 */
static const char *parse_mm(char *line)
{
	static const char *const filters[] = {
		"pid", "shared_ro", "scan_delay", "shared_folio", "cpuset",
		"promo_slowdown",
	};
	char *save, *v, *tok = strtok_r(line, " ", &save);
	size_t i;

	if (!tok || strcmp(tok, "mm"))
		return "first line is not the mm line";
	if (kv(&save, "scan_seq", &v) || !is_dec(v, 1))
		return "mm: bad scan_seq";
	if (kv(&save, "scan_offset", &v) || !is_0x(v))
		return "mm: bad scan_offset";
	if (kv(&save, "next_scan_ms", &v) || !is_dec(v, 1))
		return "mm: bad next_scan_ms";
	/* the filters in effect and their source (the per-process overrides), all or none */
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		char key[32];
		size_t n;

		tok = strtok_r(NULL, " ", &save);
		if (!tok && !i)
			return NULL;	/* a kernel without the per-process overrides */
		n = snprintf(key, sizeof(key), "filter_%s=", filters[i]);
		if (!tok || strncmp(tok, key, n))
			return "mm: missing or unexpected filter_ token";
		v = tok + n;
		if (!isdigit((unsigned char)v[0]) || v[0] > '2' || v[1] != ':' ||
		    (strcmp(v + 2, "system") && strcmp(v + 2, "process")))
			return "mm: bad filter_ value";
	}
	if (strtok_r(NULL, " ", &save))
		return "mm: trailing tokens";
	return NULL;
}

/* "START-END", page aligned, START < END */
static const char *parse_range(const char *tok, unsigned long *s, unsigned long *e)
{
	const char *dash = tok ? strchr(tok, '-') : NULL;
	long pg = getpagesize();

	if (!dash || !is_hex(tok, dash - tok) || !is_hex(dash + 1, strlen(dash + 1)))
		return "bad range";
	*s = strtoul(tok, NULL, 16);
	*e = strtoul(dash + 1, NULL, 16);
	if (*s >= *e || *s % pg || *e % pg)
		return "range not page aligned or empty";
	return NULL;
}

struct key_spec {
	const char *key;
	int kind;	/* 0 unsigned, 1 signed, 2 pids, 3 skip name */
};

static const struct key_spec state_keys[] = {
	{ "start_seq", 1 }, { "prev_seq", 1 }, { "promo_seq", 1 }, { "promo_backoff", 0 },
	{ "pids", 2 }, { "pid_reset_ms", 1 }, { "next_scan_ms", 1 },
	{ "promo_only", 0 }, { "scans", 0 }, { "promo_scans", 0 },
	{ "pte_updates", 0 }, { "skip_delay", 0 }, { "skip_seq", 0 },
	{ "skip_pid", 0 }, { "last_skip", 3 },
};

static int value_ok(const char *v, int kind)
{
	const char *comma;

	switch (kind) {
	case 0:
	case 1:
		return is_dec(v, kind);
	case 2:	/* 0x..,0x.. */
		comma = strchr(v, ',');
		return comma && v[0] == '0' && v[1] == 'x' &&
		       is_hex(v + 2, comma - v - 2) && is_0x(comma + 1);
	default:
		return in_list(v, skip_names, ARRAY_SIZE(skip_names));
	}
}

static const char *parse_state(char **save)
{
	static char why[96];
	size_t i;
	char *v;

	for (i = 0; i < ARRAY_SIZE(state_keys); i++) {
		if (kv(save, state_keys[i].key, &v) ||
		    !value_ok(v, state_keys[i].kind)) {
			snprintf(why, sizeof(why), "missing or bad %s",
				 state_keys[i].key);
			return why;
		}
	}
	return NULL;
}

/* optional last token: file=PATH, heap, stack or anon */
static const char *parse_name(char **save)
{
	char *tok = strtok_r(NULL, " ", save);

	if (!tok)
		return NULL;
	if (strcmp(tok, "heap") && strcmp(tok, "stack") && strcmp(tok, "anon") &&
	    (strncmp(tok, "file=", 5) || !tok[5]))
		return "bad name token";
	if (strtok_r(NULL, " ", save))
		return "trailing tokens";
	return NULL;
}

static const char *parse_vma(char *line, unsigned long *s, unsigned long *e)
{
	char *save, *v, *tok = strtok_r(line, " ", &save);
	const char *why = parse_range(tok, s, e);

	if (why)
		return why;
	if (kv(&save, "filter", &v) ||
	    !in_list(v, filter_names, ARRAY_SIZE(filter_names)))
		return "missing or bad filter";
	if (kv(&save, "state", &v) || (strcmp(v, "none") && strcmp(v, "ok")))
		return "missing or bad state";
	if (!strcmp(v, "ok") && (why = parse_state(&save)))
		return why;
	return parse_name(&save);
}

struct parse_ctx {
	unsigned long prev_end;
	long nlines, torn;
	int maps;	/* /proc/<pid>/maps: only the ranges are checked */
};

/*
 * The order of the ranges. Under one mmap_read_lock the lines are
 * ascending and disjoint. A read that takes several seq_file fills (every
 * 4 KiB, or each read(2) call of a small buffer) restarts the walk at the
 * start address of the next VMA not shown yet (m_start(), shared with
 * maps): a VMA that now covers that address but begins lower (a merge, or
 * a new mapping over unmapped space) is shown overlapping the line before.
 * Its end is still above the previous end, always: that is checked, the
 * overlaps are counted (and compared with maps read the same way).
 */
static const char *check_order(unsigned long s, unsigned long e,
			       struct parse_ctx *c)
{
	if (c->nlines > 1 + !c->maps && e <= c->prev_end)
		return "range end not above the previous line's end";
	if (c->nlines > 1 + !c->maps && s < c->prev_end)
		c->torn++;
	c->prev_end = e;
	return NULL;
}

static const char *parse_line(const char *line, size_t len, struct parse_ctx *c)
{
	char copy[LINE_MAX_LEN];
	unsigned long s, e;
	const char *why;

	if (len >= sizeof(copy))
		return "line too long";
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (memchr(copy, '\0', len))
		return "NUL byte in line";
	if (c->maps) {
		c->nlines++;
		why = parse_range(strtok(copy, " "), &s, &e);
		return why ? why : check_order(s, e, c);
	}
	if (c->nlines++ == 0)
		return parse_mm(copy);
	why = parse_vma(copy, &s, &e);
	return why ? why : check_order(s, e, c);
}

/* the failure, with the line before it (OFF: where the bad line starts) */
static void report_parse(pid_t pid, size_t bs, const char *why,
			 const char *buf, size_t off, size_t len)
{
	const char *prev = off > 1 ? memrchr(buf, '\n', off - 1) : NULL;
	size_t from = prev ? (size_t)(prev - buf + 1) : 0;
	size_t plen = off - from;

	INC(sh->parse_fail);
	record_failure("/proc/%d/numa_vmas or maps (buffer %zu): %s at offset %zu:\n"
		       "# previous: %.*s# line: %.*s", pid, bs, why, off,
		       (int)(plen > 400 ? 400 : plen), buf + from,
		       (int)(len > 400 ? 400 : len), buf + off);
	printf("# PARSE FAILURE pid %d buffer %zu: %s\n# %.*s\n", pid, bs, why,
	       (int)(len > 400 ? 400 : len), buf + off);
	fflush(stdout);
}

/*
 * Parse the complete lines of BUF (LEN bytes read from offset 0). A file
 * read to EOF must end with a newline. Returns lines parsed or -1.
 */
static long parse_buf(const char *buf, size_t len, int whole, pid_t pid, size_t bs,
		      int maps)
{
	struct parse_ctx c = { .maps = maps };
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		const char *why;

		if (!nl) {
			if (!whole)
				break;
			report_parse(pid, bs, "no newline at end of file", buf,
				     off, len - off);
			return -1;
		}
		why = parse_line(buf + off, nl - (buf + off), &c);
		if (why) {
			report_parse(pid, bs, why, buf, off, nl - (buf + off) + 1);
			return -1;
		}
		off = nl - buf + 1;
	}
	ADD(sh->torn[maps], c.torn);
	return c.nlines;
}

/* ---- readers ------------------------------------------------------------------ */

enum rmode { R_WHOLE, R_PARTIAL, R_REREAD, NRMODES };

struct rbuf {
	char *data;
	size_t len;
	int maps;	/* reading /proc/<pid>/maps, for comparison */
};

/* read with BS-byte calls until EOF, an error or LIMIT bytes; 0 or -errno */
static int read_fd(int fd, int bi, size_t limit, struct rbuf *b)
{
	size_t bs = bufsizes[bi];

	b->len = 0;
	while (b->len < limit) {
		size_t want = limit - b->len < bs ? limit - b->len : bs;
		ssize_t n = read(fd, b->data + b->len, want);

		INC(sh->reads[bi]);
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		b->len += n;
	}
	return b->len >= READ_CAP ? -EFBIG : 0;
}

/* account for a read that ended with ERR; 0 if acceptable */
static int read_error(pid_t pid, int bi, int err, struct rbuf *b)
{
	if (err == -ESRCH) {
		INC(sh->esrch);
		return parse_buf(b->data, b->len, 0, pid, bufsizes[bi], b->maps) < 0 ? -1 : 0;
	}
	INC(sh->read_fail);
	record_failure("read of /proc/%d/numa_vmas (buffer %zu) after %zu bytes: %s",
		       pid, bufsizes[bi], b->len, strerror(-err));
	return -1;
}

/* one whole read from the current offset, parsed; -1 on failure */
static int read_whole(int fd, pid_t pid, int bi, struct rbuf *b)
{
	int err = read_fd(fd, bi, READ_CAP, b);
	long n;

	if (err)
		return read_error(pid, bi, err, b);
	if (!b->len) {
		INC(sh->empty);
		return 0;
	}
	n = parse_buf(b->data, b->len, 1, pid, bufsizes[bi], b->maps);
	if (n < 0)
		return -1;
	if (b->maps) {
		INC(sh->maps_files);
		return 0;
	}
	if (kill(pid, 0))
		INC(sh->early_eof);	/* the process went away meanwhile */
	ADD(sh->lines, n);
	INC(sh->files[bi]);
	return 0;
}

static int read_partial(int fd, pid_t pid, int bi, struct rbuf *b, uint64_t *rnd)
{
	size_t limit = 1 + nw_rand(rnd) % 3000;
	int err = read_fd(fd, bi, limit, b);
	long n;

	if (err)
		return read_error(pid, bi, err, b);
	n = parse_buf(b->data, b->len, 0, pid, bufsizes[bi], b->maps);
	if (n < 0)
		return -1;
	if (b->maps)
		return 0;
	ADD(sh->lines, n);
	INC(sh->partial);
	return 0;
}

/* read /proc/PID/numa_vmas in MODE; 0, or -1 on a failure */
static int read_target(pid_t pid, int bi, enum rmode mode, struct rbuf *b,
		       uint64_t *rnd)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid,
		 b->maps ? "maps" : "numa_vmas");
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		if (errno == ENOENT || errno == ESRCH) {
			INC(*(errno == ENOENT ? &sh->enoent : &sh->esrch));
			return 0;
		}
		record_failure("open %s: %s", path, strerror(errno));
		return -1;
	}
	if (mode == R_PARTIAL) {
		ret = read_partial(fd, pid, bi, b, rnd);
	} else {
		ret = read_whole(fd, pid, bi, b);
		if (!ret && mode == R_REREAD) {
			if (lseek(fd, 0, SEEK_SET)) {
				record_failure("lseek %s: %s", path, strerror(errno));
				ret = -1;
			} else {
				INC(sh->rereads);
				ret = read_whole(fd, pid, bi, b);
			}
		}
	}
	close(fd);
	return ret;
}

static pid_t pick_target(uint64_t *rnd)
{
	uint64_t r = nw_rand(rnd);
	long head = __atomic_load_n(&sh->ring_head, __ATOMIC_RELAXED);
	pid_t pid = 0;

	/* mostly the newest children: they are the ones exiting */
	if (r % 5 >= 2 && head > 0)
		pid = sh->ring[(head + NRING - 1 - (long)((r >> 8) % 4)) % NRING];
	else if (r % 5 == 1 && head > 0)
		pid = sh->ring[(r >> 8) % NRING];
	if (pid <= 0)
		pid = sh->mut_pids[(r >> 16) % NMUT];
	return pid;
}

static int reader_main(int id)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL ^ (getpid() * 2654435761ULL) ^ id;
	struct rbuf b = { .data = malloc(READ_CAP) };
	int ret = 0;

	if (!b.data)
		return 2;
	while (!stopped() && !ret) {
		pid_t pid = pick_target(&rnd);
		int bi = nw_rand(&rnd) % NBUF;
		enum rmode mode = nw_rand(&rnd) % NRMODES;

		b.maps = nw_rand(&rnd) % 8 == 0;
		if (pid > 0)
			ret = read_target(pid, bi, mode, &b, &rnd);
		else
			sleep_ms(1);
	}
	free(b.data);
	return 0;	/* a failure is in sh->parse_fail/read_fail */
}

/* ---- writer --------------------------------------------------------------------- */

static int writer_main(void)
{
	long flip_ms = nw_env_long("STRESS_FLIP_MS", 2);
	long val[NKNOBS];
	unsigned int k = 0;

	for (k = 0; k < NKNOBS; k++)
		val[k] = nt_read_long(knobs[k].path, 0);
	for (k = 0; !stopped(); k = (k + 1) % NKNOBS) {
		val[k] = (val[k] + 1) % (knobs[k].max + 1);
		if (nt_write_long(knobs[k].path, val[k])) {
			INC(sh->flip_errs);
			record_failure("write %ld to %s: %s", val[k],
				       knobs[k].path, strerror(errno));
		} else {
			INC(sh->flips[k]);
		}
		sleep_ms(flip_ms);
	}
	return 0;
}

/* ---- mutators --------------------------------------------------------------------- */

enum kind { K_ANON, K_MEMFD, K_FILE, K_ROFILE, K_HUGE, NKINDS };

struct slot {
	char *addr;	/* NULL: free */
	size_t len;
	off_t off;	/* file offset (file kinds) */
	size_t cap;	/* largest length the backing allows */
	int kind, prot;
	int split;	/* part of it mprotect'ed differently: do not touch */
};

struct mut {
	int id, rwfd, rofd, kids, cg;
	uint64_t rnd;
	long pagesz;
	struct slot slots[NSLOTS];
};

static long rnd_pages(struct mut *m, long max)
{
	return 1 + (long)(nw_rand(&m->rnd) % max);
}

static void touch_slot(struct mut *m, struct slot *s)
{
	volatile char *p = (volatile char *)s->addr;
	size_t i;

	if (!s->addr || s->split)
		return;
	for (i = 0; i < s->len; i += m->pagesz) {
		if (s->prot & PROT_WRITE)
			p[i]++;
		else
			(void)p[i];
	}
}

static char *map_huge(void)
{
	char *p = mmap(NULL, 2 * HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return MAP_FAILED;
	a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + HUGE_SZ, p + 2 * HUGE_SZ - (a + HUGE_SZ));
	madvise(a, HUGE_SZ, MADV_HUGEPAGE);
	return a;
}

static char *map_kind(struct mut *m, struct slot *s)
{
	int fd;
	char *p;

	switch (s->kind) {
	case K_ANON:
		return mmap(NULL, s->len, s->prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	case K_MEMFD:
		fd = memfd_create("numab-stress", 0);
		if (fd < 0 || ftruncate(fd, s->cap)) {
			if (fd >= 0)
				close(fd);
			return MAP_FAILED;
		}
		p = mmap(NULL, s->len, s->prot, MAP_SHARED, fd, 0);
		close(fd);
		return p;
	case K_FILE:
		return mmap(NULL, s->len, s->prot, MAP_SHARED, m->rwfd, s->off);
	case K_ROFILE:
		return mmap(NULL, s->len, s->prot, MAP_PRIVATE, m->rofd, s->off);
	default:
		return map_huge();
	}
}

static void setup_slot(struct mut *m, struct slot *s, int kind)
{
	long pg = m->pagesz;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->prot = kind == K_ROFILE ? PROT_READ : PROT_READ | PROT_WRITE;
	s->len = rnd_pages(m, 256) * pg;	/* up to 1 MiB */
	switch (kind) {
	case K_MEMFD:
		s->cap = 2 * NW_MB;
		break;
	case K_FILE:
	case K_ROFILE:
		s->off = (nw_rand(&m->rnd) % (NW_MB / pg)) * pg;
		s->cap = (kind == K_FILE ? FILE_SZ : ROFILE_SZ) - s->off;
		break;
	case K_HUGE:
		s->len = HUGE_SZ;
		/* fall through */
	default:
		s->cap = 4 * NW_MB;
	}
}

static void op_munmap(struct mut *m, struct slot *s)
{
	if (!s->addr)
		return;
	if (munmap(s->addr, s->len))
		op_fail(OP_MUNMAP);
	INC(sh->ops[OP_MUNMAP]);
	s->addr = NULL;
}

static void op_map(struct mut *m, struct slot *s)
{
	int kind = nw_rand(&m->rnd) % NKINDS;
	char *p;

	op_munmap(m, s);
	setup_slot(m, s, kind);
	p = map_kind(m, s);
	INC(sh->ops[OP_ANON + kind]);
	if (p == MAP_FAILED) {
		op_fail(OP_ANON + kind);
		return;
	}
	s->addr = p;
	touch_slot(m, s);
}

static void op_mprotect(struct mut *m, struct slot *s)
{
	size_t npg = s->len / m->pagesz, first, n;
	int prot;

	if (s->split) {		/* put the whole slot back */
		if (mprotect(s->addr, s->len, s->prot))
			op_fail(OP_MPROTECT);
		else
			s->split = 0;
		INC(sh->ops[OP_MPROTECT]);
		return;
	}
	first = nw_rand(&m->rnd) % npg;
	n = 1 + nw_rand(&m->rnd) % (npg - first);
	prot = nw_rand(&m->rnd) % 2 ? PROT_NONE : PROT_READ;
	if (mprotect(s->addr + first * m->pagesz, n * m->pagesz, prot))
		op_fail(OP_MPROTECT);
	else
		s->split = 1;
	INC(sh->ops[OP_MPROTECT]);
}

/* grow, shrink or move the slot */
static void op_mremap(struct mut *m, struct slot *s)
{
	uint64_t r = nw_rand(&m->rnd) % 3;
	size_t len = s->len, step = 16 * m->pagesz;
	char *p, *dst = NULL;

	if (r == 0 && len + step <= s->cap)
		len += step;
	else if (r == 1 && len > step)
		len -= step;
	else
		dst = nw_reserve_va(len);
	if (dst)
		p = mremap(s->addr, s->len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	else
		p = mremap(s->addr, s->len, len, MREMAP_MAYMOVE);
	INC(sh->ops[OP_MREMAP]);
	if (p == MAP_FAILED) {
		op_fail(OP_MREMAP);
		return;
	}
	s->addr = p;
	s->len = len;
}

static int pick_advice(struct mut *m, struct slot *s)
{
	static const int anon[] = { MADV_DONTNEED, MADV_HUGEPAGE,
				    MADV_NOHUGEPAGE, MADV_COLD, MADV_WILLNEED };
	static const int shared[] = { MADV_DONTNEED, MADV_REMOVE, MADV_COLD,
				      MADV_WILLNEED };
	static const int ro[] = { MADV_DONTNEED, MADV_COLD, MADV_WILLNEED };
	uint64_t r = nw_rand(&m->rnd);

	switch (s->kind) {
	case K_ANON:
	case K_HUGE:
		return anon[r % ARRAY_SIZE(anon)];
	case K_ROFILE:
		return ro[r % ARRAY_SIZE(ro)];
	default:
		return shared[r % ARRAY_SIZE(shared)];
	}
}

static void op_madvise(struct mut *m, struct slot *s)
{
	int advice = pick_advice(m, s);

	if (madvise(s->addr, s->len, advice))
		op_fail(OP_MADVISE);
	INC(sh->ops[OP_MADVISE]);
}

static void op_touch(struct mut *m)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		touch_slot(m, &m->slots[i]);
	INC(sh->ops[OP_TOUCH]);
}

/* up to 64 pages of the slot to node 1 (or, one time in four, node 0) */
static void op_move(struct mut *m, struct slot *s)
{
	long npg = s->len / m->pagesz, n = rnd_pages(m, 64);
	long first = nw_rand(&m->rnd) % npg, stride = 1, left;
	int node = nw_rand(&m->rnd) % 4 ? 1 : 0;

	if (s->split)
		return;
	touch_slot(m, s);
	if (first + n > npg)
		n = npg - first;
	left = nt_move_strided(s->addr, first, stride, n, m->pagesz, node);
	INC(sh->ops[OP_MOVE]);
	if (left < 0) {
		errno = -left;
		op_fail(OP_MOVE);
	} else {
		ADD(sh->pages_moved, n - left);
	}
}

static void reap_kids(struct mut *m)
{
	int st;
	pid_t pid;

	while (m->kids > 0 && (pid = waitpid(-1, &st, WNOHANG)) > 0) {
		m->kids--;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			INC(sh->kids_bad);
			record_failure("child %d of mutator %d: %s %d", pid,
				       m->id, WIFSIGNALED(st) ? "signal" : "exit",
				       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
}

/* a short-lived child: touch some slots, map and unmap a little, exit */
static void kid_main(struct mut *m)
{
	size_t len = 64 * m->pagesz;
	char *p;
	int i;

	for (i = 0; i < NSLOTS; i++)
		if (nw_rand(&m->rnd) % 2)
			touch_slot(m, &m->slots[i]);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		memset(p, 1, len);
		munmap(p, len);
	}
	if (nw_rand(&m->rnd) % 2)
		sleep_ms(nw_rand(&m->rnd) % 20);
	_exit(0);
}

static void op_fork(struct mut *m)
{
	pid_t pid;

	reap_kids(m);
	if (m->kids >= MAX_KIDS)
		return;
	m->rnd ^= 0x5555;	/* the child draws other numbers */
	pid = fork();
	if (pid == 0)
		kid_main(m);
	INC(sh->ops[OP_FORK]);
	if (pid < 0) {
		op_fail(OP_FORK);
		return;
	}
	m->kids++;
	INC(sh->kids);
	sh->ring[__atomic_fetch_add(&sh->ring_head, 1, __ATOMIC_RELAXED) % NRING] = pid;
}

static void op_cpuset(struct mut *m)
{
	static const char *const procs[] = { CG_ONE "/cgroup.procs",
					     CG_TWO "/cgroup.procs" };

	if (!sh->cpuset)
		return;
	m->cg = !m->cg;
	if (nt_write_long(procs[m->cg], getpid()))
		op_fail(OP_CPUSET);
	INC(sh->ops[OP_CPUSET]);
}

static void mutate_once(struct mut *m)
{
	struct slot *s = &m->slots[nw_rand(&m->rnd) % NSLOTS];
	uint64_t r = nw_rand(&m->rnd) % 100;

	if (!s->addr || r < 15)
		op_map(m, s);
	else if (r < 22)
		op_munmap(m, s);
	else if (r < 37)
		op_mprotect(m, s);
	else if (r < 50 && !s->split)
		op_mremap(m, s);
	else if (r < 60)
		op_madvise(m, s);
	else if (r < 70)
		op_touch(m);
	else if (r < 82)
		op_move(m, s);
	else if (r < 96)
		op_fork(m);
	else
		op_cpuset(m);
}

static int mutator_main(int id)
{
	struct mut m = { .id = id, .rwfd = -1, .rofd = -1, .pagesz = getpagesize() };
	char path[64];
	int i;

	m.rnd = 0x2545f4914f6cdd1dULL ^ ((uint64_t)getpid() << 20) ^ id;
	snprintf(path, sizeof(path), RWFILE_FMT, id);
	m.rwfd = open(path, O_RDWR);
	m.rofd = open(ROFILE, O_RDONLY);
	if (m.rwfd < 0 || m.rofd < 0) {
		record_failure("mutator %d: open %s or %s: %s", id, path, ROFILE,
			       strerror(errno));
		return 2;
	}
	while (!stopped())
		mutate_once(&m);
	for (i = 0; i < 200 && m.kids > 0; i++) {	/* 2 s at most */
		reap_kids(&m);
		sleep_ms(10);
	}
	if (m.kids > 0) {
		record_failure("mutator %d: %d children did not exit in 2 s",
			       id, m.kids);
		return 1;
	}
	for (i = 0; i < NSLOTS; i++)
		op_munmap(&m, &m.slots[i]);
	return 0;
}

/* ---- the parent ------------------------------------------------------------------------ */

struct saved {
	struct nt_tunables tun;
	long knob[NKNOBS];
	int have;
};

static struct saved saved;

static void save_all(void)
{
	unsigned int k;

	nt_tunables_save(&saved.tun);
	for (k = 0; k < NKNOBS; k++)
		saved.knob[k] = nt_read_long(knobs[k].path, -1);
	saved.have = 1;
}

/* restore everything; returns how many values did not come back */
static int restore_all(void)
{
	struct nt_tunables now;
	unsigned int k;
	int bad = 0;

	if (!saved.have)
		return 0;
	for (k = 0; k < NKNOBS; k++)
		if (saved.knob[k] >= 0)
			nt_write_long(knobs[k].path, saved.knob[k]);
	nt_tunables_set(&saved.tun);
	for (k = 0; k < NKNOBS; k++)
		bad += nt_read_long(knobs[k].path, -1) != saved.knob[k];
	nt_tunables_save(&now);
	bad += now.scan_delay != saved.tun.scan_delay ||
	       now.period_min != saved.tun.period_min ||
	       now.period_max != saved.tun.period_max ||
	       now.scan_size != saved.tun.scan_size;
	return bad;
}

static void on_signal(int sig)
{
	if (sh)
		sh->stop = 1;
}

static const char *cpuset_setup(void)
{
	char buf[256];

	if (nt_read(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) <= 0)
		return "no cgroup v2 at " CG_ROOT;
	if (!strstr(buf, "cpuset"))
		return "no cpuset controller in " CG_ROOT "/cgroup.controllers";
	if (nt_write(CG_ROOT "/cgroup.subtree_control", "+cpuset"))
		return "cannot enable +cpuset in " CG_ROOT "/cgroup.subtree_control";
	if ((mkdir(CG_ONE, 0755) && errno != EEXIST) ||
	    (mkdir(CG_TWO, 0755) && errno != EEXIST))
		return "cannot create the cpuset cgroups";
	if (nt_read(CG_ROOT "/cpuset.cpus.effective", buf, sizeof(buf)) <= 0)
		return "no " CG_ROOT "/cpuset.cpus.effective";
	strtok(buf, "\n");
	if (nt_write(CG_ONE "/cpuset.cpus", buf) || nt_write(CG_TWO "/cpuset.cpus", buf) ||
	    nt_write(CG_ONE "/cpuset.mems", "0") || nt_write(CG_TWO "/cpuset.mems", "0-1"))
		return "cannot set cpuset.cpus/mems";
	return NULL;
}

static void cpuset_cleanup(void)
{
	int i;

	for (i = 0; i < 50; i++) {	/* exited tasks leave the cgroup soon */
		if ((!rmdir(CG_ONE) || errno == ENOENT) &&
		    (!rmdir(CG_TWO) || errno == ENOENT))
			return;
		sleep_ms(20);
	}
	ksft_print_msg("could not remove %s/%s: %s\n", CG_ONE, CG_TWO,
		       strerror(errno));
}

static int make_files(void)
{
	char path[64];
	int i, ret;

	ret = nw_tmpfs_file_on(ROFILE, ROFILE_SZ, 1);	/* on the slow tier */
	for (i = 0; i < NMUT && !ret; i++) {
		snprintf(path, sizeof(path), RWFILE_FMT, i);
		ret = nw_tmpfs_file_on(path, FILE_SZ, i % 2);
	}
	return ret;
}

static void remove_files(void)
{
	char path[64];
	int i;

	unlink(ROFILE);
	for (i = 0; i < NMUT; i++) {
		snprintf(path, sizeof(path), RWFILE_FMT, i);
		unlink(path);
	}
}

/* scanner activity: numa_pte_updates and the numa_vma_* counters */
static long long scan_activity(void)
{
	static const char *const keys[] = {
		"numa_pte_updates", "numa_vma_skip_unsuitable",
		"numa_vma_skip_shared_ro", "numa_vma_skip_inaccessible",
		"numa_vma_skip_delay", "numa_vma_skip_pid", "numa_vma_skip_seq",
		"numa_vma_promo_pid", "numa_vma_promo_shared_ro",
		"numa_vma_promo_scans",
	};
	long long sum = 0, v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if ((v = nt_vmstat(keys[i])) > 0)
			sum += v;
	return sum;
}

struct procs {
	pid_t pid[NMUT + NREAD + 1];
	const char *what[NMUT + NREAD + 1];
	int n, live, bad;
};

static void spawn(struct procs *p, const char *what, int (*fn)(int), int arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGTERM, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		_exit(fn(arg));
	}
	if (pid < 0) {
		p->bad++;
		record_failure("fork %s: %s", what, strerror(errno));
		return;
	}
	p->pid[p->n] = pid;
	p->what[p->n++] = what;
	p->live++;
}

static int writer_fn(int arg)
{
	return writer_main();
}

/* reap what exited; abnormal exits are failures */
static void reap(struct procs *p, int options)
{
	int st, i;
	pid_t pid;

	while (p->live > 0 && (pid = waitpid(-1, &st, options)) > 0) {
		for (i = 0; i < p->n && p->pid[i] != pid; i++)
			;
		if (i == p->n)
			continue;
		p->live--;
		p->pid[i] = -1;
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		p->bad++;
		record_failure("%s (pid %d) %s %d", p->what[i], pid,
			       WIFSIGNALED(st) ? "killed by signal" : "exited with",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
}

static void print_progress(double t0)
{
	long ops = 0, reads = 0;
	unsigned int i;

	for (i = 0; i < NOPS; i++)
		ops += sh->ops[i];
	for (i = 0; i < NBUF; i++)
		reads += sh->reads[i];
	ksft_print_msg("t=%.0fs ops=%ld read_calls=%ld lines=%ld children=%ld\n",
		       nt_now() - t0, ops, reads, sh->lines, sh->kids);
}

/* run until the deadline, then stop everyone within GRACE_S */
static void run(struct procs *p, double t0)
{
	double next_progress = t0 + 10, kill_at;
	int i;

	while (!sh->stop && nt_now() < sh->deadline && p->live == NMUT + NREAD + 1) {
		sleep_ms(100);
		reap(p, WNOHANG);
		if (nt_now() >= next_progress) {
			print_progress(t0);
			next_progress += 10;
		}
	}
	sh->stop = 1;
	kill_at = nt_now() + GRACE_S;
	while (p->live > 0 && nt_now() < kill_at) {
		reap(p, WNOHANG);
		sleep_ms(20);
	}
	if (p->live > 0) {
		record_failure("%d processes still running %d s after the stop",
			       p->live, GRACE_S);
		for (i = 0; i < p->n; i++)
			if (p->pid[i] > 0)
				kill(p->pid[i], SIGKILL);
		reap(p, 0);
	}
}

static void print_summary(double seconds, long long act)
{
	unsigned int i;

	ksft_print_msg("RESULT stress: %.1f s, %d mutators, %d readers, cpuset switching %s\n",
		       seconds, NMUT, NREAD, sh->cpuset ? "on" : "off");
	for (i = 0; i < NOPS; i++)
		ksft_print_msg("  op %-12s %8ld (failed %ld%s%s)\n", op_names[i],
			       sh->ops[i], sh->op_errs[i],
			       sh->op_errs[i] ? ", last: " : "",
			       sh->op_errs[i] ? strerror(sh->op_errno[i]) : "");
	ksft_print_msg("  pages moved by move_pages: %ld; children forked %ld, abnormal %ld\n",
		       sh->pages_moved, sh->kids, sh->kids_bad);
	for (i = 0; i < NBUF; i++)
		ksft_print_msg("  buffer %5zu: %9ld read calls, %6ld whole files parsed\n",
			       bufsizes[i], sh->reads[i], sh->files[i]);
	ksft_print_msg("  lines parsed %ld, partial reads %ld, re-reads %ld, empty %ld, ENOENT %ld, ESRCH %ld, EOF of exited %ld, parse failures %ld, read failures %ld\n",
		       sh->lines, sh->partial, sh->rereads, sh->empty, sh->enoent,
		       sh->esrch, sh->early_eof, sh->parse_fail, sh->read_fail);
	ksft_print_msg("  overlaps with the previous line at seq_file restarts: numa_vmas %ld, maps %ld (%ld maps files read the same way)\n",
		       sh->torn[0], sh->torn[1], sh->maps_files);
	for (i = 0; i < NKNOBS; i++)
		ksft_print_msg("  flips %-45s %ld\n", knobs[i].path, sh->flips[i]);
	ksft_print_msg("  scanner activity (numa_pte_updates + numa_vma_*): +%lld\n", act);
	if (sh->failed_once)
		ksft_print_msg("first failure: %s\n", sh->fail_msg);
}

static int all_sizes_read(void)
{
	unsigned int i;

	for (i = 0; i < NBUF; i++)
		if (!sh->reads[i] || !sh->files[i])
			return 0;
	return 1;
}

static int all_knobs_flipped(void)
{
	unsigned int i;

	for (i = 0; i < NKNOBS; i++)
		if (sh->flips[i] < knobs[i].max + 1)
			return 0;
	return !sh->flip_errs;
}

static long parse_duration(int argc, char **argv)
{
	long d = nw_env_long("STRESS_SECONDS", 60);
	int c;

	while ((c = getopt(argc, argv, "d:")) != -1) {
		if (c != 'd')
			ksft_exit_fail_msg("usage: stress [-d SECONDS]\n");
		d = strtol(optarg, NULL, 0);
	}
	if (d <= 0)
		ksft_exit_fail_msg("bad duration %ld\n", d);
	return d;
}

static void prereqs(void)
{
	struct nt_filters f;

	if (access("/proc/self/numa_vmas", R_OK))
		ksft_exit_skip("no /proc/self/numa_vmas (kernel without the numab series)\n");
	if (nt_filters_save(&f))
		ksft_exit_skip("no kernel.numa_balancing_filter_* sysctls\n");
	if (access(NUMAB_DEBUGFS, F_OK))
		ksft_exit_skip("no %s\n", NUMAB_DEBUGFS);
	if (!nw_tiered())
		ksft_exit_skip("node 1 is not in a lower memory tier than node 0\n");
}

static void setup(void)
{
	struct nt_tunables fast = {
		.mode = 2, .scan_delay = 100, .period_min = 100,
		.period_max = 100, .scan_size = 64,
	};
	const char *why;

	save_all();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (nt_tunables_set(&fast))
		ksft_print_msg("could not set all fast-scan tunables\n");
	why = cpuset_setup();
	sh->cpuset = !why;
	if (why)
		ksft_print_msg("cpuset switching off: %s\n", why);
	if (make_files())
		ksft_print_msg("could not create the tmpfs files: %s\n", strerror(errno));
}

static int mutator_fn(int id)
{
	sh->mut_pids[id] = getpid();
	return mutator_main(id);
}

int main(int argc, char **argv)
{
	long duration = parse_duration(argc, argv);
	struct procs p = { .n = 0 };
	long long act0, act;
	double t0, elapsed;
	int i, unrestored;

	ksft_print_header();
	prereqs();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	ksft_set_plan(7);
	setup();
	act0 = scan_activity();
	t0 = nt_now();
	sh->deadline = t0 + duration;
	for (i = 0; i < NMUT; i++)
		spawn(&p, "mutator", mutator_fn, i);
	for (i = 0; i < NREAD; i++)
		spawn(&p, "reader", reader_main, i);
	spawn(&p, "writer", writer_fn, 0);
	run(&p, t0);
	elapsed = nt_now() - t0;
	act = scan_activity() - act0;
	unrestored = restore_all();
	cpuset_cleanup();
	remove_files();

	print_summary(elapsed, act);
	ksft_test_result(!p.bad && !sh->kids_bad, "processes exited normally\n");
	ksft_test_result(!sh->parse_fail && !sh->read_fail && sh->lines > 0,
			 "numa_vmas lines parse (%ld lines)\n", sh->lines);
	ksft_test_result(all_sizes_read(), "whole files read with every buffer size\n");
	ksft_test_result(all_knobs_flipped(), "every sysctl flipped through its values\n");
	ksft_test_result(act > 0, "scanner ran (+%lld)\n", act);
	ksft_test_result(elapsed <= duration + GRACE_S, "finished within %ld s (%.1f s)\n",
			 duration + GRACE_S, elapsed);
	ksft_test_result(!unrestored, "sysctls and tunables restored\n");
	ksft_finished();
}
