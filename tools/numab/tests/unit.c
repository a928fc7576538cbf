// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the parsers and of the per-process join, on the
 * fixture trees.  Prints TAP ("ok N - ...") and exits 1 if any failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "override.h"

static int ntest, nfail;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		nfail++;
}

#define L(s) s, strlen(s)

static const char *fixtures = "tests/fixtures";

static void use_fixture(const char *name)
{
	static char root[4096];

	snprintf(root, sizeof(root), "%s/%s", fixtures, name);
	nx_opt.sysroot = root;
}

static void test_numbers(void)
{
	uint64_t u = 0;
	int64_t s = 0;
	uint64_t a, b;

	tap(nx_parse_u64(L("18446744073709551615"), 10, &u) == 0 && u == UINT64_MAX,
	    "u64: max value parses");
	tap(nx_parse_u64(L("18446744073709551616"), 10, &u) == -1, "u64: overflow rejected");
	tap(nx_parse_u64(L("99999999999999999999"), 10, &u) == -1 &&
	    nx_parse_u64(L("184467440737095516150"), 10, &u) == -1,
	    "u64: 20- and 21-digit overflow rejected");
	tap(nx_parse_u64(L("0000000000000000000000123"), 10, &u) == 0 && u == 123,
	    "u64: leading zeros past 19 digits");
	tap(nx_parse_u64(L("-1"), 10, &u) == -1 && nx_parse_u64(L("1 "), 10, &u) == -1,
	    "u64: sign and trailing blank rejected");
	tap(nx_parse_u64(L("0x7f3a40000000"), 16, &u) == 0 && u == 0x7f3a40000000ull,
	    "u64: hex with 0x prefix");
	tap(nx_parse_u64(L("ffffffffffffffff"), 16, &u) == 0 && u == UINT64_MAX &&
	    nx_parse_u64(L("10000000000000000"), 16, &u) == -1 &&
	    nx_parse_u64(L("0000000000000000001F"), 16, &u) == 0 && u == 31 &&
	    nx_parse_u64(L("fg"), 16, &u) == -1,
	    "u64: hex max, overflow, leading zeros, bad digit");
	{
		char b[24];

		tap(!strcmp(nx_fmt_u64(b, UINT64_MAX), "18446744073709551615") &&
		    !strcmp(nx_fmt_u64(b, 4294967296ull), "4294967296") &&
		    !strcmp(nx_fmt_u64(b, 4294967295ull), "4294967295") &&
		    !strcmp(nx_fmt_u64(b, 0), "0"),
		    "fmt u64: 0, 2^32 - 1, 2^32, max");
	}
	tap(nx_parse_u64("", 0, 10, &u) == -1 && nx_parse_u64(L("12a"), 10, &u) == -1,
	    "u64: empty and garbage rejected");
	tap(nx_parse_s64(L("-9000"), &s) == 0 && s == -9000, "s64: negative value");
	tap(nx_parse_s64(L("-9223372036854775808"), &s) == 0 && s == INT64_MIN,
	    "s64: INT64_MIN parses");
	tap(nx_parse_s64(L("9223372036854775808"), &s) == -1 && nx_parse_s64(L("-"), &s) == -1,
	    "s64: overflow and lone minus rejected");
	tap(nx_parse_range(L("7f00-7f10"), &a, &b) == 0 && a == 0x7f00 && b == 0x7f10,
	    "range: parses");
	tap(nx_parse_range(L("7f10-7f00"), &a, &b) == -1 && nx_parse_range(L("7f10"), &a, &b) == -1,
	    "range: reversed or dashless rejected");
}

static void test_size(void)
{
	uint64_t v = 7;

	tap(nx_parse_size(L("1.5M"), &v) == 0 && v == 1572864, "size: 1.5M is 1.5 MiB (lsblk's sizes)");
	tap(nx_parse_size(L("1.5MiB"), &v) == 0 && v == 1572864, "size: 1.5MiB");
	tap(nx_parse_size(L("1.5MB"), &v) == 0 && v == 1500000, "size: 1.5MB is 10^6 based");
	tap(nx_parse_size(L("64k"), &v) == 0 && v == 65536 && nx_parse_size(L("1KB"), &v) == 0 &&
	    v == 1000, "size: 64k, 1KB");
	tap(nx_parse_size(L("0.25G"), &v) == 0 && v == 268435456, "size: 0.25G");
	tap(nx_parse_size(L("4096"), &v) == 0 && v == 4096 && nx_parse_size(L("4096B"), &v) == 0 &&
	    v == 4096, "size: bytes, with or without B");
	tap(nx_parse_size(L("15.9999999999999E"), &v) == 0 && v > (15ull << 60) &&
	    nx_parse_size(L("16E"), &v) == -1 && nx_parse_size(L("18446744073709551616"), &v) == -1,
	    "size: up to 2^64-1, overflow refused");
	tap(nx_parse_size(L("1.5"), &v) == -1 && nx_parse_size(L("1.M"), &v) == -1 &&
	    nx_parse_size(L(".5M"), &v) == -1 && nx_parse_size(L("-1M"), &v) == -1 &&
	    nx_parse_size(L("1X"), &v) == -1 && nx_parse_size(L("1MiBx"), &v) == -1 &&
	    nx_parse_size(L("1.5B"), &v) == -1 && nx_parse_size(L(""), &v) == -1,
	    "size: a fraction without a suffix, junk, a sign refused");
}

static void test_nodelist(void)
{
	struct nx_nodemask m;
	char buf[64];

	tap(nx_parse_nodelist(L("0-1,3\n"), &m) == 0 && nx_mask_weight(&m) == 3 &&
	    nx_mask_test(&m, 3) && !nx_mask_test(&m, 2), "nodelist: 0-1,3");
	tap(nx_parse_nodelist(L("\n"), &m) == 0 && nx_mask_empty(&m), "nodelist: empty list");
	tap(nx_parse_nodelist(L("0-"), &m) == -1 && nx_parse_nodelist(L("5-2"), &m) == -1 &&
	    nx_parse_nodelist(L("1024"), &m) == -1 && nx_parse_nodelist(L("1,x"), &m) == -1,
	    "nodelist: truncated, reversed, out of range, garbage rejected");
	nx_parse_nodelist(L("0-2,5,7-8"), &m);
	nx_format_nodelist(&m, buf, sizeof(buf));
	tap(!strcmp(buf, "0-2,5,7-8"), "nodelist: formats back (%s)", buf);
}

/*
 * The maps fast path: it takes the kernel's lines (every line of this
 * process's maps, and the test's own), and wherever it succeeds the
 * general parser gives the same entry; the others leave it.
 */
static void maps_same_as_general(void)
{
	static const char *const lines[] = {
		"7f3a00000000-7f3a40000000 rw-s 00000000 00:01 2049                       /memfd:big (deleted)",
		"7f3a40000000-7f3a48000000 rw-p 00000000 00:00 0 ",
		"7f3a40000000-7f3a48000000 rw-p 00000000 00:00 0",
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
		"7f3a40000000-7f3a48000000 rw-p 00000000 00:00 0  \t[anon:x y]\t ",
		/* each below leaves the fast path */
		"0x7f3a40000000-7f3a48000000 rw-p 00000000 00:00 0",
		"7f3a40000000-7f3a48000000  rw-p 00000000 00:00 0 /x",
		"7f3a40000000-7f3a48000000 rw-p\t00000000 00:00 0 /x",
		"7f3a40000000-7f3a48000000 rw-pp 00000000 00:00 0 /x",
		"7f3a40000000-7f3a48000000 rw- 00000000 00:00 0 /x",
		"7f3a40000000-7f3a48000000 rw-p 00000000  00:00 0 /x",
		"7f3a40000000-7f3a48000000 rw-p 00000000 00:00",
		"7f3a48000000-7f3a40000000 rw-p 00000000 00:00 0",
		"17f3a4a0000000000-27f3a4a0000000000 rw-p 00000000 00:00 0",
	};
	const size_t nfast = 5;
	char buf[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int bad = 0, own = 0, own_fast = 0;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct nx_maps_entry e1, e2;
		/* "\\t" in the table: a real tab */
		char line[256], *q = line;

		for (const char *p = lines[i]; *p && q < line + sizeof(line) - 1; p++)
			*q++ = p[0] == '\\' && p[1] == 't' ? (p++, '\t') : *p;
		*q = '\0';
		int fast = nx_parse_maps_fast(line, strlen(line), &e1);
		int r1 = nx_parse_maps_line(line, strlen(line), &e1);
		int r2 = nx_parse_maps_general(line, strlen(line), &e2);

		if (r1 != r2 || (r1 == 0 && !nx_maps_entry_eq(&e1, &e2)) ||
		    (fast == 0) != (i < nfast))
			bad++;
	}
	while (f && fgets(buf, sizeof(buf), f)) {
		struct nx_maps_entry e1, e2;
		size_t n = strcspn(buf, "\n");
		int fast = nx_parse_maps_fast(buf, n, &e1);

		own++;
		own_fast += fast == 0;
		if (nx_parse_maps_general(buf, n, &e2) || (fast == 0 && !nx_maps_entry_eq(&e1, &e2)))
			bad++;
	}
	if (f)
		fclose(f);
	tap(!bad && own > 5 && own_fast == own,
	    "maps: the fast path takes every line of a real maps file and agrees with the "
	    "general parser wherever it succeeds");
}

static void test_maps(void)
{
	struct nx_maps_entry e;

	tap(nx_parse_maps_line(L("7f3a00000000-7f3a40000000 rw-s 00000000 00:01 2049 /memfd:big (deleted)"), &e) == 0 &&
	    e.start == 0x7f3a00000000ull && e.end == 0x7f3a40000000ull &&
	    !strcmp(e.perms, "rw-s") && nx_span_eq(e.path, "/memfd:big (deleted)"),
	    "maps: path with spaces kept whole");
	tap(nx_parse_maps_line(L("7f3a40000000-7f3a48000000 rw-p 00000000 00:00 0 "), &e) == 0 &&
	    e.path.n == 0, "maps: anonymous VMA has empty path");
	tap(nx_parse_maps_line(L("7f3a40000000-7f3a48000000 rw-p 000"), &e) == -1 &&
	    nx_parse_maps_line(L("zz-7f rw-p 0 0 0"), &e) == -1,
	    "maps: truncated and garbage lines rejected");
	maps_same_as_general();
}

