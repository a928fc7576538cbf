// SPDX-License-Identifier: GPL-2.0
/*
 * A process with many VMAs, for the benchmarks (bench-bpf.sh,
 * bench-export.sh, bench-host.sh) and the host speed test: at least V
 * VMAs in all (argv[1]), those it has plus mappings of P pages each
 * (argv[3], default 1) with PROT_NONE gaps between them, their pages
 * touched; prints "ready", then sleeps until killed.
 *
 * SHAPE (argv[2]) is what the mappings are:
 *   anon   private anonymous (the default), every other one written, the
 *          others read-only and not touched, so that neighbours never merge
 *   file   a private read-only mapping of a file of P pages in $TMPDIR
 *          (or /tmp), read; the file is unlinked once mapped
 *   shmem  shared anonymous (shmem), written
 *   mix    anon, file and shmem in turn
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int file_fd(long bytes)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/numab-many.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	/* real blocks, not a hole: the pages are in the page cache */
	for (long off = 0; off < bytes; off += 4096)
		if (pwrite(fd, "x", 1, off) != 1) {
			close(fd);
			return -1;
		}
	return fd;
}

static int fail(const char *what, long i)
{
	fprintf(stderr, "many: %s of mapping %ld: %s\n", what, i, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	long want = argc > 1 ? atol(argv[1]) : 0, pg = sysconf(_SC_PAGESIZE), have = 0, n;
	const char *shape = argc > 2 ? argv[2] : "anon";
	long pages = argc > 3 ? atol(argv[3]) : 1, len;
	volatile char sink = 0;
	char line[512], *b;
	FILE *f = fopen("/proc/self/maps", "r");
	int fd = -1;

	if (pages < 1 || (strcmp(shape, "anon") && strcmp(shape, "file") &&
			  strcmp(shape, "shmem") && strcmp(shape, "mix"))) {
		fprintf(stderr, "usage: many V [anon|file|shmem|mix [PAGES]]\n");
		return 2;
	}
	len = pages * pg;
	while (f && fgets(line, sizeof(line), f))
		have++;
	if (f)
		fclose(f);
	if (!strcmp(shape, "file") || !strcmp(shape, "mix")) {
		fd = file_fd(len);
		if (fd < 0)
			return fail("the file", 0);
	}
	/* 2n + 1 VMAs: n mappings and the gaps around them */
	n = (want - have) / 2;
	if (n < 1)
		n = 1;
	b = mmap(NULL, (size_t)(n * (len + pg) + pg), PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (b == MAP_FAILED)
		return fail("the reservation", 0);
	for (long i = 0; i < n; i++) {
		char *m = b + i * (len + pg) + pg;
		int kind = !strcmp(shape, "mix") ? (int)(i % 3) :
			   !strcmp(shape, "file") ? 1 : !strcmp(shape, "shmem") ? 2 : 0;

		if (kind == 0) {
			if (mprotect(m, len, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE))
				return fail("mprotect", i);
			for (long p = 0; !(i % 2) && p < len; p += pg)
				m[p] = 1;
		} else if (kind == 1) {
			if (mmap(m, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
				return fail("mmap of the file", i);
			for (long p = 0; p < len; p += pg)
				sink += m[p];
		} else {
			if (mmap(m, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
				return fail("mmap of shmem", i);
			for (long p = 0; p < len; p += pg)
				m[p] = 1;
		}
	}
	if (fd >= 0)
		close(fd);
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
