// SPDX-License-Identifier: GPL-2.0
/*
 * hold_rofile [-u MIN] SECONDS [MB]: a workload for tool tests, not a
 * test. Puts a tmpfs file of MB MiB (default 16) with its page cache on
 * node 1, maps it PROT_READ MAP_SHARED, prints "ready <pid> <address>" and
 * reads it in a loop for SECONDS (nw_hold(): with -u it ends once every
 * page is on node 0 and MIN seconds have passed; it prints "placed S" and
 * "node0 N node1 N").
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

int main(int argc, char **argv)
{
	long pagesz = sysconf(_SC_PAGESIZE), mb, seconds;
	double until_min;
	char path[64];
	char *map;
	int fd;

	if (nw_hold_args(argc, argv, &seconds, &mb, &until_min))
		return 2;
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
	nw_hold(map, mb * NW_MB / pagesz, pagesz, seconds, until_min);
	munmap(map, mb * NW_MB);
	close(fd);
	unlink(path);
	return 0;
}