static void test_numa_maps(void)
{
	struct nx_numa_maps_entry e;
	struct nx_nodemask slow;

	nx_parse_nodelist(L("1"), &slow);
	tap(nx_parse_numa_maps_line(L("7f3a00000000 default file=/memfd:big\\040(deleted) dirty=3 N0=200 N1=62 kernelpagesize_kB=4"), &slow, &e) == 0 &&
	    e.start == 0x7f3a00000000ull && e.pages_fast == 200 && e.pages_slow == 62 &&
	    e.pagesize_kb == 4 && nx_span_eq(e.name, "/memfd:big\\040(deleted)"),
	    "numa_maps: pages split by tier");
	tap(nx_parse_numa_maps_line(L("7f0000000000 bind:1 huge anon=2 N1=2 kernelpagesize_kB=2048"), &slow, &e) == 0 &&
	    e.huge && e.pages_slow == 2 && e.pagesize_kb == 2048 && nx_span_eq(e.policy, "bind:1"),
	    "numa_maps: hugetlb page size and policy");
	tap(nx_parse_numa_maps_line(L("7f0000000000 default N0=18446744073709551615 N2=5 Nx=1 N99999=1 newkey=abc"), &slow, &e) == 0 &&
	    e.pages_fast == UINT64_MAX, "numa_maps: page counts saturate, bad keys tolerated");
	tap(nx_parse_numa_maps_line(L("7f3b00001000"), &slow, &e) == -1 &&
	    nx_parse_numa_maps_line(L("garbage default"), &slow, &e) == -1,
	    "numa_maps: truncated and garbage lines rejected");
}

/* the fast path for the kernel's layout parses what the general parser does */
static void same_as_general(void)
{
	static const char *const lines[] = {
		"55d0c2000000-55d0c2021000 filter=none state=ok start_seq=1 prev_seq=411 promo_seq=0 pids=0x1,0x0 pid_reset_ms=1200 next_scan_ms=-9000 promo_only=0 scans=40 promo_scans=0 pte_updates=33 skip_delay=1 skip_seq=2 skip_pid=0 last_skip=seq_completed heap",
		"7f3a00000000-7f3a40000000 filter=none state=ok start_seq=2 prev_seq=411 promo_seq=402 pids=0x1,0x0 pid_reset_ms=1200 next_scan_ms=-9000 promo_only=0 scans=37 promo_scans=4 pte_updates=131072 skip_delay=1 skip_seq=3 skip_pid=0 last_skip=seq_completed file=/memfd:big\\040(deleted)",
		"55d0c0a00000-55d0c0a21000 filter=shared_ro state=none file=/usr/bin/tiered-bench",
		"7f3a4a000000-7f3a4a021000 filter=unsuitable state=none anon",
		"7f3a4a000000-7f3a4a021000 filter=unsuitable state=none stack  ",
		"7f3a4a000000-7f3a4a021000 filter=none state=ok start_seq=1 prev_seq=2 promo_seq=3 pids=0x1,0x0 pid_reset_ms=1 next_scan_ms=2 promo_only=0 scans=1 promo_scans=0 pte_updates=0 skip_delay=0 skip_seq=0 skip_pid=0 last_skip= anon",
		/* promo_backoff, of kernels that bound the backoff in time */
		"7f3a4a000000-7f3a4a021000 filter=shared_ro_promo_only state=ok start_seq=1 prev_seq=-1 promo_seq=3 promo_backoff=2 pids=0x0,0x0 pid_reset_ms=1 next_scan_ms=2 promo_only=1 scans=0 promo_scans=5 pte_updates=0 skip_delay=0 skip_seq=0 skip_pid=0 last_skip=promo_backoff file=/usr/bin/x",
		/* series v2: counters saturated */
		"7f3a4a000000-7f3a4a021000 filter=none state=ok start_seq=1 prev_seq=2 promo_seq=3 pids=0x1,0x0 pid_reset_ms=1 next_scan_ms=2 promo_only=1 scans=65535 promo_scans=65535 pte_updates=4294967295 skip_delay=65535 skip_seq=65535 skip_pid=4294967295 last_skip=promo_backoff anon",
		/* each below leaves the fast path somewhere */
		"7f3a4a000000-7f3a4a021000 filter=unsuitable state=none anon extra",
		"7f3a4a000000-7f3a4a021000  filter=none state=none anon",
		"7f3a4a000000-7f3a4a021000 filter=none state=ok start_seq=1 prev_seq=2 pids=0x1,0x0 anon",
		"7f3a4a000000-7f3a4a021000 filter=none state=ok start_seq=1 prev_seq=2 promo_seq=3 pids=0x1,0x0 pid_reset_ms=1 next_scan_ms=2 promo_only=0 scans=1 promo_scans=0 pte_updates=0 skip_delay=0 skip_seq=0 skip_pid=0 last_skip=none file=a=b",
		"7f3a4a000000-7f3a4a021000 filter=none state=ok start_seq=-1 prev_seq=x promo_seq=3 anon",
		"7f3a4a000000-7f3a4a021000 filter=a=b state=none anon",
		"7f3a4a000000-7f3a4a021000 filter=none\tstate=none anon",
		"7f3a4a000000-7f3a4a021000 filter=none state=none file=",
		"7f3a4a000000-7f3a4a021000 filter=none state=none",
		"7f3a4a000000-7f3a4a021000 filter=none state=none anon file=/x",
		"0x7f3a4a000000-0x7f3a4a021000 filter=none state=none anon",
		" 7f3a4a000000-7f3a4a021000 filter=none state=none anon",
		"7f3a4a021000-7f3a4a000000 filter=none state=none anon",
		"7f3a4a000000-7f3a4a021000-1 filter=none state=none anon",
		"17f3a4a0000000000-27f3a4a0000000000 filter=none state=none anon",
	};
	const size_t nfast = 8;
	int bad = 0;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct nx_numab_mm m1, m2;
		struct nx_numab_vma v1, v2;
		int fast = nx_parse_numa_vmas_fast(L(lines[i]), &v1);
		int r1 = nx_parse_numa_vmas_line(L(lines[i]), &m1, &v1);
		int r2 = nx_parse_numa_vmas_general(L(lines[i]), &m2, &v2);

		if (r1 != r2 || (r1 == 0 && memcmp(&v1, &v2, sizeof(v1))) ||
		    (fast == 0) != (i < nfast)) {
			printf("# fast %d, differs or fast path %s: %s\n", fast,
			       i < nfast ? "not taken" : "taken", lines[i]);
			bad++;
		}
	}
	tap(!bad, "numa_vmas: the fast path takes the kernel's layout only, "
	    "and agrees with the general parser on %zu lines", sizeof(lines) / sizeof(lines[0]));
}

