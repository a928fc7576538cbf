// SPDX-License-Identifier: GPL-2.0
/*
 * filter_oracle: one VMA of each kind whose static NUMA-balancing filter
 * differs (private and shared anonymous memory, shmem, files mapped
 * read-only private and shared, program text, a VMA under mbind(BIND), a
 * PROT_NONE one, a huge page if there is one), printed as
 *
 *   VMA LABEL START END
 *
 * then "READY", then a busy loop touching them for -d SEC seconds (default
 * 60), so that task_numa_work() visits the process.  The scanner's
 * verdict on each is read from the sched_skip_vma_numa tracepoint and
 * compared with numabctl's FILTER by filter_oracle.sh (host test
 * host/filter-oracle, VM units tools/filter-oracle and
 * tools/filter-oracle-stock).  No libnuma: mbind is the raw system call.
 * Builds for the guest (tests/Makefile, static) and the host (cc).
 *
 *   filter_oracle [-d SEC] [-f DIR]   DIR: where the file mappings live
 *                                     (default /tmp; a tmpfs there makes
 *                                     them shmem too)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_BIND 2
#define SZ (2UL << 20)

static volatile unsigned long sink;

struct region {
	const char *label;
	char *p;
	size_t len;
	int touch;		/* 0 read, 1 write, -1 not at all (PROT_NONE) */
};

static struct region r[16];
static int nr;

static void add(const char *label, void *p, size_t len, int touch)
{
	if (p == MAP_FAILED) {
		printf("SKIP %s %s\n", label, strerror(errno));
		return;
	}
	r[nr++] = (struct region){ label, p, len, touch };
	printf("VMA %s %lx %lx\n", label, (unsigned long)p, (unsigned long)p + len);
}

/* anonymous memory (@share: MAP_PRIVATE or MAP_SHARED) under mbind(MPOL_BIND, node 0) */
static void add_bound(const char *label, int share)
{
	unsigned long node0 = 1;
	void *p = mmap(NULL, SZ, PROT_READ | PROT_WRITE, share | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED && syscall(SYS_mbind, p, SZ, MPOL_BIND, &node0, 64, 0)) {
		printf("SKIP %s mbind: %s\n", label, strerror(errno));
		munmap(p, SZ);
		return;
	}
	add(label, p, SZ, 1);
}

/* a file of @len bytes in @dir, open read-write */
static int file_in(const char *dir, const char *name, size_t len)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/filter-oracle-%d-%s", dir, (int)getpid(), name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len)) {
		fprintf(stderr, "filter_oracle: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	unlink(path);	/* gone when the process is */
	for (size_t off = 0; off < len; off += 4096)
		if (pwrite(fd, "x", 1, (off_t)off) != 1)
			exit(2);
	return fd;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	double sec = 60;
	struct timespec t0, t;
	int c, fd;

	while ((c = getopt(argc, argv, "d:f:")) != -1) {
		switch (c) {
		case 'd': sec = atof(optarg); break;
		case 'f': dir = optarg; break;
		default:
			fprintf(stderr, "usage: filter_oracle [-d SEC] [-f DIR]\n");
			return 2;
		}
	}
	add("anon_private", mmap(NULL, SZ, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), SZ, 1);
	add("anon_shared", mmap(NULL, SZ, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0), SZ, 1);
	fd = (int)syscall(SYS_memfd_create, "filter-oracle", 0);
	if (fd >= 0 && !ftruncate(fd, (off_t)SZ))
		add("memfd_shared", mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
		    SZ, 1);
	fd = file_in(dir, "ro", SZ);
	add("file_ro_private", mmap(NULL, SZ, PROT_READ, MAP_PRIVATE, fd, 0), SZ, 0);
	add("file_ro_shared", mmap(NULL, SZ, PROT_READ, MAP_SHARED, fd, 0), SZ, 0);
	add("file_rw_shared", mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), SZ, 1);
	add("file_text", mmap(NULL, SZ, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0), SZ, 0);
	add_bound("anon_bind", MAP_PRIVATE);
	add_bound("shmem_bind", MAP_SHARED);
	add("anon_none", mmap(NULL, SZ, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), SZ, -1);
	add("hugetlb", mmap(NULL, SZ, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0), SZ, 1);
	printf("READY %d\n", (int)getpid());
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < nr; i++)
			for (size_t off = 0; r[i].touch >= 0 && off < r[i].len; off += 4096) {
				if (r[i].touch)
					r[i].p[off]++;
				else
					sink += (unsigned char)r[i].p[off];
			}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < sec);
	return 0;
}
