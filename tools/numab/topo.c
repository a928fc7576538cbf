// SPDX-License-Identifier: GPL-2.0
/* NUMA nodes, their memory and their memory tier */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "numabctl.h"

static int read_mask(const char *rel, struct nx_nodemask *m)
{
	char path[4096], buf[4096];
	int r;

	nx_path(path, sizeof(path), "%s", rel);
	r = nx_read_str(path, buf, sizeof(buf));
	if (r)
		return r;
	return nx_parse_nodelist(buf, strlen(buf), m) ? -EINVAL : 0;
}

struct meminfo_ctx {
	struct nx_node *n;
};

static int meminfo_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct nx_node *n = priv;
	struct nx_span key;
	uint64_t kb;

	(void)no;
	if (nx_parse_meminfo_line(line, len, &key, &kb))
		return 0;
	if (nx_span_eq(key, "MemTotal"))
		n->total_kb = kb;
	else if (nx_span_eq(key, "MemFree"))
		n->free_kb = kb;
	return 0;
}

static void load_tiers(struct nx_topo *t)
{
	char path[4096];
	DIR *d;
	struct dirent *de;
	int top = -1;

	nx_path(path, sizeof(path), "/sys/devices/virtual/memory_tiering");
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct nx_nodemask m;
		char rel[512];
		uint64_t id;
		int r;

		if (strncmp(de->d_name, "memory_tier", 11) ||
		    nx_parse_u64(de->d_name + 11, strlen(de->d_name + 11), 10, &id) ||
		    id > 100000)
			continue;
		snprintf(rel, sizeof(rel), "/sys/devices/virtual/memory_tiering/%s/nodelist",
			 de->d_name);
		r = read_mask(rel, &m);
		if (r == -EINVAL && !t->tiers_bad) {	/* say so once, and do not guess */
			char buf[64] = "";

			nx_path(path, sizeof(path), "%s", rel);
			nx_read_str(path, buf, sizeof(buf));
			nx_warn("%s: malformed nodelist '%s': the nodes of no other tier have "
				"an unknown class; FAST and SLOW are not shown", path, buf);
			t->tiers_bad = true;
		}
		if (r)
			continue;
		t->have_tiers = true;
		t->ntiers++;
		for (size_t i = 0; i < t->nnodes; i++) {
			struct nx_node *n = &t->nodes[i];

			if (!nx_mask_test(&m, (unsigned int)n->id))
				continue;
			n->tier = (int)id;
			if (n->has_cpu && (int)id > top)
				top = (int)id;
		}
	}
	closedir(d);
	/* like node_is_toptier(): every tier up to the slowest one with CPUs */
	for (size_t i = 0; i < t->nnodes; i++) {
		struct nx_node *n = &t->nodes[i];

		n->fast = !t->have_tiers || top < 0 || n->tier < 0 || n->tier <= top;
		if (!n->fast)
			nx_mask_set(&t->slow, (unsigned int)n->id);
	}
}

int nx_topo_load(struct nx_topo *t)
{
	struct nx_nodemask cpu, mem;
	char path[4096];

	memset(t, 0, sizeof(*t));
	memset(&cpu, 0, sizeof(cpu));
	memset(&mem, 0, sizeof(mem));
	if (read_mask("/sys/devices/system/node/online", &t->online))
		return 0;	/* no NUMA sysfs: empty topology */
	t->have_nodes = true;
	read_mask("/sys/devices/system/node/has_cpu", &cpu);
	read_mask("/sys/devices/system/node/has_memory", &mem);
	t->nodes = calloc(nx_mask_weight(&t->online) + 1, sizeof(*t->nodes));
	if (!t->nodes)
		return -ENOMEM;
	for (unsigned int i = 0; i < NX_MAX_NODES; i++) {
		struct nx_node *n;

		if (!nx_mask_test(&t->online, i))
			continue;
		n = &t->nodes[t->nnodes++];
		n->id = (int)i;
		n->tier = -1;
		n->has_cpu = nx_mask_test(&cpu, i);
		n->has_memory = nx_mask_test(&mem, i);
		nx_path(path, sizeof(path), "/sys/devices/system/node/node%u/meminfo", i);
		nx_for_each_line(path, meminfo_line, n);
	}
	load_tiers(t);
	return 0;
}

void nx_topo_free(struct nx_topo *t)
{
	free(t->nodes);
	t->nodes = NULL;
	t->nnodes = 0;
}