static void test_numa_vmas(void)
{
	struct nx_numab_mm mm;
	struct nx_numab_vma v;

	tap(nx_parse_numa_vmas_line(L("mm scan_seq=412 scan_offset=0x7f3a40000000 next_scan_ms=812"), &mm, &v) == 1 &&
	    mm.scan_seq == 412 && mm.scan_offset == 0x7f3a40000000ull && mm.next_scan_ms == 812,
	    "numa_vmas: mm line");
	tap(nx_parse_numa_vmas_line(L("mm scan_offset=0x1"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("mm scan_seq="), &mm, &v) == -1,
	    "numa_vmas: mm line without scan_seq rejected");
	tap(nx_parse_numa_vmas_line(L("7f3a00000000-7f3a40000000 filter=none state=ok start_seq=2 prev_seq=411 pids=0x1,0x0 pid_reset_ms=1200 next_scan_ms=-9000 promo_only=0 scans=37 promo_scans=4 pte_updates=131072 skip_delay=1 skip_seq=3 skip_pid=0 last_skip=seq_completed file=/memfd:big"), &mm, &v) == 0 &&
	    v.start == 0x7f3a00000000ull && !strcmp(nx_sym_str(v.filter), "none") && !strcmp(nx_sym_str(v.state), "ok") &&
	    v.prev_seq == 411 && v.pids[0] == 1 && v.next_scan_ms == -9000 && v.scans == 37 &&
	    v.promo_scans == 4 && v.pte_updates == 131072 && !strcmp(nx_sym_str(v.last_skip), "seq_completed") &&
	    nx_span_eq(v.name, "/memfd:big") && (v.have & NV_HAVE_SKIP_PID),
	    "numa_vmas: full VMA line (the ABI example)");
	tap(nx_parse_numa_vmas_line(L("7f3a4a000000-7f3a4a021000 filter=none state=ok start_seq=1 prev_seq=2 promo_seq=3 pids=0x1,0x0 pid_reset_ms=1 next_scan_ms=2 promo_only=1 scans=65535 promo_scans=65535 pte_updates=4294967295 skip_delay=65535 skip_seq=65535 skip_pid=4294967295 last_skip=promo_backoff anon"), &mm, &v) == 0 &&
	    v.scans == 65535 && v.promo_scans == 65535 && v.skip_delay == 65535 &&
	    v.skip_seq == 65535 && v.pte_updates == 4294967295ull && v.skip_pid == 4294967295ull &&
	    v.promo_only == 1 && !strcmp(nx_sym_str(v.last_skip), "promo_backoff"),
	    "numa_vmas: saturated counters (series v2) read as they are");
	tap(nx_parse_numa_vmas_line(L("7f3a4a000000-7f3a4a021000 filter=shared_ro_promo_only state=ok start_seq=1 prev_seq=-1 promo_seq=3 promo_backoff=2 pids=0x0,0x0 pid_reset_ms=1 next_scan_ms=2 promo_only=1 scans=0 promo_scans=5 pte_updates=0 skip_delay=0 skip_seq=0 skip_pid=0 last_skip=promo_backoff file=/usr/bin/x"), &mm, &v) == 0 &&
	    v.promo_seq == 3 && v.promo_backoff == 2 && (v.have & NV_HAVE_PROMO_BACKOFF) &&
	    v.promo_scans == 5,
	    "numa_vmas: promo_backoff read where the kernel shows it");
	tap(nx_parse_numa_vmas_line(L("7f3a4a000000-7f3a4a021000 filter=shared_ro state=none file=/usr/lib/libc.so.6"), &mm, &v) == 0 &&
	    !strcmp(nx_sym_str(v.filter), "shared_ro") && !(v.have & NV_HAVE_PREV_SEQ),
	    "numa_vmas: state=none line without per-scan keys");
	tap(nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok new_key=1 new_flag x=y=z anon"), &mm, &v) == 0 &&
	    nx_span_eq(v.name, "anon"), "numa_vmas: unknown keys tolerated");
	tap(nx_parse_numa_vmas_line(L("7f00-7f10 state=ok"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok pids=0x1"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok scans=99999999999999999999999"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("7f00-7f10 filter=none sta"), &mm, &v) == -1,
	    "numa_vmas: missing filter, bad pids, huge number, truncated line rejected");
	tap(nx_parse_numa_vmas_line(L("7f00-7f10 filter=shared_ro_promo_only state=ok start_seq=0 prev_seq=-1 promo_scans=3"), &mm, &v) == 0 &&
	    v.prev_seq == -1 && v.start_seq == 0 && !strcmp(nx_sym_str(v.filter), "shared_ro_promo_only") &&
	    nx_seqs_since(5, v.prev_seq) == 6 && nx_seqs_since(5, 9) == 0,
	    "numa_vmas: prev_seq=-1 (a VMA first seen in sequence 0) parses");
	tap(nx_parse_numa_vmas_line(L("7f00-7f10 filter=averyveryverylongfilternamethatdoesnotfitin32 state=ok"), &mm, &v) == 0 &&
	    strlen(nx_sym_str(v.filter)) == NX_SYM_LEN - 1, "numa_vmas: long strings truncated safely");
	tap(nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok scans=4294967296 skip_pid=4294967295 anon"), &mm, &v) == 0 &&
	    v.scans == UINT32_MAX && v.skip_pid == UINT32_MAX && (v.have & NV_HAVE_SCANS),
	    "numa_vmas: a counter beyond u32 saturates, not wraps");
	tap(nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok start_seq=0 prev_seq=3000000000 anon"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok start_seq=-3000000000 anon"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("7f00-7f10 filter=none state=ok start_seq=-2147483648 prev_seq=2147483647 anon"), &mm, &v) == 0 &&
	    v.start_seq == INT32_MIN && v.prev_seq == INT32_MAX,
	    "numa_vmas: a sequence beyond an int is a malformed line, not clamped (int's range parses)");
	same_as_general();
}

static void test_small_parsers(void)
{
	struct nx_span k, v;
	uint64_t n;
	int idx, val;

	tap(nx_parse_vmstat_line(L("pgpromote_success 8192"), &k, &n) == 0 &&
	    nx_span_eq(k, "pgpromote_success") && n == 8192, "vmstat: line");
	tap(nx_parse_vmstat_line(L("numa_miss 1 2"), &k, &n) == -1 &&
	    nx_parse_vmstat_line(L("numa_hit"), &k, &n) == -1, "vmstat: malformed rejected");
	tap(nx_parse_meminfo_line(L("Node 1 MemFree:         7340032 kB"), &k, &n) == 0 &&
	    nx_span_eq(k, "MemFree") && n == 7340032, "meminfo: per-node line");
	tap(nx_parse_meminfo_line(L("Node 1 MemTotal: lots kB"), &k, &n) == -1, "meminfo: garbage rejected");
	tap(nx_parse_sched_line(L("mm->numa_scan_seq                            :                  412"), &k, &v) == 0 &&
	    nx_span_eq(k, "mm->numa_scan_seq") && nx_span_eq(v, "412"), "sched: key : value");
	tap(nx_parse_sched_line(L("numa_faults node=0 task_private=3000 task_shared=0"), &k, &v) == 0 &&
	    !v.p && k.n > 20, "sched: numa_faults line kept whole");
	tap(nx_parse_sched_line(L("   "), &k, &v) == -1, "sched: blank line rejected");
	tap(nx_parse_filter_assign(L("kernel.numa_balancing_filter_pid = 2"), &idx, &val) == 0 &&
	    idx == 0 && val == 2, "filter: sysctl.conf syntax");
	tap(nx_parse_filter_assign(L("shared_ro=skip"), &idx, &val) == 0 && idx == 1 && val == 1,
	    "filter: value by name");
	tap(nx_parse_filter_assign(L("kernel.numa_balancing_filter_shared_folio = tier"), &idx, &val) == 0 &&
	    idx == 4 && val == 2 && nx_parse_filter_assign(L("shared_folio=skip"), &idx, &val) == 0 &&
	    val == 1 && nx_parse_filter_assign(L("shared_folio=3"), &idx, &val) == -1 &&
	    nx_parse_filter_assign(L("shared_folio=on"), &idx, &val) == -1 &&
	    !strcmp(nx_filter_value_name(4, 0), "off"),
	    "filter: shared_folio is off|skip|tier");
	tap(nx_parse_filter_assign(L("cpuset=tier"), &idx, &val) == -1 &&
	    nx_parse_filter_assign(L("pid=3"), &idx, &val) == -1 &&
	    nx_parse_filter_assign(L("nosuch=1"), &idx, &val) == -1 &&
	    nx_parse_filter_assign(L("pid"), &idx, &val) == -1,
	    "filter: out-of-range values and unknown names rejected");
	tap(!strcmp(nx_filter_value_name(2, 1), "on") && !strcmp(nx_filter_value_name(0, 2), "tier") &&
	    !strcmp(nx_filter_value_name(3, 5), "invalid"), "filter: value names");
	tap(nx_parse_filter_assign(L("kernel.numa_balancing_filter_promo_slowdown = 1"), &idx, &val) == 0 &&
	    idx == NX_F_PROMO_SLOWDOWN && val == 1 &&
	    nx_parse_filter_assign(L("promo_slowdown=off"), &idx, &val) == 0 && val == 0 &&
	    nx_parse_filter_assign(L("promo_slowdown=on"), &idx, &val) == 0 && val == 1 &&
	    nx_parse_filter_assign(L("promo_slowdown=tier"), &idx, &val) == -1 &&
	    nx_parse_filter_assign(L("promo_slowdown=2"), &idx, &val) == -1 &&
	    nx_filters[NX_F_PROMO_SLOWDOWN].def == 0 && nx_filters[NX_F_PROMO_SLOWDOWN].legacy == 1,
	    "filter: promo_slowdown is off|on, default off, legacy on");
}

static void test_trace(void)
{
	struct nx_trace_ev ev;

	tap(nx_parse_trace_line(L("  tiered-bench-4243    [001] .....   123.456789: sched_skip_vma_numa: numa_scan_offset=7F3A40000000 vm_start=7F3A4A000000 vm_end=7F3A4A021000 reason=shared_ro"), &ev) == 0 &&
	    ev.tid == 4243 && ev.vm_start == 0x7f3a4a000000ull && ev.vm_end == 0x7f3a4a021000ull &&
	    ev.scan_offset == 0x7f3a40000000ull && !strcmp(ev.reason, "shared_ro"),
	    "trace: real TP_printk format");
	tap(nx_parse_trace_line(L(" my [odd]-comm-77 [000] d..2. 1.0: sched_skip_vma_numa: numa_scan_offset=0 vm_start=1000 vm_end=2000 reason=pid_inactive"), &ev) == 0 &&
	    ev.tid == 77, "trace: comm with spaces, brackets and dashes");
	tap(nx_parse_trace_line(L("x-1 [000] .... 1.0: sched_move_numa: pid=1"), &ev) == -1 &&
	    nx_parse_trace_line(L("x-1 [000] .... 1.0: sched_skip_vma_numa: vm_start=1000 vm_end=2000"), &ev) == -1 &&
	    nx_parse_trace_line(L("x-1 [000] .... 1.0: sched_skip_vma_numa: vm_start=zz vm_end=2000 reason=a"), &ev) == -1,
	    "trace: other events, missing reason and bad hex rejected");
}

static void test_misc(void)
{
	char buf[64], path[4096];
	struct nx_span s = { "a\\040b\\", 8 };

	nx_unescape(s, buf, sizeof(buf));
	tap(!strcmp(buf, "a b\\"), "unescape: octal escape and trailing backslash");
	nx_human_size(1073741824ull, buf, sizeof(buf));
	tap(!strcmp(buf, "1G"), "human size: 1G");
	nx_human_size(1258291ull, buf, sizeof(buf));
	tap(!strcmp(buf, "1.2M"), "human size: 1.2M (%s)", buf);
	nx_human_size(0, buf, sizeof(buf));
	tap(!strcmp(buf, "0B"), "human size: 0B (%s)", buf);
	nx_human_size(1023, buf, sizeof(buf));
	tap(!strcmp(buf, "1023B"), "human size: 1023B (%s)", buf);
	nx_human_size(1023, buf, 4);
	tap(!strcmp(buf, "102"), "human size: truncated to a small buffer (%s)", buf);
	snprintf(path, sizeof(path), "/tmp/numab-unit-%d", (int)getpid());
	tap(nx_write_atomic(path, "hello\n", 6) == 0 && nx_read_str(path, buf, sizeof(buf)) == 0 &&
	    !strcmp(buf, "hello"), "atomic write: content");
	unlink(path);
	tap(nx_write_atomic("/nonexistent-dir/x", "a", 1) == -ENOENT,
	    "atomic write: error reported");
	use_fixture("patched");
	fputs("# expected error messages follow\n", stderr);
	tap(nx_pid_error(4242, "x", ESRCH) == NX_ENOPROC, "errors: ESRCH means process gone");
	tap(nx_pid_error(4242, "x", EACCES) == NX_EPERM, "errors: EACCES means permission");
	tap(nx_pid_error(4242, "x", ENOENT) == NX_ENOTSUP, "errors: ENOENT of a live process means unsupported");
	tap(nx_pid_error(4243, "x", ENOENT) == NX_ENOPROC, "errors: ENOENT of a gone process");
}

static const struct nx_vma *find(const struct nx_vmlist *l, uint64_t start)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].start == start)
			return &l->v[i];
	return NULL;
}

