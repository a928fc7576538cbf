// SPDX-License-Identifier: GPL-2.0
/* Pure line parsers, see parse.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* @lit is a string literal: its length is known at compile time */
#define SPAN_IS(s, lit) ((s).n == sizeof(lit) - 1 && (s).p && !memcmp((s).p, lit, sizeof(lit) - 1))

const struct nx_filter_desc nx_filters[NX_NFILTERS] = {
	[NX_F_PID] = { "pid", 2, 2, 1, NULL },
	[NX_F_SHARED_RO] = { "shared_ro", 2, 2, 1, NULL },
	[NX_F_SCAN_DELAY] = { "scan_delay", 1, 1, 1, NULL },
	[NX_F_CPUSET] = { "cpuset", 1, 1, 0, NULL },
	/* page level */
	[NX_F_SHARED_FOLIO] = { "shared_folio", 2, 2, 1,
				"the shared_folio filter (numab kernel series v2)" },
	/* the scan period in tiering mode, not a VMA filter */
	[NX_F_PROMO_SLOWDOWN] = { "promo_slowdown", 1, 0, 1,
				  "the promo_slowdown setting (the numab series' scan-period "
				  "rule for promotions)" },
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool nx_span_eq(struct nx_span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.p && s.n == n && memcmp(s.p, lit, n) == 0;
}

/* nx_kv_next() looks each byte up once: blank, '=' or anything else */
enum { KV_WORD, KV_BLANK, KV_EQ };
static const unsigned char kv_class[256] = {
	[' '] = KV_BLANK, ['\t'] = KV_BLANK, ['\n'] = KV_BLANK, ['\r'] = KV_BLANK,
	['='] = KV_EQ,
};

bool nx_kv_next(const char **pos, const char *end, struct nx_kv *kv)
{
	const char *p = *pos, *tok, *eq = NULL;

	while (p < end && kv_class[(unsigned char)*p] == KV_BLANK)
		p++;
	if (p >= end)
		return false;
	tok = p;
	for (; p < end; p++) {
		unsigned char c = kv_class[(unsigned char)*p];

		if (c == KV_BLANK)
			break;
		if (c == KV_EQ && !eq)
			eq = p;
	}
	*pos = p;
	kv->key.p = tok;
	if (eq) {
		kv->key.n = (size_t)(eq - tok);
		kv->val.p = eq + 1;
		kv->val.n = (size_t)(p - eq - 1);
	} else {
		kv->key.n = (size_t)(p - tok);
		kv->val.p = NULL;
		kv->val.n = 0;
	}
	return true;
}

/* a digit's value, 99 for anything else: one lookup, no branches */
#define D10(c, v) [c] = (v) + 1
static const unsigned char digit_tab[256] = {
	D10('0', 0), D10('1', 1), D10('2', 2), D10('3', 3), D10('4', 4),
	D10('5', 5), D10('6', 6), D10('7', 7), D10('8', 8), D10('9', 9),
	D10('a', 10), D10('b', 11), D10('c', 12), D10('d', 13), D10('e', 14), D10('f', 15),
	D10('A', 10), D10('B', 11), D10('C', 12), D10('D', 13), D10('E', 14), D10('F', 15),
};

static int digit_val(char c)
{
	unsigned char d = digit_tab[(unsigned char)c];

	return d ? d - 1 : 99;
}

/*
 * Digit @i (0-based) of a decimal: *v = *v * 10 + digit, false for a
 * non-digit or an overflow.  Up to 19 digits cannot overflow: only the
 * digits after are checked (no division on the common path).
 */
static inline bool dec_step(uint64_t *v, char c, size_t i)
{
	unsigned int d = (unsigned int)(unsigned char)c - '0';

	if (d > 9 || (i >= 19 && *v > (UINT64_MAX - d) / 10))
		return false;
	*v = *v * 10 + d;
	return true;
}

/* the same for a hex digit: shifts, no overflow-checked multiply */
static inline bool hex_step(uint64_t *v, char c)
{
	int d = digit_val(c);

	if (d >= 16 || *v >> 60)
		return false;
	*v = *v << 4 | (uint64_t)d;
	return true;
}

static int parse_dec(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		if (!dec_step(&v, s[i], i))
			return -1;
	*out = v;
	return 0;
}

/*
 * A size as util-linux takes it (lsblk, its ul_parse_size()): digits, a
 * fraction only before a suffix ("1.5M"), a suffix K, M, G, T, P or E in
 * either case, alone or with "iB" for powers of 1024, with "B" for powers
 * of 1000; "B" alone is bytes.  The fraction is cut to whole bytes.
 */
int nx_parse_size(const char *s, size_t n, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	size_t i = 0, fd = 0, nd;
	uint64_t v, frac = 0, unit = 1, base = 1024, div = 1;
	const char *u;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	nd = i;
	if (!nd || nx_parse_u64(s, nd, 10, &v))
		return -1;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++)
			if (fd < 9) {	/* digits past the ninth are cut */
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				div *= 10;
			}
		if (!fd)
			return -1;
	}
	if (i == n)
		return fd ? -1 : (*out = v, 0);	/* a fraction needs a suffix */
	if (s[i] == 'B' && i + 1 == n && !fd) {
		*out = v;
		return 0;
	}
	u = s[i] ? memchr(units, s[i] & ~0x20, sizeof(units) - 1) : NULL;
	if (!u)
		return -1;
	i++;
	if (i + 2 == n && s[i] == 'i' && (s[i + 1] == 'B' || s[i + 1] == 'b'))
		base = 1024;
	else if (i + 1 == n && (s[i] == 'B' || s[i] == 'b'))
		base = 1000;
	else if (i != n)
		return -1;
	for (long k = 0; k <= u - units; k++)
		unit *= base;
	if (__builtin_mul_overflow(v, unit, &v))
		return -1;
	/* unit * frac / div without overflow: unit = q * div + r, frac < div <= 10^9 */
	if (frac && __builtin_add_overflow(v, unit / div * frac + unit % div * frac / div, &v))
		return -1;
	*out = v;
	return 0;
}

