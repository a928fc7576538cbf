/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading /proc/<pid>/numa_vmas in the guest tests: the whole
 * file, the "mm" line, the line of one VMA, and key=value fields of a
 * line. Include after numab_test.h.
 */
#ifndef NUMA_VMAS_LIB_H
#define NUMA_VMAS_LIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/numab_test.h"

#define NV_NOINLINE	static __attribute__((noinline, unused))

/*
 * The whole of /proc/PID/numa_vmas (PID 0: self) read to EOF with reads
 * of CHUNK bytes (0: 64 KiB), NUL-terminated, malloc()ed; NULL with errno
 * set on error.
 */
NV_NOINLINE char *nv_read_pid(pid_t pid, size_t chunk)
{
	char path[64];
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd, err;

	if (!chunk)
		chunk = 1 << 16;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/numa_vmas", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/numa_vmas");
	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		err = fd < 0 ? errno : ENOMEM;
		free(buf);
		if (fd >= 0)
			close(fd);
		errno = err;
		return NULL;
	}
	for (;;) {
		if (cap - len < chunk) {
			char *nb;

			cap = (cap + chunk) * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	err = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * Copy the line of TEXT that starts with PREFIX (at a line start) into
 * OUT (without its newline); 0, or -1 when there is none.
 */
static inline int nv_find_line(const char *text, const char *prefix,
			       char *out, size_t size)
{
	size_t plen = strlen(prefix);
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= plen && !strncmp(p, prefix, plen)) {
			if (len >= size)
				len = size - 1;
			memcpy(out, p, len);
			out[len] = '\0';
			return 0;
		}
		p = eol ? eol + 1 : NULL;
	}
	return -1;
}

/* The numa_vmas line of PID's VMA that starts at ADDR, into OUT; 0 or -1. */
NV_NOINLINE int nv_vma_line(pid_t pid, const void *addr, char *out, size_t size)
{
	char prefix[32];
	char *all = nv_read_pid(pid, 0);
	int ret;

	if (!all)
		return -1;
	snprintf(prefix, sizeof(prefix), "%08lx-", (unsigned long)addr);
	ret = nv_find_line(all, prefix, out, size);
	free(all);
	return ret;
}

/*
 * Where the value of KEY=... (or the bare word KEY) starts in LINE, NULL
 * when KEY is not a word of it.
 */
static inline const char *nv_key(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		int start = p == line || p[-1] == ' ';
		int end = p[n] == '=' || p[n] == ' ' || p[n] == '\n' || !p[n];

		if (start && end)
			return p[n] == '=' ? p + n + 1 : p + n;
		p += n;
	}
	return NULL;
}

/* The numeric value of KEY=N in LINE, DEF when absent. */
static inline long long nv_key_ll(const char *line, const char *key, long long def)
{
	const char *v = nv_key(line, key);

	return v ? strtoll(v, NULL, 0) : def;
}

/* The word value of KEY=WORD in LINE into OUT; 0, or -1 when absent. */
static inline int nv_key_word(const char *line, const char *key, char *out,
			      size_t size)
{
	const char *v = nv_key(line, key);
	size_t len;

	if (!v)
		return -1;
	len = strcspn(v, " \n");
	if (len >= size)
		len = size - 1;
	memcpy(out, v, len);
	out[len] = '\0';
	return 0;
}

/*
 * The value of KEY=... on the numa_vmas line of PID's VMA that starts at
 * ADDR; DEF when there is no such line or key.
 */
NV_NOINLINE long long nv_vma_key_ll(pid_t pid, const void *addr, const char *key,
				    long long def)
{
	char line[1024];

	if (nv_vma_line(pid, addr, line, sizeof(line)))
		return def;
	return nv_key_ll(line, key, def);
}

/*
 * mm->numa_scan_seq of PID (0: self): the "mm" line of numa_vmas, or
 * /proc/PID/sched on a kernel without numa_vmas; -1 when neither says.
 */
NV_NOINLINE long nv_scan_seq(pid_t pid)
{
	char line[512];
	char *all = nv_read_pid(pid, 0);
	long v = -1;

	if (all) {
		if (!nv_find_line(all, "mm ", line, sizeof(line)))
			v = nv_key_ll(line, "scan_seq", -1);
		free(all);
		if (v >= 0)
			return v;
	}
	return nt_scan_seq_of(pid);
}

#endif /* NUMA_VMAS_LIB_H */