/*
 * report's scan pace, where it cannot judge a period: the words name the
 * source of the scan state that lacks it (patched's 4242, as read, then as
 * the BPF backend would have left it)
 */
static void test_pace_period_source(struct nx_vmlist *l)
{
	char buf[256];
	int backend = l->backend;
	bool have = l->have_numab;
	long ms = l->scan_period_ms, tid = l->scan_period_tid;

	nx_pace_period_unknown(l, 4243, buf, sizeof(buf));
	tap(!strcmp(buf, "numa_vmas does not give a thread's scan period"),
	    "pace: numa_vmas lacks a thread's scan period (%s)", buf);
	l->backend = NX_BACKEND_BPF;
	l->scan_period_ms = 1000;
	l->scan_period_tid = 4242;
	nx_pace_period_unknown(l, 4243, buf, sizeof(buf));
	tap(!strcmp(buf, "the BPF backend reads the scan period of thread 4242 (1000 ms), "
		    "not of thread 4243"),
	    "pace, BPF backend: the thread whose period it read, not numa_vmas (%s)", buf);
	l->scan_period_ms = 0;
	nx_pace_period_unknown(l, 4242, buf, sizeof(buf));
	tap(!strcmp(buf, "the BPF backend did not read thread 4242's scan period"),
	    "pace, BPF backend without a period: says so, not numa_vmas (%s)", buf);
	l->backend = NX_BACKEND_NONE;
	l->have_numab = false;
	nx_pace_period_unknown(l, 4242, buf, sizeof(buf));
	tap(!strcmp(buf, "no scan state"), "pace without scan state: says so (%s)", buf);
	l->backend = backend;
	l->have_numab = have;
	l->scan_period_ms = ms;
	l->scan_period_tid = tid;
}

/* the slow-tier memory by cause of patched's 4242 (report's section) */
static void test_causes_patched(const struct nx_vmlist *l)
{
	struct nx_cause *c;
	size_t n;
	int r = nx_slow_causes(l, &c, &n);

	tap(r == 0 && n == 3, "causes: three groups hold slow memory (%zu)", n);
	if (r || n != 3) {
		free(c);
		return;
	}
	tap(!strcmp(c[0].verdict, "stranded") && !strcmp(c[0].holder, "pid") &&
	    c[0].slow == 32768ull * 4096 && c[0].nvmas == 1 && c[0].ntop == 1 &&
	    l->v[c[0].top[0]].start == 0x7f3a40000000ull,
	    "causes: the PID filter's stranded group, its bytes and its VMA");
	tap(!strcmp(c[1].verdict, "stranded") && !strcmp(c[1].holder, "shared_ro") &&
	    c[1].slow == 20ull * 4096 && c[1].ntop == 1 &&
	    !strcmp(l->v[c[1].top[0]].name, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
	    "causes: the shared_ro group after it, though smaller than the scanned memory");
	tap(!strcmp(c[2].verdict, "ok") && !strcmp(c[2].holder, "none") &&
	    c[2].slow == 62144ull * 4096, "causes: the scanned memory last");
	tap(strstr(nx_cause_text("stranded", "shared_ro"), "shared_ro=tier") &&
	    strstr(nx_cause_text("stranded", "pid"), "pid=tier") &&
	    strstr(nx_cause_text("ok", "shared_ro_promo_only"), "promotion only") &&
	    strstr(nx_cause_text("stranded", "some_new_filter"), "does not know") &&
	    strcmp(nx_cause_text("unknown", "uncertain"), nx_cause_text("unknown", "unknown")),
	    "causes: a line per cause, a general one for a filter not known");
	free(c);
}

/* without scan state: one group; its largest 3 in order of slow memory */
static void test_causes_unpatched(const struct nx_vmlist *l)
{
	struct nx_cause *c;
	size_t n;
	int r = nx_slow_causes(l, &c, &n);

	tap(r == 0 && n == 1 && !strcmp(c[0].verdict, "unknown") && c[0].nvmas == 3 &&
	    c[0].ntop == 3 && l->v[c[0].top[0]].start == 0x7f3a00000000ull &&
	    l->v[c[0].top[1]].start == 0x7f3a40000000ull &&
	    l->v[c[0].top[2]].start == 0x7f3a4a000000ull,
	    "causes: the largest VMAs of a group, most slow memory first");
	free(c);
}

/* the largest 3 of a group whatever the order of the VMAs; ties: the first */
static void test_causes_top(void)
{
	static const uint64_t kb[] = { 4, 20, 12, 16, 8, 16 };
	struct nx_vma v[6];
	struct nx_vmlist l;
	struct nx_cause *c;
	size_t n;
	int r;

	memset(&l, 0, sizeof(l));
	memset(v, 0, sizeof(v));
	for (size_t i = 0; i < 6; i++) {
		v[i].start = 0x1000 * (i + 1);
		v[i].end = v[i].start + 0x1000;
		v[i].slow_bytes = kb[i] * 1024;
		v[i].verdict = "unknown";
		v[i].name = "anon";
	}
	l.v = v;
	l.n = 6;
	r = nx_slow_causes(&l, &c, &n);
	tap(r == 0 && n == 1 && c[0].nvmas == 6 && c[0].slow == 76 * 1024 && c[0].ntop == 3 &&
	    c[0].top[0] == 1 && c[0].top[1] == 3 && c[0].top[2] == 5,
	    "causes: the largest 3 of 6 VMAs in any order, the earlier of a tie first");
	free(c);
	l.n = 0;
	r = nx_slow_causes(&l, &c, &n);
	tap(r == 0 && n == 0 && !c, "causes: nothing on the slow tier, no group");
}

/*
 * @l holding one VMA @v of SIZE bytes at START, all of it on the slow
 * tier, scanned (state ok, filter FILTER), in an mm at SCAN_SEQ with
 * --stale 4; the caller sets the rest
 */
static void one_slow_vma(struct nx_vmlist *l, struct nx_vma *v, uint64_t scan_seq,
			 uint64_t start, uint64_t size, char *name, const char *perms,
			 const char *filter)
{
	memset(l, 0, sizeof(*l));
	memset(v, 0, sizeof(*v));
	l->v = v;
	l->n = 1;
	l->have_numab = l->have_numa_maps = true;
	l->stale = 4;
	l->mm.have = MM_HAVE_SEQ;
	l->mm.scan_seq = scan_seq;
	v->start = start;
	v->end = start + size;
	v->in_numab = v->in_numa_maps = true;
	v->slow_bytes = size;
	v->name = name;
	snprintf(v->perms, sizeof(v->perms), "%s", perms);
	v->nv.filter = nx_sym_cstr(filter);
	v->nv.state = nx_sym_cstr("ok");
}

/* a page check holds slow memory of a scanned VMA (pages.c's sample) */
static void test_pages(void)
{
	struct nx_vmlist l;
	struct nx_vma v;
	struct nx_cause *c = NULL;
	char why[512] = "";
	size_t n = 0;

	one_slow_vma(&l, &v, 10, 0x7f0000000000ull, 16u << 20, "anon", "rw-p", "none");
	snprintf(l.pg_how, sizeof(l.pg_how), "shared_folio=skip");
	v.nv.have = NV_HAVE_PREV_SEQ;
	v.nv.prev_seq = 9;
	v.pg_slow = 256;
	v.pg_slow_shared = 200;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(!strcmp(v.verdict, "stranded") && strstr(why, "200 of 256 sampled") &&
	    strstr(why, "(shared_folio=skip)"),
	    "pages: a scanned VMA whose slow pages are mostly shared is stranded, and why (%s)", why);
	tap(!strcmp(nx_vma_holder(&v), "shared_folio"), "pages: the holder is shared_folio");
	tap(!nx_slow_causes(&l, &c, &n) && n == 1 && !strcmp(c[0].holder, "shared_folio") &&
	    strstr(nx_cause_text(c[0].verdict, c[0].holder), "shared_folio=tier"),
	    "pages: report's cause group and its advice");
	free(c);
	v.pg_slow_shared = 127;
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "ok") && !strcmp(nx_vma_holder(&v), "none"),
	    "pages: fewer than half shared: ok");
	v.pg_slow = v.pg_slow_shared = 0;
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "ok"), "pages: not sampled: ok");
	v.pg_slow = v.pg_slow_shared = 256;
	v.nv.filter = nx_sym_cstr("shared_ro");
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(!strcmp(v.verdict, "stranded") && !strcmp(why, "filter=shared_ro") &&
	    !strcmp(nx_vma_holder(&v), "shared_ro"), "pages: a VMA filter is named before the page check");
	v.nv.filter = nx_sym_cstr("none");
	v.nv.prev_seq = 2;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(!strcmp(v.verdict, "stranded") && strstr(why, "not scanned for 8 seqs") &&
	    strcmp(nx_vma_holder(&v), "shared_folio"),
	    "pages: a VMA not scanned lately is stranded by that first, and held by it (%s, %s)",
	    why, nx_vma_holder(&v));
	/* no skip recorded: the reason names none */
	tap(v.nv.last_skip == NX_SYM_EMPTY && strstr(why, "not scanned for 8 seqs") &&
	    !strstr(why, "last_skip"),
	    "why: a VMA without a last skip is not given an empty 'last_skip=' (%s)", why);
}