int nx_parse_u64(const char *s, size_t n, int base, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (base == 16 && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i >= n)
		return -1;
	if (base == 10)
		return parse_dec(s, n, out);
	if (base == 16) {
		for (; i < n; i++)
			if (!hex_step(&v, s[i]))
				return -1;
		*out = v;
		return 0;
	}
	for (; i < n; i++) {
		int d = digit_val(s[i]);

		if (d >= base)
			return -1;
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, (uint64_t)d, &v))
			return -1;	/* overflow (no division per digit) */
	}
	*out = v;
	return 0;
}

int nx_parse_s64(const char *s, size_t n, int64_t *out)
{
	uint64_t v;
	bool neg = n > 0 && s[0] == '-';

	if (nx_parse_u64(s + neg, n - neg, 10, &v))
		return -1;
	if (v > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

int nx_parse_range(const char *s, size_t n, uint64_t *start, uint64_t *end)
{
	const char *dash = s;

	while (dash < s + n && *dash != '-')	/* a dozen bytes: no memchr() */
		dash++;
	if (dash == s + n)
		return -1;
	if (nx_parse_u64(s, (size_t)(dash - s), 16, start) ||
	    nx_parse_u64(dash + 1, n - (size_t)(dash - s) - 1, 16, end))
		return -1;
	return *end >= *start ? 0 : -1;
}

void nx_mask_set(struct nx_nodemask *m, unsigned int node)
{
	if (node < NX_MAX_NODES)
		m->bits[node / 64] |= 1ull << (node % 64);
}

bool nx_mask_test(const struct nx_nodemask *m, unsigned int node)
{
	return node < NX_MAX_NODES && (m->bits[node / 64] >> (node % 64) & 1);
}

unsigned int nx_mask_weight(const struct nx_nodemask *m)
{
	unsigned int w = 0;

	for (size_t i = 0; i < NX_MAX_NODES / 64; i++)
		w += (unsigned int)__builtin_popcountll(m->bits[i]);
	return w;
}

bool nx_mask_empty(const struct nx_nodemask *m)
{
	return nx_mask_weight(m) == 0;
}

int nx_parse_nodelist(const char *s, size_t n, struct nx_nodemask *m)
{
	const char *end = s + n, *p = s;

	memset(m, 0, sizeof(*m));
	while (end > s && is_blank(end[-1]))
		end--;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		const char *dash = memchr(p, '-', (size_t)(e - p));
		uint64_t a, b;

		if (dash) {
			if (nx_parse_u64(p, (size_t)(dash - p), 10, &a) ||
			    nx_parse_u64(dash + 1, (size_t)(e - dash - 1), 10, &b))
				return -1;
		} else {
			if (nx_parse_u64(p, (size_t)(e - p), 10, &a))
				return -1;
			b = a;
		}
		if (a > b || b >= NX_MAX_NODES)
			return -1;
		for (uint64_t i = a; i <= b; i++)
			nx_mask_set(m, (unsigned int)i);
		p = comma ? comma + 1 : end;
	}
	return 0;
}

void nx_format_nodelist(const struct nx_nodemask *m, char *buf, size_t sz)
{
	size_t off = 0;

	if (sz)
		buf[0] = '\0';
	for (unsigned int i = 0; i < NX_MAX_NODES; i++) {
		unsigned int j = i;
		int w;

		if (!nx_mask_test(m, i))
			continue;
		while (j + 1 < NX_MAX_NODES && nx_mask_test(m, j + 1))
			j++;
		if (j == i)
			w = snprintf(buf + off, sz - off, "%s%u", off ? "," : "", i);
		else
			w = snprintf(buf + off, sz - off, "%s%u-%u", off ? "," : "", i, j);
		if (w < 0 || (size_t)w >= sz - off)
			return;
		off += (size_t)w;
		i = j;
	}
}

/* the next blank-separated field (nx_kv_next() without the '=' split) */
static struct nx_span next_field(const char **pos, const char *end)
{
	struct nx_span s = { NULL, 0 };
	const char *p = *pos;

	while (p < end && kv_class[(unsigned char)*p] == KV_BLANK)
		p++;
	if (p >= end) {
		*pos = p;
		return s;
	}
	s.p = p;
	while (p < end && kv_class[(unsigned char)*p] != KV_BLANK)
		p++;
	s.n = (size_t)(p - s.p);
	*pos = p;
	return s;
}

/* the path of a maps line: what follows the inode, blanks around it cut */
static int maps_path(const char *p, const char *end, struct nx_maps_entry *e)
{
	while (p < end && is_blank(*p))
		p++;
	while (end > p && is_blank(end[-1]))
		end--;
	e->path.p = p;
	e->path.n = (size_t)(end - p);
	return 0;
}

int nx_parse_maps_general(const char *line, size_t len, struct nx_maps_entry *e)
{
	const char *p = line, *end = line + len;
	struct nx_span f[5];

	memset(e, 0, sizeof(*e));
	for (int i = 0; i < 5; i++) {
		f[i] = next_field(&p, end);
		if (!f[i].p)
			return -1;
	}
	if (nx_parse_range(f[0].p, f[0].n, &e->start, &e->end) || f[1].n != 4)
		return -1;
	memcpy(e->perms, f[1].p, 4);
	return maps_path(p, end, e);
}

static int node_key(struct nx_span k, unsigned int *node)
{
	uint64_t v;

	if (k.n < 2 || k.p[0] != 'N' || nx_parse_u64(k.p + 1, k.n - 1, 10, &v) ||
	    v >= NX_MAX_NODES)
		return -1;
	*node = (unsigned int)v;
	return 0;
}

int nx_parse_numa_maps_line(const char *line, size_t len,
			    const struct nx_nodemask *slow,
			    struct nx_numa_maps_entry *e)
{
	const char *p = line, *end = line + len;
	struct nx_kv kv;
	struct nx_span addr;
	uint64_t v;

	memset(e, 0, sizeof(*e));
	e->pagesize_kb = 4;
	addr = next_field(&p, end);
	if (!addr.p || nx_parse_u64(addr.p, addr.n, 16, &e->start))
		return -1;
	e->policy = next_field(&p, end);
	if (!e->policy.p)
		return -1;
	while (nx_kv_next(&p, end, &kv)) {
		unsigned int node;

		if (!kv.val.p) {
			if (SPAN_IS(kv.key, "heap") || SPAN_IS(kv.key, "stack"))
				e->name = kv.key;
			else if (SPAN_IS(kv.key, "huge"))
				e->huge = true;
			continue;
		}
		if (SPAN_IS(kv.key, "file")) {
			e->name = kv.val;
			continue;
		}
		/* only the keys used; unknown keys and bad values are tolerated */
		switch (kv.key.n ? kv.key.p[0] : 0) {
		case 'N': case 'k': case 'a': case 'd':
			break;
		default:
			continue;
		}
		if (nx_parse_u64(kv.val.p, kv.val.n, 10, &v))
			continue;
		if (node_key(kv.key, &node) == 0) {
			uint64_t *dst = nx_mask_test(slow, node) ?
					&e->pages_slow : &e->pages_fast;

			*dst = *dst > UINT64_MAX - v ? UINT64_MAX : *dst + v;
		} else if (SPAN_IS(kv.key, "kernelpagesize_kB") && v) {
			e->pagesize_kb = v;
		} else if (SPAN_IS(kv.key, "anon")) {
			e->anon = v;
		} else if (SPAN_IS(kv.key, "dirty")) {
			e->dirty = v;
		}
	}
	return 0;
}

static void copy_word(char *dst, size_t sz, struct nx_span s)
{
	size_t n = s.n < sz - 1 ? s.n : sz - 1;

	memcpy(dst, s.p, n);
	dst[n] = '\0';
}

/* the words nx_sym() has seen: the kernel's commonest first, as NX_SYM_* */
static char sym_word[256][NX_SYM_LEN] = {
	[NX_SYM_EMPTY] = "", [NX_SYM_NONE] = "none", [NX_SYM_OK] = "ok",
	[NX_SYM_UNCERTAIN] = "uncertain", [NX_SYM_UNKNOWN] = "unknown",
	[NX_SYM_PROMO_BACKOFF] = "promo_backoff", [NX_SYM_PID_INACTIVE] = "pid_inactive",
	[NX_SYM_PID_INACTIVE_PROMO] = "pid_inactive_promo_only", [NX_SYM_SCAN_DELAY] = "scan_delay",
};
static uint8_t sym_len[256];
static bool sym_po[256];	/* ends in "_promo_only" */
static unsigned int sym_n;
/* open addressing, id + 1 per slot (0: empty); never more than half full */
static uint16_t sym_slot[512];

static unsigned int sym_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h & 511;
}

