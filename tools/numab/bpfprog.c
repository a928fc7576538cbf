// SPDX-License-Identifier: GPL-2.0
/*
 * Loading the BPF backend's program (bpf/numab_vmas.bpf.c).  libbpf opens
 * the skeleton, parses the kernel's BTF (5 MB) and CO-RE-relocates the
 * program against it: most of a 'numabctl vmas' run on a big process.  The
 * relocated instructions, the map they use and the BTF id of the iterator
 * they attach to depend only on the running kernel and on this program, so
 * after a load through libbpf they are kept for the boot in a root-only
 * file (/run/numabctl.bpf, NUMABCTL_BPF_CACHE), and the next run loads them
 * directly (one map, one program: the kernel's verifier still checks them).
 * A cache that does not fit (another boot, another numabctl, a file not
 * root's) is ignored; one the kernel refuses is replaced.
 */
#include "numabctl.h"

#ifdef NX_HAVE_BPF

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "backend.h"
#include "bpf/numab_rec.h"
#include "numab_vmas.skel.h"

#define CACHE_MAGIC "NXBPF01\n"

struct cache_hdr {
	char magic[8];
	char boot_id[40];
	uint64_t digest;	/* of the program's object and numabctl's records */
	uint32_t attach_btf_id;
	uint32_t insn_cnt;
};

static void cache_path(char *buf, size_t sz)
{
	const char *e = getenv("NUMABCTL_BPF_CACHE");

	snprintf(buf, sz, "%s", e && *e ? e : "/run/numabctl.bpf");
}

static bool cache_off(void)
{
	const char *e = getenv("NUMABCTL_BPF_CACHE");

	return e && !strcmp(e, "off");
}

/* FNV-1a of the object file and the record layout this numabctl reads */
static uint64_t digest(void)
{
	size_t sz = 0;
	const unsigned char *p = numab_vmas__elf_bytes(&sz);
	uint64_t h = 0xcbf29ce484222325ull ^ sizeof(struct nb_rec) ^ (sizeof(struct nb_state) << 16);

	for (size_t i = 0; i < sz; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void this_boot(char *buf, size_t sz)
{
	memset(buf, 0, sz);
	if (nx_read_str("/proc/sys/kernel/random/boot_id", buf, sz))
		buf[0] = '\0';
}

/* ld_imm64 of the state map: the only kind of reference the cache may hold */
static bool patchable(struct bpf_insn *insns, uint32_t cnt, int map_fd)
{
	for (uint32_t i = 0; i < cnt; i++) {
		struct bpf_insn *in = &insns[i];

		if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			return false;
		if (in->code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (in->src_reg == BPF_PSEUDO_MAP_FD) {
			if (map_fd >= 0)
				in->imm = map_fd;
		} else if (in->src_reg) {
			return false;	/* map values, BTF ids of ksyms: not kept */
		}
		i++;	/* the second half of the 16-byte instruction */
	}
	return true;
}

static int map_create(void)
{
	return bpf_map_create(BPF_MAP_TYPE_ARRAY, "state", sizeof(__u32),
			      sizeof(struct nb_state), 1, NULL);
}

/* the cache for this boot and program: load from it; -1 if it does not fit */
static int load_cached(struct nx_bpf_prog *p)
{
	char path[4096], boot[40];
	struct cache_hdr h;
	struct bpf_insn *insns = NULL;
	struct stat st;
	int fd, r = -1;

	cache_path(path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	this_boot(boot, sizeof(boot));
	/* root's, written by root only: it becomes a program in the kernel */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) ||
	    read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) || memcmp(h.magic, CACHE_MAGIC, 8) ||
	    !boot[0] || memcmp(h.boot_id, boot, sizeof(boot)) || h.digest != digest() ||
	    !h.insn_cnt || h.insn_cnt > 1u << 20 ||
	    (off_t)(sizeof(h) + h.insn_cnt * sizeof(*insns)) != st.st_size)
		goto out;
	insns = malloc(h.insn_cnt * sizeof(*insns));
	if (!insns || read(fd, insns, h.insn_cnt * sizeof(*insns)) !=
	    (ssize_t)(h.insn_cnt * sizeof(*insns)))
		goto out;
	p->map_fd = map_create();
	if (p->map_fd < 0 || !patchable(insns, h.insn_cnt, p->map_fd))
		goto out;
	{
		LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_ITER,
			    .attach_btf_id = h.attach_btf_id);

		p->prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "numab_vmas", "GPL", insns,
					   h.insn_cnt, &o);
	}
	r = p->prog_fd < 0 ? -1 : 0;
out:
	if (r && p->map_fd >= 0) {
		close(p->map_fd);
		p->map_fd = -1;
	}
	free(insns);
	close(fd);
	return r;
}

/* after a libbpf load: keep its relocated instructions for the boot (root only) */
static void save_cache(const struct nx_bpf_prog *p)
{
	const struct bpf_program *prog = p->skel->progs.numab_vmas;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct cache_hdr h;
	struct bpf_insn *insns;
	char path[4096], tmp[4200];
	size_t cnt = bpf_program__insn_cnt(prog);
	int fd;

	if (geteuid() != 0 || !cnt)
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(p->prog_fd, &info, &len) || !info.attach_btf_id)
		return;
	insns = malloc(cnt * sizeof(*insns));
	if (!insns)
		return;
	memcpy(insns, bpf_program__insns(prog), cnt * sizeof(*insns));
	if (!patchable(insns, (uint32_t)cnt, -1)) {
		free(insns);
		return;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CACHE_MAGIC, 8);
	this_boot(h.boot_id, sizeof(h.boot_id));
	h.digest = digest();
	h.attach_btf_id = info.attach_btf_id;
	h.insn_cnt = (uint32_t)cnt;
	cache_path(path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		bool ok = h.boot_id[0] && write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
			  write(fd, insns, cnt * sizeof(*insns)) == (ssize_t)(cnt * sizeof(*insns));

		if (close(fd) || !ok || rename(tmp, path))
			unlink(tmp);
	}
	free(insns);
}

int nx_bpf_prog_load(struct nx_bpf_prog *p)
{
	int e;

	memset(p, 0, sizeof(*p));
	p->map_fd = p->prog_fd = -1;
	if (!cache_off() && !load_cached(p)) {
		p->cached = true;
		return 0;
	}
	p->skel = numab_vmas__open();
	if (!p->skel)
		return -errno;
	if (numab_vmas__load(p->skel)) {
		e = -errno;
		numab_vmas__destroy(p->skel);
		p->skel = NULL;
		return e;
	}
	p->prog_fd = bpf_program__fd(p->skel->progs.numab_vmas);
	p->map_fd = bpf_map__fd(p->skel->maps.state);
	if (!cache_off())
		save_cache(p);
	return 0;
}

void nx_bpf_prog_close(struct nx_bpf_prog *p)
{
	if (p->skel) {
		numab_vmas__destroy(p->skel);	/* closes its fds */
	} else {
		if (p->prog_fd >= 0)
			close(p->prog_fd);
		if (p->map_fd >= 0)
			close(p->map_fd);
	}
	memset(p, 0, sizeof(*p));
	p->map_fd = p->prog_fd = -1;
}

#endif /* NX_HAVE_BPF */