/* slow memory of a VMA whose promotion-only scans back off waits, ok */
static void test_backoff(void)
{
	struct nx_vmlist l;
	struct nx_vma v;
	struct nx_cause *c = NULL;
	char why[224] = "";
	size_t n = 0;

	one_slow_vma(&l, &v, 12, 0x55d0c4a00000ull, 1u << 20, "/usr/sbin/app", "r-xp",
		     "shared_ro_promo_only");
	v.nv.last_skip = nx_sym_cstr("promo_backoff");
	v.nv.have = NV_HAVE_PREV_SEQ | NV_HAVE_PROMO_SEQ;
	v.nv.prev_seq = -1;
	v.nv.promo_seq = 10;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(!strcmp(v.verdict, "ok") && v.backoff &&
	    strstr(why, "(filter=shared_ro_promo_only), backing off") &&
	    strstr(why, "(seq 10) marked no page") && strstr(why, "due in seq 12 or 14 (now 12)"),
	    "backoff: a promotion-only VMA waiting out its backoff is ok, and why (%s)", why);
	tap(!strcmp(nx_vma_holder(&v), "promo_backoff") && !nx_slow_causes(&l, &c, &n) &&
	    n == 1 && !strcmp(c[0].verdict, "ok") && !strcmp(c[0].holder, "promo_backoff") &&
	    strstr(nx_cause_text(c[0].verdict, c[0].holder), "2 or 4 scan sequences"),
	    "backoff: its own cause group, and what it means");
	free(c);
	l.sec_per_seq = 30;
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(strstr(why, "(now 12, at most about 60 s)") != NULL,
	    "backoff: the wait in time at a measured rate (%s)", why);
	l.sec_per_seq = 0;
	l.mm.scan_seq = 14;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(v.backoff && !strcmp(v.verdict, "ok") && strstr(why, "due in seq 12 or 14 (now 14)"),
	    "backoff: due in this sequence, still waiting for the pass that reaches it (%s)", why);
	l.mm.scan_seq = 15;
	nx_vma_judge(&v, &l);
	tap(!v.backoff && !strcmp(nx_vma_holder(&v), "shared_ro_promo_only"),
	    "backoff: over after the 4th sequence, whatever the last skip says");
	tap(!strcmp(v.verdict, "stranded") &&
	    strstr(nx_cause_text(v.verdict, nx_vma_holder(&v)), "not even such a scan came"),
	    "backoff: a promotion-only VMA stale past it is stranded, and the cause says how");
	l.mm.scan_seq = 12;
	v.nv.last_skip = nx_sym_cstr("shared_ro_promo_only");
	nx_vma_judge(&v, &l);
	tap(!v.backoff, "backoff: not when the last pass scanned it");
	v.nv.last_skip = nx_sym_cstr("promo_backoff");
	v.slow_bytes = 0;
	nx_vma_judge(&v, &l);
	tap(!v.backoff, "backoff: nothing on the slow tier, nothing waits");
	v.slow_bytes = 1u << 20;
	v.nv.have = NV_HAVE_PREV_SEQ;
	nx_vma_judge(&v, &l);
	tap(!v.backoff, "backoff: not told without promo_seq");
	v.nv.have = NV_HAVE_PREV_SEQ | NV_HAVE_PROMO_SEQ;
	v.nv.prev_seq = 11;
	nx_vma_judge(&v, &l);
	tap(!v.backoff && !strcmp(v.verdict, "ok"),
	    "backoff: not told after a full scan newer than the promotion-only one");
	l.stale = 1;
	v.nv.prev_seq = -1;
	l.mm.scan_seq = 13;
	nx_vma_judge(&v, &l);
	tap(v.backoff && !strcmp(v.verdict, "ok"),
	    "backoff: a VMA backing off is not stale, whatever --stale (%s)", v.verdict);
	l.stale = 4;
	l.mm.scan_seq = 12;
	v.nv.filter = nx_sym_cstr("none");
	v.nv.prev_seq = 2;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(v.backoff && !strcmp(nx_vma_holder(&v), "promo_backoff") &&
	    !strncmp(why, "scanned promotion-only, backing off", 35),
	    "backoff: a PID-inactive VMA scanned promotion-only waits the same (%s)", why);

	/* kernels that show promo_backoff: the wait is known, and bounded in time */
	v.nv.filter = nx_sym_cstr("shared_ro_promo_only");
	v.nv.prev_seq = -1;
	v.nv.have = NV_HAVE_PREV_SEQ | NV_HAVE_PROMO_SEQ | NV_HAVE_PROMO_BACKOFF;
	v.nv.promo_backoff = 1;
	l.mm.scan_seq = 11;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(v.backoff && strstr(why, "the next is due in seq 12 or once 2 minimum scan periods "
				"have passed, whichever comes first (now 11)"),
	    "backoff: with promo_backoff=1, due in promo_seq + 2 or after 2 minimum scan "
	    "periods (%s)", why);
	l.mm.scan_seq = 13;
	nx_vma_judge(&v, &l);
	tap(!v.backoff, "backoff: with promo_backoff=1, over after the 2nd sequence");
	v.nv.promo_backoff = 2;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(v.backoff && strstr(why, "due in seq 14 or once 4 minimum scan periods"),
	    "backoff: with promo_backoff=2, due in promo_seq + 4 (%s)", why);
	v.nv.promo_backoff = 7;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(v.backoff && strstr(why, "due in seq 14 or once 4 minimum scan periods"),
	    "backoff: a promo_backoff out of range is taken as the longest wait (%s)", why);
}

/* slow memory the PID filter skipped at the last pass, scanned lately: ok, said */
static void test_pid_held(void)
{
	struct nx_vmlist l;
	struct nx_vma v;
	struct nx_cause *c = NULL;
	char why[256] = "";
	size_t n = 0;

	/* a backend's buffer pool: scanned at seq 1, skipped as pid_inactive at seq 2 */
	one_slow_vma(&l, &v, 2, 0x7f8fdb45e000ull, 280u << 20, "/dev/zero (deleted)", "rw-s",
		     "none");
	v.nv.last_skip = nx_sym_cstr("pid_inactive");
	v.nv.have = NV_HAVE_PREV_SEQ | NV_HAVE_PROMO_SEQ;
	v.nv.prev_seq = 1;
	v.nv.promo_seq = -1;
	v.release_in = -1;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(!strcmp(v.verdict, "ok") && v.pid_held && !v.backoff &&
	    !strcmp(why, "last skipped by the PID filter (last_skip=pid_inactive), last scanned "
		    "in full 1 seqs ago: stranded if that reaches 4 seqs"),
	    "pid held: ok, and why (%s)", why);
	v.nv.have |= NV_HAVE_SCANS;
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(strstr(why, "(last_skip=pid_inactive), not scanned in full yet:") != NULL,
	    "pid held: never scanned in full, said so (%s)", why);
	v.nv.scans = 2;
	v.nv.prev_seq = 2;
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "ok") && !v.pid_held && !strcmp(nx_vma_holder(&v), "none"),
	    "pid held: not when a full scan came in this sequence after the skip (forced retry)");
	v.nv.prev_seq = 1;
	v.nv.have &= ~NV_HAVE_PREV_SEQ;
	nx_vma_judge(&v, &l);
	tap(!v.pid_held, "pid held: not told without prev_seq");
	v.nv.have |= NV_HAVE_PREV_SEQ;
	l.mm.scan_seq = 9;
	v.nv.promo_seq = 8;
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "ok") && !v.pid_held,
	    "pid held: not when stale by full scans, recent by a promotion-only one");
	l.mm.scan_seq = 2;
	v.nv.promo_seq = -1;
	nx_vma_judge(&v, &l);
	tap(!strcmp(nx_vma_holder(&v), "pid") && !nx_slow_causes(&l, &c, &n) && n == 1 &&
	    !strcmp(c[0].verdict, "ok") && !strcmp(c[0].holder, "pid") &&
	    strstr(nx_cause_text(c[0].verdict, c[0].holder), "pid=tier"),
	    "pid held: cause pid, and what to do");
	free(c);
	l.mm.scan_seq = 5;
	nx_vma_judge(&v, &l);
	nx_vma_why(&v, &l, why, sizeof(why));
	tap(!strcmp(v.verdict, "stranded") && !v.pid_held && !strcmp(nx_vma_holder(&v), "pid") &&
	    strstr(why, "not scanned for 4 seqs, last_skip=pid_inactive"),
	    "pid held: stranded once it lasts --stale seqs (%s)", why);
	l.mm.scan_seq = 2;
	v.nv.last_skip = nx_sym_cstr("seq_completed");
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "ok") && !v.pid_held && !strcmp(nx_vma_holder(&v), "none"),
	    "pid held: not after another skip reason");
	v.nv.last_skip = nx_sym_cstr("pid_inactive");
	v.slow_bytes = 0;
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "ok") && !v.pid_held, "pid held: nothing on the slow tier, nothing held");
	v.slow_bytes = 280u << 20;
	v.nv.filter = nx_sym_cstr("shared_ro");
	nx_vma_judge(&v, &l);
	tap(!strcmp(v.verdict, "stranded") && !v.pid_held && !strcmp(nx_vma_holder(&v), "shared_ro"),
	    "pid held: a static filter is named first");
}