static void sym_add(const char *s, size_t n)
{
	unsigned int h = sym_hash(s, n);

	while (sym_slot[h])
		h = (h + 1) & 511;
	memmove(sym_word[sym_n], s, n);
	sym_word[sym_n][n] = '\0';
	sym_len[sym_n] = (uint8_t)n;
	sym_po[sym_n] = n > 11 && !memcmp(s + n - 11, "_promo_only", 11);
	sym_slot[h] = (uint16_t)(sym_n++ + 1);
}

nx_sym_t nx_sym(const char *s, size_t n)
{
	unsigned int h;

	if (!sym_n) {	/* the known words, in the table before the first lookup */
		sym_n = NX_SYM_EMPTY + 1;
		while (sym_n < NX_SYM_NKNOWN)
			sym_add(sym_word[sym_n], strlen(sym_word[sym_n]));
	}
	n = n < NX_SYM_LEN - 1 ? n : NX_SYM_LEN - 1;
	if (!n)
		return NX_SYM_EMPTY;
	for (h = sym_hash(s, n); sym_slot[h]; h = (h + 1) & 511) {
		unsigned int id = sym_slot[h] - 1u;

		if (sym_len[id] == n && !memcmp(sym_word[id], s, n))
			return (nx_sym_t)id;
	}
	if (sym_n == 256)
		return NX_SYM_UNKNOWN;
	sym_add(s, n);
	return (nx_sym_t)(sym_n - 1);
}

void nx_sym_reset(void)
{
	memset(sym_slot, 0, sizeof(sym_slot));
	sym_n = 0;
}

nx_sym_t nx_sym_cstr(const char *s)
{
	return nx_sym(s, strlen(s));
}

