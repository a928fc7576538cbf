// SPDX-License-Identifier: GPL-2.0
/*
 * hold_rofile SECONDS [MB]: a workload for tool tests, not a test. Puts a
 * tmpfs file of MB MiB (default 16) with its page cache on node 1, maps
 * it PROT_READ MAP_SHARED, prints "ready <pid> <address>" and reads it in
 * a loop for SECONDS, then prints where its pages are ("node0 N node1 N")
 * and exits.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 10;
	long mb = argc > 2 ? atol(argv[2]) : 16;
	long pagesz = sysconf(_SC_PAGESIZE), npages = mb * NW_MB / pagesz, i;
	char path[64];
	struct nt_placement pl;
	volatile char sink = 0;
	double end;
	char *map;
	int fd;

	snprintf(path, sizeof(path), "/tmp/numab-hold-%d", getpid());
	if (nw_tmpfs_file_on(path, mb * NW_MB, 1)) {
		perror(path);
		return 1;
	}
	fd = open(path, O_RDONLY);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, mb * NW_MB, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("ready %d %p\n", getpid(), (void *)map);
	fflush(stdout);
	end = nt_now() + seconds;
	while (nt_now() < end)
		for (i = 0; i < npages; i++)
			sink += map[i * pagesz];
	(void)sink;
	if (nt_placement(map, npages, pagesz, &pl) == 0)
		printf("node0 %ld node1 %ld\n", pl.node[0], pl.node[1]);
	munmap(map, mb * NW_MB);
	close(fd);
	unlink(path);
	return 0;
}