static void test_vmlist(void)
{
	struct nx_topo topo;
	struct nx_vmlist l;
	const struct nx_vma *v;
	char why[96] = "";
	int r;

	use_fixture("patched");
	nx_topo_load(&topo);
	tap(topo.nnodes == 2 && nx_mask_test(&topo.slow, 1) && !nx_mask_test(&topo.slow, 0) &&
	    topo.nodes[1].tier == 90 && topo.nodes[0].total_kb == 8126464,
	    "topo: node1 is the slow tier, meminfo read");
	r = nx_vmlist_load(&l, 4242, &topo, 4);
	tap(r == 0 && l.n == 9 && l.have_numab && l.mm.scan_seq == 412, "vmlist: patched loads 9 VMAs");
	v = find(&l, 0x7f3a40000000ull);
	tap(v && !strcmp(v->verdict, "stranded") && v->slow_bytes == 32768ull * 4096,
	    "vmlist: stale anon VMA on slow tier is stranded");
	v = find(&l, 0x7f3a4a000000ull);
	if (v)
		nx_vma_why(v, &l, why, sizeof(why));
	tap(v && !strcmp(v->verdict, "stranded") && !strcmp(why, "filter=shared_ro"),
	    "vmlist: shared_ro-filtered VMA with slow pages is stranded");
	v = find(&l, 0x7f3a40000000ull);
	if (v)
		nx_vma_why(v, &l, why, sizeof(why));
	tap(v && !strcmp(why, "not scanned for 112 seqs, last_skip=pid_inactive"),
	    "vmlist: why a stale VMA is stranded (%s)", why);
	v = find(&l, 0x7f3a4b000000ull);
	tap(v && !strcmp(v->verdict, "skipped"), "vmlist: filtered VMA without slow pages is skipped");
	v = find(&l, 0x7f3a00000000ull);
	tap(v && !strcmp(v->verdict, "ok") && v->name && !strcmp(v->name, "/memfd:big (deleted)"),
	    "vmlist: recently scanned VMA is ok, name from maps");
	v = find(&l, 0xffffffffff600000ull);
	tap(v && !strcmp(v->verdict, "unknown") && !v->in_numa_maps, "vmlist: vsyscall not in numa_vmas");
	test_causes_patched(&l);
	test_pace_period_source(&l);
	nx_vmlist_free(&l);
	r = nx_vmlist_load(&l, 4242, &topo, 200);
	v = find(&l, 0x7f3a40000000ull);
	tap(r == 0 && v && !strcmp(v->verdict, "ok"), "vmlist: --stale threshold respected");
	nx_vmlist_free(&l);
	tap(nx_vmlist_load(&l, 4243, &topo, 4) == NX_ENOPROC, "vmlist: process exiting mid-read");
	tap(nx_vmlist_load(&l, 31337, &topo, 4) == NX_ENOPROC, "vmlist: no such process");
	nx_topo_free(&topo);

	use_fixture("unpatched-6.12");
	nx_topo_load(&topo);
	r = nx_vmlist_load(&l, 4242, &topo, 4);
	tap(r == 0 && !l.have_numab && l.have_numa_maps && strstr(l.missing, "numa_vmas") &&
	    !strcmp(l.v[3].verdict, "unknown") && l.v[3].slow_bytes == 32768ull * 4096,
	    "vmlist: unpatched kernel gives residency, verdict unknown");
	test_causes_unpatched(&l);
	nx_vmlist_free(&l);
	nx_topo_free(&topo);

	use_fixture("single-node");
	nx_topo_load(&topo);
	r = nx_vmlist_load(&l, 4242, &topo, 4);
	v = find(&l, 0x7f3a40000000ull);
	tap(r == 0 && nx_mask_empty(&topo.slow) && v && v->slow_bytes == 0 &&
	    !strcmp(v->verdict, "ok"), "vmlist: single node has no slow tier, nothing stranded");
	nx_vmlist_free(&l);
	nx_topo_free(&topo);

	use_fixture("malformed");
	nx_topo_load(&topo);
	r = nx_vmlist_load(&l, 4242, &topo, 4);
	tap(r == 0 && l.bad_lines >= 10 && l.n == 11, "vmlist: malformed lines skipped and counted (%lu)",
	    l.bad_lines);
	nx_vmlist_free(&l);
	nx_topo_free(&topo);

	use_fixture("no-numab");
	nx_topo_load(&topo);
	r = nx_vmlist_load(&l, 4242, &topo, 4);
	tap(r == 0 && !topo.have_nodes && !l.have_numa_maps && l.n == 9 && l.missing[0],
	    "vmlist: kernel without NUMA lists ranges only");
	nx_vmlist_free(&l);
	nx_topo_free(&topo);
}

static void test_filters(void)
{
	struct nx_filters_state st;

	use_fixture("patched");
	nx_filters_read(&st);
	tap(st.present == 6 && st.val[0] == 2 && st.val[3] == 1 && st.val[4] == 2 &&
	    st.val[NX_F_PROMO_SLOWDOWN] == 0,
	    "filters: read from sysctls, shared_folio and promo_slowdown too");
	{
		int val[NX_NFILTERS];
		bool set[NX_NFILTERS];

		nx_filters_preset(val, set, true);
		tap(val[0] == 1 && val[1] == 1 && val[2] == 1 && val[3] == 0 && val[4] == 1 &&
		    val[5] == 1 && set[0] && set[1] && set[2] && set[3] && set[4] && set[5],
		    "filters: --legacy is pid=1 shared_ro=1 scan_delay=1 cpuset=0 shared_folio=1 "
		    "promo_slowdown=1");
		nx_filters_preset(val, set, false);
		tap(val[0] == 2 && val[1] == 2 && val[2] == 1 && val[3] == 1 && val[4] == 2 &&
		    val[5] == 0 && set[4] && set[5],
		    "filters: --default is pid=2 shared_ro=2 scan_delay=1 cpuset=1 shared_folio=2 "
		    "promo_slowdown=0");
		use_fixture("unpatched-6.12");
		nx_filters_preset(val, set, true);
		tap(set[0] && set[4], "filters: --legacy without any filter sysctl sets all (the write says why)");
	}
	use_fixture("unpatched-6.12");
	nx_filters_read(&st);
	tap(st.present == 0 && st.val[0] == -1, "filters: absent on unpatched kernel");
	tap(nx_numa_balancing_mode() == 2, "mode: memory tiering");
	use_fixture("no-numab");
	tap(nx_numa_balancing_mode() == -1 && !strcmp(nx_mode_name(-1), "unsupported"),
	    "mode: absent without NUMA balancing");
}

/* run @fn with stderr in a temporary file; its text into @buf */
static int with_stderr(char *buf, size_t sz, int (*fn)(void *), void *arg)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), r;
	size_t n = 0;

	buf[0] = '\0';
	if (!tmp || saved < 0)
		return -100;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sz - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return r;
}

struct werr {
	pid_t pid;
	int err;
	bool at_open;
	int val[NX_NFILTERS];
	bool set[NX_NFILTERS];
};

static int call_write_error(void *p)
{
	struct werr *w = p;

	return nx_pf_write_error(w->pid, "/proc/X/numa_filters", w->err, w->at_open,
				 w->val, w->set);
}

/* does preset @which of this fixture's kernel write @want to numa_filters? */
static bool preset_is(int which, const char *want)
{
	int val[NX_NFILTERS];
	bool set[NX_NFILTERS];
	char buf[512];

	nx_pf_preset(val, set, which);
	return nx_pf_format(val, set, buf, sizeof(buf)) > 0 && !strcmp(buf, want);
}

static int call_preset_legacy(void *p)
{
	int val[NX_NFILTERS];
	bool set[NX_NFILTERS];

	(void)p;
	nx_pf_preset(val, set, NX_PF_LEGACY);
	return set[NX_F_PROMO_SLOWDOWN] ? 1 : 0;
}