const char *nx_sym_str(nx_sym_t id)
{
	return sym_word[id];
}

bool nx_sym_promo_only(nx_sym_t id)
{
	return sym_po[id];
}

/* KT_SYM: a word (nx_sym_t); KT_S64, KT_U64: 8 bytes, or 4 saturated */
enum kt { KT_U64, KT_S64, KT_HEX, KT_SYM };
struct key_desc {
	const char *name;
	size_t len;
	enum kt type;
	size_t off;
	size_t size;
	unsigned int bit;
};

/*
 * A number into a field of @size bytes: 8, or 4.  A 4-byte signed field is
 * a sequence, an int in the kernel: a value beyond it is malformed (false),
 * not clamped, since it is compared with the mm's 64-bit scan_seq.  A
 * 4-byte unsigned one is a counter, which the kernel saturates: clamped.
 */
static bool store_num(char *dst, size_t size, bool sign, uint64_t u)
{
	if (size == sizeof(uint64_t)) {
		memcpy(dst, &u, sizeof(u));	/* two's complement for S64 */
	} else if (sign) {
		int64_t s = (int64_t)u;
		int32_t v = (int32_t)s;

		if (s > INT32_MAX || s < INT32_MIN)
			return false;
		memcpy(dst, &v, sizeof(v));
	} else {
		uint32_t v = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;

		memcpy(dst, &v, sizeof(v));
	}
	return true;
}

#define VK(n, t, f, b) { n, sizeof(n) - 1, t, offsetof(struct nx_numab_vma, f), sizeof(((struct nx_numab_vma *)0)->f), b }
static const struct key_desc vma_keys[] = {
	VK("filter", KT_SYM, filter, NV_HAVE_FILTER),
	VK("state", KT_SYM, state, NV_HAVE_STATE),
	VK("start_seq", KT_S64, start_seq, NV_HAVE_START_SEQ),
	VK("prev_seq", KT_S64, prev_seq, NV_HAVE_PREV_SEQ),
	VK("promo_seq", KT_S64, promo_seq, NV_HAVE_PROMO_SEQ),
	VK("promo_backoff", KT_U64, promo_backoff, NV_HAVE_PROMO_BACKOFF),
	VK("pid_reset_ms", KT_S64, pid_reset_ms, NV_HAVE_PID_RESET),
	VK("next_scan_ms", KT_S64, next_scan_ms, NV_HAVE_NEXT_SCAN),
	VK("promo_only", KT_U64, promo_only, NV_HAVE_PROMO_ONLY),
	VK("scans", KT_U64, scans, NV_HAVE_SCANS),
	VK("promo_scans", KT_U64, promo_scans, NV_HAVE_PROMO_SCANS),
	VK("pte_updates", KT_U64, pte_updates, NV_HAVE_PTE_UPDATES),
	VK("skip_delay", KT_U64, skip_delay, NV_HAVE_SKIP_DELAY),
	VK("skip_seq", KT_U64, skip_seq, NV_HAVE_SKIP_SEQ),
	VK("skip_pid", KT_U64, skip_pid, NV_HAVE_SKIP_PID),
	VK("last_skip", KT_SYM, last_skip, NV_HAVE_LAST_SKIP),
};
#define MK(n, t, f, b) { n, sizeof(n) - 1, t, offsetof(struct nx_numab_mm, f), sizeof(((struct nx_numab_mm *)0)->f), b }
static const struct key_desc mm_keys[] = {
	MK("scan_seq", KT_U64, scan_seq, MM_HAVE_SEQ),
	MK("scan_offset", KT_HEX, scan_offset, MM_HAVE_OFFSET),
	MK("next_scan_ms", KT_S64, next_scan_ms, MM_HAVE_NEXT),
};

/*
 * Store one key=value through a key table; unknown keys are ignored.  The
 * kernel prints keys in table order, so the search starts after the key
 * matched last (*hint) and usually ends at its first comparison.
 */
static int set_key(void *obj, unsigned int *have, const struct key_desc *keys,
		   size_t nkeys, const struct nx_kv *kv, size_t *hint)
{
	for (size_t j = 0; j < nkeys; j++) {
		size_t i = (*hint + j) % nkeys;
		const struct key_desc *k = &keys[i];
		char *dst = (char *)obj + k->off;
		uint64_t u;
		int64_t s;

		if (kv->key.n != k->len || memcmp(kv->key.p, k->name, k->len))
			continue;
		switch (k->type) {
		case KT_SYM:
			*(nx_sym_t *)dst = nx_sym(kv->val.p, kv->val.n);
			break;
		case KT_S64:
			if (nx_parse_s64(kv->val.p, kv->val.n, &s) ||
			    !store_num(dst, k->size, true, (uint64_t)s))
				return -1;
			break;
		case KT_U64:
		case KT_HEX:
			if (nx_parse_u64(kv->val.p, kv->val.n,
					 k->type == KT_HEX ? 16 : 10, &u))
				return -1;
			store_num(dst, k->size, false, u);	/* u32: clamped, never false */
			break;
		}
		*have |= k->bit;
		*hint = i + 1;
		return 0;
	}
	return 0;
}

static int parse_pids(struct nx_span v, uint64_t pids[2])
{
	const char *comma = memchr(v.p, ',', v.n);

	if (!comma)
		return -1;
	return nx_parse_u64(v.p, (size_t)(comma - v.p), 16, &pids[0]) ||
	       nx_parse_u64(comma + 1, v.n - (size_t)(comma - v.p) - 1, 16, &pids[1]) ? -1 : 0;
}

