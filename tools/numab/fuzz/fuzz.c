// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for one parser of parse.c, chosen at build time with
 * -DFUZZ_<NAME> (see fuzz/run.sh).  The input is split into lines; each
 * line is copied into a buffer of its exact size so that ASan catches any
 * read past the length the parser was given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../parse.h"

static void one_line(const char *p, size_t n)
{
	struct nx_nodemask slow = { { 2 } };
	union {
		struct nx_maps_entry maps;
		struct nx_numa_maps_entry nm;
		struct { struct nx_numab_mm mm; struct nx_numab_vma v; } nv;
		struct nx_trace_ev ev;
		struct nx_nodemask mask;
	} u;
	struct nx_span k, v;
	uint64_t x;
	int a, b;
	char buf[64];

	(void)slow; (void)k; (void)v; (void)x; (void)a; (void)b; (void)buf;
#if defined(FUZZ_numa_vmas)
	/* the fast path must agree with the general parser */
	struct nx_numab_mm mm2;
	struct nx_numab_vma v2;
	int r1 = nx_parse_numa_vmas_line(p, n, &u.nv.mm, &u.nv.v);
	int r2 = nx_parse_numa_vmas_general(p, n, &mm2, &v2);

	if (r1 != r2 || (r1 == 0 && memcmp(&u.nv.v, &v2, sizeof(v2))) ||
	    (r1 == 1 && memcmp(&u.nv.mm, &mm2, sizeof(mm2))))
		abort();
	if (r1 == 0 && u.nv.v.name.p)
		nx_unescape(u.nv.v.name, buf, sizeof(buf));
#elif defined(FUZZ_numa_maps)
	nx_parse_numa_maps_line(p, n, &slow, &u.nm);
#elif defined(FUZZ_maps)
	/* the fast path must agree with the general parser */
	struct nx_maps_entry m2;
	int r1 = nx_parse_maps_fast(p, n, &u.maps);
	int r2 = nx_parse_maps_general(p, n, &m2);

	if (r1 == 0 && (r2 != 0 || !nx_maps_entry_eq(&u.maps, &m2)))
		abort();
#elif defined(FUZZ_vmstat)
	nx_parse_vmstat_line(p, n, &k, &x);
#elif defined(FUZZ_meminfo)
	nx_parse_meminfo_line(p, n, &k, &x);
#elif defined(FUZZ_sched)
	nx_parse_sched_line(p, n, &k, &v);
#elif defined(FUZZ_nodelist)
	if (nx_parse_nodelist(p, n, &u.mask) == 0)
		nx_format_nodelist(&u.mask, buf, sizeof(buf));
#elif defined(FUZZ_trace)
	nx_parse_trace_line(p, n, &u.ev);
#elif defined(FUZZ_size)
	/* a size with a fraction is at least its whole part */
	if (nx_parse_size(p, n, &x) == 0 && memchr(p, '.', n)) {
		uint64_t whole;
		size_t dot = (size_t)((const char *)memchr(p, '.', n) - p);

		if (nx_parse_u64(p, dot, 10, &whole) || x < whole)
			abort();
	}
#elif defined(FUZZ_filter)
	nx_parse_filter_assign(p, n, &a, &b);
#elif defined(FUZZ_numa_filters)
	struct nx_proc_filters pf;

	if (nx_parse_numa_filters_line(p, n, &pf) == 0)
		for (int i = 0; i < NX_NFILTERS; i++)
			if ((pf.have & (1u << i)) && (pf.val[i] < NX_FILTER_INHERIT || pf.val[i] > 255))
				abort();
#else
#error "define FUZZ_<parser>"
#endif
	(void)u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	/* each input from the same table of words: a finding reproduces alone */
	nx_sym_reset();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *copy = malloc(n ? n : 1);

		if (!copy)
			return 0;
		memcpy(copy, p, n);
		one_line(copy, n);
		free(copy);
		p += n + 1;
	}
	return 0;
}