static void test_override(void)
{
	struct nx_proc_filters pf;
	struct nx_numab_mm mm;
	struct nx_numab_vma v;
	char buf[512], err[2048];

	/* numa_filters: kernel order pid shared_ro scan_delay shared_folio cpuset promo_slowdown */
	tap(nx_parse_numa_filters_line(L("pid=1 shared_ro=inherit scan_delay=inherit shared_folio=0 cpuset=inherit promo_slowdown=1"), &pf) == 0 &&
	    pf.have == 0x3f && pf.val[0] == 1 && pf.val[1] == NX_FILTER_INHERIT &&
	    pf.val[4] == 0 && pf.val[3] == NX_FILTER_INHERIT && pf.val[NX_F_PROMO_SLOWDOWN] == 1,
	    "numa_filters: a full line, shared_folio, cpuset and promo_slowdown in their slots");
	tap(nx_parse_numa_filters_line(L("pid=1 shared_ro=inherit scan_delay=inherit shared_folio=0 cpuset=inherit"), &pf) == 0 &&
	    pf.have == 0x1f, "numa_filters: the line of an older series, no promo_slowdown");
	tap(nx_parse_numa_filters_line(L("pid=2 future=3 cpuset=1\n"), &pf) == 0 &&
	    pf.have == ((1u << 0) | (1u << 3)) && pf.val[3] == 1,
	    "numa_filters: unknown names ignored, missing ones not had");
	tap(nx_parse_numa_filters_line("", 0, &pf) == 0 && pf.have == 0,
	    "numa_filters: empty line (kernel thread): nothing had");
	tap(nx_parse_numa_filters_line(L("pid=0:priv shared_ro=inherit cpuset=1"), &pf) == 0 &&
	    pf.have == ((1u << 0) | (1u << 1) | (1u << 3)) && pf.val[0] == 0 &&
	    pf.priv == 1u, "numa_filters: a privileged override (:priv) read as its value");
	/* pid: skip 1 > tier 2 > off 0; cpuset (index 3): on 1 > off 0 */
	tap(nx_parse_numa_filters_line(L("pid=0 cpuset=0:priv"), &pf) == 0 &&
	    nx_pf_applied(&pf, 0, 2) == NX_FILTER_INHERIT && nx_pf_applied(&pf, 0, 0) == 0 &&
	    nx_pf_applied(&pf, 3, 1) == 0 && nx_pf_applied(&pf, 1, 2) == NX_FILTER_INHERIT &&
	    !nx_filter_relaxes(0, NX_FILTER_INHERIT, 2) && !nx_filter_relaxes(0, 1, -1),
	    "numa_filters: a plain override gives way to a stricter sysctl, a :priv one holds");
	tap(nx_parse_numa_filters_line(L("pid=:priv"), &pf) == -1 &&
	    nx_parse_numa_filters_line(L("pid=1:pri"), &pf) == -1 &&
	    nx_parse_numa_filters_line(L("pid=inherit:priv"), &pf) == -1,
	    "numa_filters: :priv without a value, a bad suffix rejected");
	tap(nx_parse_numa_filters_line(L("pid=x"), &pf) == -1 &&
	    nx_parse_numa_filters_line(L("pid"), &pf) == -1 &&
	    nx_parse_numa_filters_line(L("pid=256"), &pf) == -1 &&
	    nx_parse_numa_filters_line(L("pid=-1"), &pf) == -1 &&
	    nx_parse_numa_filters_line(L("kernel.numa_balancing_filter_pid=1"), &pf) == 0 && pf.have == 0,
	    "numa_filters: bad value, bare word, too big, negative rejected; only short names");

	/* the mm line of numa_vmas */
	tap(nx_parse_numa_vmas_line(L("mm scan_seq=412 scan_offset=0x0 next_scan_ms=1 filter_pid=1:process filter_shared_ro=2:system filter_scan_delay=1:system filter_shared_folio=2:system filter_cpuset=0:process filter_promo_slowdown=1:process"), &mm, &v) == 1 &&
	    mm.scan_seq == 412 && mm.filt_have == 0x3f && mm.filt_val[0] == 1 &&
	    mm.filt_src[0] == NX_FSRC_PROCESS && mm.filt_src[1] == NX_FSRC_SYSTEM &&
	    mm.filt_val[3] == 0 && mm.filt_src[3] == NX_FSRC_PROCESS && mm.filt_val[4] == 2 &&
	    mm.filt_val[NX_F_PROMO_SLOWDOWN] == 1 && mm.filt_src[NX_F_PROMO_SLOWDOWN] == NX_FSRC_PROCESS,
	    "numa_vmas: mm line with the effective filters and their sources, promo_slowdown too");
	tap(nx_parse_numa_vmas_line(L("mm scan_seq=412 scan_offset=0x0 next_scan_ms=1"), &mm, &v) == 1 &&
	    mm.filt_have == 0 && mm.filt_src[0] == NX_FSRC_UNKNOWN,
	    "numa_vmas: mm line without filters: source unknown, not system");
	tap(nx_parse_numa_vmas_line(L("mm scan_seq=1 filter_pid=1:cgroup filter_cpuset=1 filter_new=3:system"), &mm, &v) == 1 &&
	    mm.filt_have == ((1u << 0) | (1u << 3)) && mm.filt_src[0] == NX_FSRC_UNKNOWN &&
	    mm.filt_src[3] == NX_FSRC_UNKNOWN && mm.filt_val[3] == 1,
	    "numa_vmas: unknown source word or none: unknown; unknown filter ignored");
	tap(nx_parse_numa_vmas_line(L("mm scan_seq=1 filter_pid=x:system"), &mm, &v) == -1 &&
	    nx_parse_numa_vmas_line(L("mm scan_seq=1 filter_pid=:system"), &mm, &v) == -1,
	    "numa_vmas: mm line with a bad filter value rejected");
	tap(nx_parse_numa_vmas_line(L("mm scan_seq=1 filter_pid=1:process filter_shared_ro=2:system"), &mm, &v) == 1 &&
	    (nx_pf_mm_line(&mm, buf, sizeof(buf)), !strcmp(buf, "pid=skip(process) shared_ro=tier(system) scan_delay=unknown shared_folio=unknown cpuset=unknown promo_slowdown=unknown")),
	    "vmas filters line: missing filters are unknown");

	/* the string written to numa_filters */
	{
		int val[NX_NFILTERS] = { 1, NX_FILTER_INHERIT, 0, 0, 2, 0 };
		bool set[NX_NFILTERS] = { true, true, false, true, true, false };
		int idx, x;

		tap(nx_pf_format(val, set, buf, sizeof(buf)) == (int)strlen("pid=1 shared_ro=inherit shared_folio=2 cpuset=0\n") &&
		    !strcmp(buf, "pid=1 shared_ro=inherit shared_folio=2 cpuset=0\n"),
		    "numa_filters write: the kernel's order, inherit, only the set filters");
		memset(set, 0, sizeof(set));
		tap(nx_pf_format(val, set, buf, sizeof(buf)) == -1, "numa_filters write: nothing set: -1");
		set[2] = true;
		val[2] = 2;	/* scan_delay is 0..1 */
		tap(nx_pf_format(val, set, buf, sizeof(buf)) == -1, "numa_filters write: out-of-range value: -1");
		val[2] = 1;
		tap(nx_pf_format(val, set, buf, 8) == -1 && nx_pf_format(val, set, buf, 14) == 13,
		    "numa_filters write: a short buffer fails, an exact one fits");
		use_fixture("per-process");
		tap(preset_is(NX_PF_LEGACY, "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=0 promo_slowdown=1\n"),
		    "numa_filters write: --legacy");
		tap(preset_is(NX_PF_INHERIT, "pid=inherit shared_ro=inherit scan_delay=inherit shared_folio=inherit cpuset=inherit promo_slowdown=inherit\n"),
		    "numa_filters write: --inherit");
		use_fixture("no-promo-slowdown");
		tap(with_stderr(err, sizeof(err), call_preset_legacy, NULL) == 0 &&
		    strstr(err, "--legacy: kernel.numa_balancing_filter_promo_slowdown is not on "
			   "this kernel (an older numab series): left out"),
		    "numa_filters --legacy on an older series: promo_slowdown left out, said");
		tap(preset_is(NX_PF_LEGACY, "pid=1 shared_ro=1 scan_delay=1 shared_folio=1 cpuset=0\n"),
		    "numa_filters write: --legacy on an older series: the five it has");
		use_fixture("unpatched-6.12");
		nx_pf_preset(val, set, NX_PF_DEFAULT);
		tap(set[NX_F_PROMO_SLOWDOWN] && set[0],
		    "numa_filters --default without the series: all set (the write says why)");
		tap(!nx_pf_parse_assign("pid=inherit", &idx, &x) && idx == 0 && x == NX_FILTER_INHERIT &&
		    !nx_pf_parse_assign("shared_folio=tier", &idx, &x) && idx == 4 && x == 2 &&
		    !nx_pf_parse_assign("cpuset=0", &idx, &x) && idx == 3 && x == 0,
		    "override assignment: inherit, names, numbers");
	}
	tap(nx_filter_rank(0, 1) > nx_filter_rank(0, 2) && nx_filter_rank(0, 2) > nx_filter_rank(0, 0) &&
	    nx_filter_rank(4, 1) > nx_filter_rank(4, 2) && nx_filter_rank(3, 1) > nx_filter_rank(3, 0) &&
	    nx_filter_rank(NX_F_PROMO_SLOWDOWN, 1) > nx_filter_rank(NX_F_PROMO_SLOWDOWN, 0) &&
	    nx_filter_rank(2, 2) == -1,
	    "restrictiveness: skip > tier > off, on > off (promo_slowdown=1 scans less)");

	/* errors of a write, as the kernel gives them (patched: pid=2 system) */
	use_fixture("patched");
	{
		struct werr w = { .pid = 4242, .err = -EPERM, .val = { 0, 1, 0, 0, 0, 0 },
				  .set = { true, true, false, false, false, false } };

		tap(with_stderr(err, sizeof(err), call_write_error, &w) == NX_EPERM &&
		    strstr(err, "CAP_SYS_NICE") && strstr(err, "pid=off (kernel.numa_balancing_filter_pid = 2, tier)") &&
		    !strstr(err, "shared_ro=skip ("),
		    "write EPERM: exit 3, names the value less restrictive than the sysctl, CAP_SYS_NICE");
		w.err = -EINVAL;
		tap(with_stderr(err, sizeof(err), call_write_error, &w) == NX_EUSAGE &&
		    strstr(err, "'pid=0 shared_ro=1'") && strstr(err, "EINVAL"),
		    "write EINVAL: exit 1, shows what was written");
		w.err = -ESRCH;
		tap(with_stderr(err, sizeof(err), call_write_error, &w) == NX_ENOPROC &&
		    strstr(err, "kernel thread"), "write ESRCH: exit 5, kernel thread");
		w.err = -EACCES;
		w.at_open = true;
		tap(with_stderr(err, sizeof(err), call_write_error, &w) == NX_EPERM &&
		    strstr(err, "not yours") &&
		    strstr(err, geteuid() ? "run as root" : "runs as root already"),
		    "open EACCES: exit 3, another user's process, run as root (or, as root, what denies it)");
		w.err = -ENOENT;
		tap(with_stderr(err, sizeof(err), call_write_error, &w) == NX_ENOOVERRIDE &&
		    strstr(err, "no per-process filter overrides"),
		    "open ENOENT of a live process: exit 7, the kernel lacks the file");
		w.pid = 31337;
		tap(with_stderr(err, sizeof(err), call_write_error, &w) == NX_ENOPROC,
		    "open ENOENT of a missing process: exit 5");
	}
	use_fixture("per-process");
	tap(nx_pf_supported() && nx_pf_read(4242, &pf) == 0 && pf.val[0] == 1 && pf.val[3] == 0 &&
	    pf.val[1] == NX_FILTER_INHERIT && nx_pf_read(2, &pf) == -ENODATA &&
	    nx_pf_read(4243, &pf) == -ENOENT,
	    "numa_filters read: fixture process, kernel thread, no file");
	use_fixture("patched");
	tap(!nx_pf_supported(), "numa_filters: not on the patched fixture (older series)");
}