/* a short filter name (no "kernel.numa_balancing_filter_" prefix), or -1 */
static int plain_filter_index(const char *s, size_t n)
{
	for (int i = 0; i < NX_NFILTERS; i++)
		if (strlen(nx_filters[i].name) == n && !memcmp(nx_filters[i].name, s, n))
			return i;
	return -1;
}

/* a filter value of numa_filters or the mm line: 0..255 */
static int filter_num(const char *s, size_t n, unsigned int *v)
{
	uint64_t u;

	if (nx_parse_u64(s, n, 10, &u) || u > 255)
		return -1;
	*v = (unsigned int)u;
	return 0;
}

/*
 * "filter_<name>=V:SRC" of the mm line: an unknown name is
 * ignored, a bad V makes the line malformed, an unknown SRC word (or
 * none) leaves the source unknown.
 */
static int mm_filter(struct nx_numab_mm *mm, const struct nx_kv *kv)
{
	const char *colon = memchr(kv->val.p, ':', kv->val.n);
	size_t vn = colon ? (size_t)(colon - kv->val.p) : kv->val.n;
	int idx = plain_filter_index(kv->key.p + 7, kv->key.n - 7);
	struct nx_span src;
	unsigned int v;

	if (idx < 0)
		return 0;
	if (filter_num(kv->val.p, vn, &v))
		return -1;
	mm->filt_have |= 1u << idx;
	mm->filt_val[idx] = (unsigned char)v;
	mm->filt_src[idx] = NX_FSRC_UNKNOWN;
	if (!colon)
		return 0;
	src.p = colon + 1;
	src.n = kv->val.n - vn - 1;
	if (SPAN_IS(src, "system"))
		mm->filt_src[idx] = NX_FSRC_SYSTEM;
	else if (SPAN_IS(src, "process"))
		mm->filt_src[idx] = NX_FSRC_PROCESS;
	return 0;
}

int nx_parse_numa_filters_line(const char *line, size_t len, struct nx_proc_filters *pf)
{
	const char *p = line, *end = line + len;
	struct nx_kv kv;

	memset(pf, 0, sizeof(*pf));
	while (nx_kv_next(&p, end, &kv)) {
		unsigned int v;
		int idx;

		if (!kv.val.p)
			return -1;
		idx = plain_filter_index(kv.key.p, kv.key.n);
		if (idx < 0)
			continue;	/* a filter of a newer kernel */
		if (SPAN_IS(kv.val, "inherit")) {
			pf->val[idx] = NX_FILTER_INHERIT;
		} else {
			size_t n = kv.val.n;

			if (n > 5 && !memcmp(kv.val.p + n - 5, ":priv", 5)) {
				n -= 5;
				pf->priv |= 1u << idx;
			}
			if (filter_num(kv.val.p, n, &v))
				return -1;
			pf->val[idx] = (int)v;
		}
		pf->have |= 1u << idx;
	}
	return 0;
}

int nx_parse_numa_vmas_general(const char *line, size_t len,
			       struct nx_numab_mm *mm, struct nx_numab_vma *v)
{
	const char *p = line, *end = line + len;
	struct nx_span first = next_field(&p, end);
	struct nx_kv kv;
	size_t hint = 0;

	if (!first.p)
		return -1;
	if (SPAN_IS(first, "mm")) {
		memset(mm, 0, sizeof(*mm));
		while (nx_kv_next(&p, end, &kv)) {
			if (!kv.val.p)
				continue;
			if (kv.key.n > 7 && !memcmp(kv.key.p, "filter_", 7)) {
				if (mm_filter(mm, &kv))
					return -1;
				continue;
			}
			if (set_key(mm, &mm->have, mm_keys,
				    sizeof(mm_keys) / sizeof(mm_keys[0]), &kv, &hint))
				return -1;
		}
		return (mm->have & MM_HAVE_SEQ) ? 1 : -1;
	}
	memset(v, 0, sizeof(*v));
	if (nx_parse_range(first.p, first.n, &v->start, &v->end))
		return -1;
	while (nx_kv_next(&p, end, &kv)) {
		if (!kv.val.p) {	/* heap, stack, anon, or a future flag */
			if (SPAN_IS(kv.key, "heap") || SPAN_IS(kv.key, "stack") ||
			    SPAN_IS(kv.key, "anon"))
				v->name = kv.key;
		} else if (SPAN_IS(kv.key, "file")) {
			v->name = kv.val;
		} else if (SPAN_IS(kv.key, "pids")) {
			if (parse_pids(kv.val, v->pids))
				return -1;
			v->have |= NV_HAVE_PIDS;
		} else if (set_key(v, &v->have, vma_keys,
				   sizeof(vma_keys) / sizeof(vma_keys[0]), &kv, &hint)) {
			return -1;
		}
	}
	/* filter= and state= are mandatory in every VMA line */
	return (v->have & (NV_HAVE_FILTER | NV_HAVE_STATE)) ==
	       (NV_HAVE_FILTER | NV_HAVE_STATE) ? 0 : -1;
}

/*
 * Fast path for a VMA line exactly as the kernel prints it: the keys in
 * vma_keys[] order (pids before pid_reset_ms; promo_backoff, which older
 * kernels lack, may be missing), one blank between fields, a name last.
 * Each key is compared as a literal where it must be and each value
 * parsed where it stands, instead of tokenizing the line and
 * looking every key up.  Returns false, with *v unspecified, for any
 * other line: nx_parse_numa_vmas_general() then decides (fuzz/ checks
 * that both agree whenever this one succeeds).
 */
