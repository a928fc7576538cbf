// SPDX-License-Identifier: GPL-2.0
/*
 * A process with many VMAs, for the benchmarks (bench-bpf.sh,
 * bench-export.sh): at least V VMAs in all (argv[1]), those it has plus
 * one-page mappings with PROT_NONE gaps between them, every other one
 * written (the others read-only, so that neighbours never merge); prints
 * "ready", then sleeps until killed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long want = argc > 1 ? atol(argv[1]) : 0, pg = sysconf(_SC_PAGESIZE), have = 0, n;
	char line[512], *b;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		have++;
	if (f)
		fclose(f);
	/* 2n + 1 VMAs: n mappings and the gaps around them */
	n = (want - have) / 2;
	if (n < 1)
		n = 1;
	b = mmap(NULL, (2 * n + 1) * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++) {
		mprotect(b + (2 * i + 1) * pg, pg, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE);
		if (!(i % 2))
			b[(2 * i + 1) * pg] = 1;
	}
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