/* shmem.c: which filter a shmem VMA without a policy has on this kernel */
static struct nx_vma *uncertain_vma(struct nx_vmlist *l, struct nx_vma *v, const char *state)
{
	memset(l, 0, sizeof(*l));
	memset(v, 0, sizeof(*v));
	l->v = v;
	l->n = 1;
	l->have_numab = true;
	v->start = 0x7f0000000000;
	v->end = 0x7f0000200000;
	v->in_numab = true;
	v->nv.filter = nx_sym_cstr("uncertain");
	v->nv.maybe[0] = nx_sym_cstr("unsuitable");
	v->nv.maybe[1] = nx_sym_cstr("none");
	v->nv.state = nx_sym_cstr(state);
	return v;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_shmem(void)
{
	char how[256], path[4096], dir[] = "/tmp/numab-unit-XXXXXX", buf[1024];
	struct nx_vmlist l;
	struct nx_vma v;

	tap(nx_shmem_rule_release("6.12.117+", how, sizeof(how)) == NX_SHMEM_TASKPOL &&
	    strstr(how, "6.12.109"), "shmem rule: 6.12.117 falls back to the task policy");
	tap(nx_shmem_rule_release("6.12.109-amd64", how, sizeof(how)) == NX_SHMEM_TASKPOL,
	    "shmem rule: 6.12.109 (the stable fix) falls back");
	tap(nx_shmem_rule_release("6.12.108", how, sizeof(how)) == NX_SHMEM_UNKNOWN,
	    "shmem rule: 6.12.108: the release does not tell (a distribution may have the fix)");
	tap(nx_shmem_rule_release("6.18.44-fc-v769", how, sizeof(how)) == NX_SHMEM_UNKNOWN &&
	    strstr(how, "does not tell"), "shmem rule: 6.18: not told by the release, said so");
	tap(nx_shmem_rule_release("7.3-amd64", how, sizeof(how)) == NX_SHMEM_TASKPOL &&
	    strstr(how, "7.3") &&
	    nx_shmem_rule_release("7.3.0-rc7", how, sizeof(how)) == NX_SHMEM_TASKPOL &&
	    nx_shmem_rule_release("8.1.2", how, sizeof(how)) == NX_SHMEM_TASKPOL,
	    "shmem rule: 7.3 and later fall back, with or without a sublevel");
	tap(nx_shmem_rule_release("7.2.13", how, sizeof(how)) == NX_SHMEM_UNKNOWN &&
	    nx_shmem_rule_release("7.3x", how, sizeof(how)) == NX_SHMEM_UNKNOWN &&
	    nx_shmem_rule_release("7", how, sizeof(how)) == NX_SHMEM_UNKNOWN,
	    "shmem rule: 7.2 does not tell; 7.3x and 7 are garbage");
	tap(nx_shmem_rule_release("6.120.200", how, sizeof(how)) == NX_SHMEM_UNKNOWN &&
	    nx_shmem_rule_release("6.12.200x", how, sizeof(how)) == NX_SHMEM_UNKNOWN &&
	    nx_shmem_rule_release("", how, sizeof(how)) == NX_SHMEM_UNKNOWN,
	    "shmem rule: other releases and garbage: unknown");

	/* a tree whose release does not tell, with and without a learned rule */
	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "mkdir -p %s/proc/sys/kernel/random && echo 6.18.1 > "
		 "%s/proc/sys/kernel/osrelease && echo b00t > %s/proc/sys/kernel/random/boot_id",
		 dir, dir, dir);
	tap(!system(path), "shmem: a tree for the rules");
	nx_opt.sysroot = dir;
	unsetenv("NUMABCTL_KERNEL_RULES");
	memset(&l, 0, sizeof(l));
	nx_shmem_resolve(&l);	/* nothing uncertain: nothing to do */
	uncertain_vma(&l, &v, "none");
	nx_shmem_resolve(&l);
	tap(!strcmp(nx_sym_str(v.nv.filter), "uncertain") && strstr(l.shmem_note, "uncertain") &&
	    strstr(l.shmem_note, "numabctl trace"),
	    "shmem: unknown rule, no evidence: the filter stays uncertain and vmas says how to learn it");
	tap(!strcmp(nx_vma_verdict(&v, &l), "unknown"),
	    "shmem: an uncertain filter gives the verdict unknown, not stranded");
	uncertain_vma(&l, &v, "ok");
	nx_shmem_resolve(&l);
	tap(!strcmp(nx_sym_str(v.nv.filter), "none") && !l.shmem_note[0],
	    "shmem: a scanned uncertain VMA proves the fallback: none");
	snprintf(path, sizeof(path), "%s/run", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/run/numabctl.kernel", dir);
	put_file(path, "boot_id=b00t\nshmem_task_policy=no\nlearned=a test\n");
	uncertain_vma(&l, &v, "none");
	nx_shmem_resolve(&l);
	tap(!strcmp(nx_sym_str(v.nv.filter), "unsuitable") && nx_shmem_rule(how, sizeof(how)) == NX_SHMEM_NOPOL &&
	    strstr(how, "a test"), "shmem: a rule learned in this boot decides: unsuitable");
	put_file(path, "boot_id=other\nshmem_task_policy=no\n");
	uncertain_vma(&l, &v, "none");
	nx_shmem_resolve(&l);
	tap(!strcmp(nx_sym_str(v.nv.filter), "uncertain"), "shmem: a rule learned in another boot is not used");
	snprintf(buf, sizeof(buf), "rm -rf %s", dir);
	if (system(buf))
		tap(false, "shmem: clean up %s", dir);
	nx_opt.sysroot = "";
}

/* nx_prom_label_value() of @n bytes of @in is @want */
static bool label_is(const char *in, size_t n, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool ok;

	if (!f)
		return false;
	nx_prom_label_value(f, in, n);
	fclose(f);
	ok = buf && len == strlen(want) && !memcmp(buf, want, len);
	if (!ok)
		printf("# got '%.*s', want '%s'\n", (int)len, buf ? buf : "", want);
	free(buf);
	return ok;
}

/* JSON strings are UTF-8: a byte that is not is the text \xNN */
static void json_is(const char *in, const char *want, const char *what)
{
	struct json_object *o = nx_json_string(in);
	const char *got = o ? json_object_get_string(o) : NULL;

	tap(got && !strcmp(got, want), "json string: %s", what);
	json_object_put(o);
}

static void test_json_string(void)
{
	json_is("tiered-bench", "tiered-bench", "ASCII as it is");
	json_is("b\xc3\xa9nch \xe2\x82\xac \xf0\x9f\x98\x80", "b\xc3\xa9nch \xe2\x82\xac \xf0\x9f\x98\x80",
		"valid UTF-8 of 2, 3 and 4 bytes kept");
	json_is("a\xff" "b", "a\\xffb", "a byte that is no UTF-8");
	json_is("a\xc3", "a\\xc3", "a sequence cut short by the end");
	json_is("\xc3(", "\\xc3(", "a lead byte without its continuation");
	json_is("\xc0\xaf", "\\xc0\\xaf", "an overlong form");
	json_is("\xed\xa0\x80", "\\xed\\xa0\\x80", "a UTF-16 surrogate");
	json_is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "above U+10FFFF");
	json_is("\x80" "x", "\\x80x", "a lone continuation byte");
}

static void test_prom_label(void)
{
	tap(label_is(L("dbsim"), "dbsim"), "prom label: plain ASCII as it is");
	tap(label_is(L("a\\b\"c\nd"), "a\\\\b\\\"c\\nd"),
	    "prom label: backslash, double quote, line feed escaped");
	tap(label_is(L("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7"),
		     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7"),
	    "prom label: valid UTF-8 of 2, 3 and 4 bytes kept");
	tap(label_is(L("x\xffy\x80"), "x\\\\xffy\\\\x80"),
	    "prom label: bytes that are no UTF-8 as \\\\xNN");
	tap(label_is(L("\xc0\xaf\xe0\x80\xaf\xed\xa0\x80\xf4\x90\x80\x80"),
		     "\\\\xc0\\\\xaf\\\\xe0\\\\x80\\\\xaf\\\\xed\\\\xa0\\\\x80"
		     "\\\\xf4\\\\x90\\\\x80\\\\x80"),
	    "prom label: overlong forms, surrogates and code points above U+10FFFF rejected");
	tap(label_is(L("\xc3"), "\\\\xc3") && label_is(L("\xe2\x82"), "\\\\xe2\\\\x82"),
	    "prom label: a sequence cut by the end of the value");
	tap(label_is(L("\t\x01\x7f"), "\\\\x09\\\\x01\\\\x7f"),
	    "prom label: control characters but line feed as \\\\xNN");
	tap(label_is("a\0b", 3, "a\\\\x00b"), "prom label: a NUL byte inside the length");
}

/* last: it fills the table of words, and later words would read "unknown" */
static void test_sym_table(void)
{
	struct nx_numab_mm mm;
	struct nx_numab_vma v;
	char line[96];
	bool distinct = true, capped;

	/* the words seen so far are few: 300 new ones fill the table */
	for (int i = 0; i < 300; i++) {
		nx_sym_t id;

		snprintf(line, sizeof(line), "7f00-7f10 filter=f%d state=ok", i);
		if (nx_parse_numa_vmas_line(line, strlen(line), &mm, &v) != 0) {
			distinct = false;
			break;
		}
		id = v.filter;
		snprintf(line, sizeof(line), "f%d", i);
		if (id != NX_SYM_UNKNOWN && strcmp(nx_sym_str(id), line))
			distinct = false;
	}
	snprintf(line, sizeof(line), "7f00-7f10 filter=f299 state=ok");
	capped = nx_parse_numa_vmas_line(line, strlen(line), &mm, &v) == 0 &&
		 v.filter == NX_SYM_UNKNOWN && v.state == NX_SYM_OK &&
		 !strcmp(nx_sym_str(nx_sym_cstr("none")), "none") &&
		 nx_sym_cstr("") == NX_SYM_EMPTY;
	tap(distinct && capped, "numa_vmas: each word reads back as written until 255 "
	    "distinct words, then 'unknown'; the known words keep their ids");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		fixtures = argv[1];
	test_numbers();
	test_nodelist();
	test_maps();
	test_numa_maps();
	test_numa_vmas();
	test_small_parsers();
	test_trace();
	test_misc();
	test_vmlist();
	test_causes_top();
	test_pages();
	test_backoff();
	test_pid_held();
	test_filters();
	test_override();
	test_shmem();
	test_size();
	test_json_string();
	test_prom_label();
	test_sym_table();
	/* numabctl holds one row per VMA: 20,000 VMAs of 368-byte rows were 1,800 page faults */
	tap(sizeof(struct nx_numab_vma) <= 120 && sizeof(struct nx_vma) <= 208,
	    "a VMA's row is at most 208 bytes, its scan state at most 120");
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