struct cursor {
	const char *p, *end;
};

/* a value at the cursor: no blank or '=' in it, one blank or the end after */
static bool take_word(struct cursor *c, struct nx_span *val)
{
	const char *q = c->p;

	while (q < c->end && kv_class[(unsigned char)*q] == KV_WORD)
		q++;
	if (q < c->end && *q != ' ')
		return false;
	val->p = c->p;
	val->n = (size_t)(q - c->p);
	c->p = q < c->end ? q + 1 : q;
	return true;
}

/* "key=" literal at the cursor, then its value */
static bool field(struct cursor *c, const char *key, size_t n, struct nx_span *val)
{
	if ((size_t)(c->end - c->p) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (c->p[i] != key[i])
			return false;
	c->p += n;
	return take_word(c, val);
}

#define FIELD(c, lit, val) field((c), lit "=", sizeof(lit), (val))

/*
 * A decimal value in place, as nx_parse_s64()/nx_parse_u64() would take
 * it (@sign: a leading '-' allowed), ending at a blank or the line's end.
 */
static bool fast_dec(struct cursor *c, bool sign, uint64_t *out, bool *neg)
{
	const char *p = c->p, *b;
	uint64_t v = 0;

	*neg = sign && p < c->end && *p == '-';
	p += *neg;
	for (b = p; p < c->end && *p != ' '; p++)
		if (!dec_step(&v, *p, (size_t)(p - b)))
			return false;
	/* nx_parse_s64()'s range: INT64_MIN..INT64_MAX */
	if (p == b || (sign && v > (uint64_t)INT64_MAX + *neg))
		return false;
	*out = v;
	c->p = p < c->end ? p + 1 : p;
	return true;
}

#define NVMA_KEYS (sizeof(vma_keys) / sizeof(vma_keys[0]))

/* each "key=" of vma_keys[] (at most 16 bytes) as two words and a mask */
static struct {
	uint64_t w[2], m[2];
} key_words[NVMA_KEYS];
static bool key_words_ready;

static void make_key_words(void)
{
	for (size_t i = 0; i < NVMA_KEYS; i++) {
		char w[16] = { 0 }, m[16] = { 0 };
		size_t n = vma_keys[i].len;

		memcpy(w, vma_keys[i].name, n < 15 ? n : 15);
		w[n < 15 ? n : 15] = '=';
		memset(m, 0xff, n < 15 ? n + 1 : 16);
		memcpy(key_words[i].w, w, sizeof(w));
		memcpy(key_words[i].m, m, sizeof(m));
	}
	key_words_ready = true;
}

/* "key=" of vma_keys[@i] at @p: two word compares where 16 bytes remain */
static bool key_at(const char *p, const char *end, size_t i)
{
	const struct key_desc *k = &vma_keys[i];
	uint64_t a[2];

	if ((size_t)(end - p) <= k->len || k->len > 15)
		return false;
	if ((size_t)(end - p) < sizeof(a)) {
		for (size_t j = 0; j < k->len; j++)
			if (p[j] != k->name[j])
				return false;
		return p[k->len] == '=';
	}
	memcpy(a, p, sizeof(a));
	return !(((a[0] ^ key_words[i].w[0]) & key_words[i].m[0]) |
		 ((a[1] ^ key_words[i].w[1]) & key_words[i].m[1]));
}

static bool fast_key(struct cursor *c, struct nx_numab_vma *v, size_t i)
{
	const struct key_desc *k = &vma_keys[i];
	char *dst = (char *)v + k->off;
	struct nx_span val;
	uint64_t u;
	bool neg;

	if (!key_at(c->p, c->end, i))
		return false;
	c->p += k->len + 1;
	if (k->type == KT_S64 || k->type == KT_U64) {
		if (!fast_dec(c, k->type == KT_S64, &u, &neg))
			return false;
		if (neg)
			u = 0 - u;
		if (!store_num(dst, k->size, k->type == KT_S64, u))
			return false;
	} else {
		if (!take_word(c, &val))
			return false;
		*(nx_sym_t *)dst = nx_sym(val.p, val.n);
	}
	v->have |= k->bit;
	return true;
}

/* the trailing name: anon, heap, stack or file=PATH, and nothing after it */
static bool fast_name(struct cursor *c, struct nx_numab_vma *v)
{
	const char *q = c->p;
	struct nx_span w;

	while (q < c->end && kv_class[(unsigned char)*q] != KV_BLANK)
		q++;
	w.p = c->p;
	w.n = (size_t)(q - c->p);
	while (q < c->end && kv_class[(unsigned char)*q] == KV_BLANK)
		q++;
	if (q != c->end)
		return false;
	if (SPAN_IS(w, "anon") || SPAN_IS(w, "heap") || SPAN_IS(w, "stack")) {
		v->name = w;
		return true;
	}
	if (w.n > 5 && !memcmp(w.p, "file=", 5) && !memchr(w.p + 5, '=', w.n - 5)) {
		v->name.p = w.p + 5;
		v->name.n = w.n - 5;
		return true;
	}
	return false;
}

static bool numa_vmas_fast(struct cursor *c, struct nx_numab_vma *v)
{
	struct nx_span val;

	if (!key_words_ready)
		make_key_words();
	if (!fast_key(c, v, 0) || !fast_key(c, v, 1))
		return false;	/* filter=, state= */
	if (v->state == NX_SYM_OK) {
		for (size_t i = 2; i < NVMA_KEYS; i++) {
			if (vma_keys[i].bit == NV_HAVE_PID_RESET) {
				if (!FIELD(c, "pids", &val) || parse_pids(val, v->pids))
					return false;
				v->have |= NV_HAVE_PIDS;
			}
			if (vma_keys[i].bit == NV_HAVE_PROMO_BACKOFF &&
			    !key_at(c->p, c->end, i))
				continue;
			if (!fast_key(c, v, i))
				return false;
		}
	}
	return fast_name(c, v);
}

/* "start-end " in plain hex, as nx_parse_range() takes it, in one scan */
static bool fast_range(struct cursor *c, uint64_t *start, uint64_t *end)
{
	uint64_t v[2] = { 0, 0 };
	const char *p = c->p;

	for (int k = 0; k < 2; k++) {
		const char *b = p;

		for (; p < c->end && digit_tab[(unsigned char)*p]; p++)
			if (!hex_step(&v[k], *p))
				return false;
		if (p == b || p >= c->end || *p != (k ? ' ' : '-'))
			return false;
		p++;
	}
	if (v[1] < v[0])
		return false;
	*start = v[0];
	*end = v[1];
	c->p = p;
	return true;
}

int nx_parse_numa_vmas_fast(const char *line, size_t len, struct nx_numab_vma *v)
{
	struct cursor c = { line, line + len };

	memset(v, 0, sizeof(*v));
	return fast_range(&c, &v->start, &v->end) && numa_vmas_fast(&c, v) ? 0 : -1;
}

int nx_parse_numa_vmas_line(const char *line, size_t len,
			    struct nx_numab_mm *mm, struct nx_numab_vma *v)
{
	if (!nx_parse_numa_vmas_fast(line, len, v))
		return 0;
	return nx_parse_numa_vmas_general(line, len, mm, v);
}

/*
 * Fast path for a maps line as the kernel prints it: "start-end perm
 * offset dev inode", one blank between fields, then the path: the range
 * parsed in one scan and the three fields it ignores stepped over, where
 * the general parser tokenizes five fields.  Returns false for any other
 * line, which nx_parse_maps_general() then decides (fuzz/ checks that both
 * agree whenever this one succeeds).
 */
static bool maps_fast(struct cursor *c, struct nx_maps_entry *e)
{
	const char *p;

	if (!fast_range(c, &e->start, &e->end))
		return false;
	p = c->p;
	if (c->end - p < 5 || p[4] != ' ')
		return false;
	for (int i = 0; i < 4; i++)
		if (kv_class[(unsigned char)p[i]] == KV_BLANK)
			return false;
	memcpy(e->perms, p, 4);
	p += 5;
	for (int f = 0; f < 3; f++) {	/* offset, dev, inode */
		const char *b = p;

		while (p < c->end && kv_class[(unsigned char)*p] != KV_BLANK)
			p++;
		if (p == b || (p < c->end && *p != ' '))
			return false;
		p += p < c->end;
	}
	c->p = p;
	return true;
}

bool nx_maps_entry_eq(const struct nx_maps_entry *a, const struct nx_maps_entry *b)
{
	return a->start == b->start && a->end == b->end &&
	       !memcmp(a->perms, b->perms, sizeof(a->perms)) &&
	       a->path.p == b->path.p && a->path.n == b->path.n;
}

int nx_parse_maps_fast(const char *line, size_t len, struct nx_maps_entry *e)
{
	struct cursor c = { line, line + len };

	memset(e, 0, sizeof(*e));
	if (!maps_fast(&c, e))
		return -1;
	return maps_path(c.p, c.end, e);
}

int nx_parse_maps_line(const char *line, size_t len, struct nx_maps_entry *e)
{
	if (!nx_parse_maps_fast(line, len, e))
		return 0;
	return nx_parse_maps_general(line, len, e);
}

int nx_parse_vmstat_line(const char *line, size_t len,
			 struct nx_span *key, uint64_t *val)
{
	const char *p = line, *end = line + len;
	struct nx_span v;

	*key = next_field(&p, end);
	v = next_field(&p, end);
	if (!key->p || !v.p || next_field(&p, end).p)
		return -1;
	return nx_parse_u64(v.p, v.n, 10, val);
}

int nx_parse_meminfo_line(const char *line, size_t len,
			  struct nx_span *key, uint64_t *kb)
{
	const char *p = line, *end = line + len;
	struct nx_span f = next_field(&p, end), v;

	if (SPAN_IS(f, "Node")) {	/* per-node meminfo: "Node N Key: v kB" */
		next_field(&p, end);
		f = next_field(&p, end);
	}
	if (!f.p || f.n < 2 || f.p[f.n - 1] != ':')
		return -1;
	key->p = f.p;
	key->n = f.n - 1;
	v = next_field(&p, end);
	if (!v.p)
		return -1;
	return nx_parse_u64(v.p, v.n, 10, kb);
}

int nx_parse_sched_line(const char *line, size_t len,
			struct nx_span *key, struct nx_span *val)
{
	const char *colon = memchr(line, ':', len), *e = line + len;
	const char *k = line, *ke;

	while (e > line && is_blank(e[-1]))
		e--;
	while (k < e && is_blank(*k))
		k++;
	if (k >= e)
		return -1;
	if (!colon || memchr(k, '=', (size_t)(colon - k))) {
		/* "numa_faults node=0 ..." and "current_node=0, ..." */
		key->p = k;
		key->n = (size_t)(e - k);
		val->p = NULL;
		val->n = 0;
		return 0;
	}
	ke = colon;
	while (ke > k && is_blank(ke[-1]))
		ke--;
	if (ke == k)
		return -1;
	key->p = k;
	key->n = (size_t)(ke - k);
	val->p = colon + 1;
	while (val->p < e && is_blank(*val->p))
		val->p++;
	val->n = (size_t)(e - val->p);
	return 0;
}

/* "<comm>-<tid> [cpu] flags ts: sched_skip_vma_numa: numa_scan_offset=..." */
int nx_parse_trace_line(const char *line, size_t len, struct nx_trace_ev *ev)
{
	static const char tag[] = "sched_skip_vma_numa: ";
	const char *end = line + len, *p, *q, *ev_at = NULL;
	unsigned int seen = 0;
	struct nx_kv kv;
	uint64_t tid = 0, mul = 1;

	memset(ev, 0, sizeof(*ev));
	ev->tid = -1;
	for (p = line; p + sizeof(tag) - 1 <= end; p++) {
		if (memcmp(p, tag, sizeof(tag) - 1) == 0) {
			ev_at = p;
			break;
		}
	}
	if (!ev_at)
		return -1;
	/* the task: digits right before " [cpu]", after a '-' */
	for (q = ev_at; q > line && q[-1] != '['; q--)
		;
	if (q > line) {
		q--;
		while (q > line && q[-1] == ' ')
			q--;
		while (q > line && q[-1] >= '0' && q[-1] <= '9' && mul < 10000000000ull) {
			tid += (uint64_t)(q[-1] - '0') * mul;
			mul *= 10;
			q--;
		}
		if (mul > 1 && q > line && q[-1] == '-' && tid <= INT32_MAX)
			ev->tid = (int)tid;
	}
	p = ev_at + sizeof(tag) - 1;
	while (nx_kv_next(&p, end, &kv)) {
		uint64_t *dst = NULL;

		if (!kv.val.p)
			continue;
		if (SPAN_IS(kv.key, "numa_scan_offset"))
			dst = &ev->scan_offset;
		else if (SPAN_IS(kv.key, "vm_start"))
			dst = &ev->vm_start;
		else if (SPAN_IS(kv.key, "vm_end"))
			dst = &ev->vm_end;
		else if (SPAN_IS(kv.key, "reason")) {
			copy_word(ev->reason, sizeof(ev->reason), kv.val);
			seen |= 8;
			continue;
		}
		if (!dst)
			continue;
		if (nx_parse_u64(kv.val.p, kv.val.n, 16, dst))
			return -1;
		seen |= dst == &ev->vm_start ? 1 : dst == &ev->vm_end ? 2 : 4;
	}
	return (seen & 11) == 11 && ev->reason[0] ? 0 : -1;
}

int nx_filter_index(const char *s, size_t n)
{
	static const char pfx[] = "kernel.numa_balancing_filter_";

	if (n > sizeof(pfx) - 1 && memcmp(s, pfx, sizeof(pfx) - 1) == 0) {
		s += sizeof(pfx) - 1;
		n -= sizeof(pfx) - 1;
	}
	for (int i = 0; i < NX_NFILTERS; i++)
		if (strlen(nx_filters[i].name) == n &&
		    memcmp(nx_filters[i].name, s, n) == 0)
			return i;
	return -1;
}

static const char *const tri_names[] = { "off", "skip", "tier" };
static const char *const bool_names[] = { "off", "on" };

int nx_filter_value(int idx, const char *s, size_t n)
{
	const struct nx_filter_desc *f = &nx_filters[idx];
	const char *const *names = f->max == 2 ? tri_names : bool_names;
	uint64_t v;

	for (int i = 0; i <= f->max; i++)
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
			return i;
	if (nx_parse_u64(s, n, 10, &v) || v > (uint64_t)f->max)
		return -1;
	return (int)v;
}

const char *nx_filter_value_name(int idx, int val)
{
	const struct nx_filter_desc *f = &nx_filters[idx];

	if (val < 0 || val > f->max)
		return "invalid";
	return f->max == 2 ? tri_names[val] : bool_names[val];
}

int nx_parse_filter_assign(const char *line, size_t len, int *idx, int *val)
{
	const char *end = line + len, *eq = memchr(line, '=', len);
	const char *k = line, *ke, *v;

	if (!eq)
		return -1;
	while (k < eq && is_blank(*k))
		k++;
	ke = eq;
	while (ke > k && is_blank(ke[-1]))
		ke--;
	v = eq + 1;
	while (v < end && is_blank(*v))
		v++;
	while (end > v && is_blank(end[-1]))
		end--;
	*idx = nx_filter_index(k, (size_t)(ke - k));
	if (*idx < 0)
		return -1;
	*val = nx_filter_value(*idx, v, (size_t)(end - v));
	return *val < 0 ? -1 : 0;
}

void nx_unescape(struct nx_span s, char *buf, size_t sz)
{
	size_t o = 0;

	for (size_t i = 0; i < s.n && o + 1 < sz; i++) {
		if (s.p[i] == '\\' && i + 3 < s.n &&
		    s.p[i + 1] >= '0' && s.p[i + 1] <= '3' &&
		    s.p[i + 2] >= '0' && s.p[i + 2] <= '7' &&
		    s.p[i + 3] >= '0' && s.p[i + 3] <= '7') {
			buf[o++] = (char)((s.p[i + 1] - '0') * 64 +
					  (s.p[i + 2] - '0') * 8 + (s.p[i + 3] - '0'));
			i += 3;
		} else {
			buf[o++] = s.p[i];
		}
	}
	if (sz)
		buf[o] = '\0';
}
