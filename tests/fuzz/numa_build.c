// SPDX-License-Identifier: MIT
/*
 * numa_build.c - fuzz target: numa_build() (kernel/numa.c) on MADT, SRAT
 * and SLIT facts as their parsers could report them, and a memory map,
 * each present or not: repeated APIC IDs, a boot CPU anywhere or nowhere,
 * overlapping ranges, domains above MAX_NODES, SLITs that fit or do not.
 * At most 32 SRAT entries, so every domain can get a node.
 *
 * The oracle, computed from the inputs apart from numa.c (an SRAT counts
 * when it has entries and no byte is in ranges of two domains: else one
 * node, as in Linux):
 *   - CPUs: CPU 0 is the boot CPU's APIC ID, then each enabled MADT CPU
 *     in table order whose APIC ID is not listed yet (the boot CPU's
 *     first entry is CPU 0's); every CPU is in exactly one node's mask,
 *     cpu_node's, and no mask holds a CPU past ncpus;
 *   - a CPU's node is the one whose node_pxm is the domain of the last
 *     SRAT entry with its APIC ID, or node 0 if none (or without SRAT);
 *   - node_pxm, on present nodes: the identity when every domain is
 *     below MAX_NODES, else one-to-one; each SRAT memory range lies inside
 *     the ranges of the node of its domain;
 *   - memory: every usable byte of the (sanitized) map is on exactly one
 *     node, through its ranges or an orphan range, and each node's
 *     ram_bytes is the usable bytes on it; without an SRAT, node 0;
 *   - present: a node is present exactly when it has CPUs or ranges or
 *     orphan RAM; nr_nodes is the highest present + 1; a node's ranges
 *     are sorted, non-empty, apart and not touching (merged);
 *   - distances: 10 on the whole diagonal; between present nodes the
 *     SLIT's entry for their domains when the SLIT covers every present
 *     node's domain with 10 on its diagonal and more than 10 off it,
 *     else 20; 10/20 for every other pair.
 */
#include "fuzz.h"
#include "memmap_oracle.h"
#include "numa.h"

#define FUZZ_APICS 32                   /* APIC IDs 0..31: repeats are likely */

static struct madt_info madt;
static struct srat_info srat;
static struct slit_info slit;
static struct memmap map;
static struct numa_layout nl;

static u32 take_pxm(struct fuzz_input *in, bool big)
{
	u32 v = (u32)fuzz_take(in, 1);

	return big && (v & 0x80) ? 0x1000 + (v & 7) : v % 8;
}

static void build_inputs(struct fuzz_input *in, u32 flags)
{
	bool big = flags & 8;

	memset(&madt, 0, sizeof(madt));
	memset(&srat, 0, sizeof(srat));
	memset(&slit, 0, sizeof(slit));
	madt.ncpus = (u32)fuzz_take(in, 1) % 17;
	for (u32 i = 0; i < madt.ncpus; i++) {
		u32 v = (u32)fuzz_take(in, 1);
		madt.cpus[i] = (struct madt_cpu){ .apic_id = v % FUZZ_APICS, .enabled = !(v & 0x80) };
	}
	srat.ncpus = (u32)fuzz_take(in, 1) % 17;
	for (u32 i = 0; i < srat.ncpus; i++) {
		srat.cpus[i].apic_id = (u32)fuzz_take(in, 1) % FUZZ_APICS;
		srat.cpus[i].pxm = take_pxm(in, big);
	}
	srat.nmem = (u32)fuzz_take(in, 1) % 17;
	for (u32 i = 0; i < srat.nmem; i++) {
		u64 base = fuzz_take(in, 2) << 16, len = (1 + fuzz_take(in, 2)) << 16;
		srat.mem[i] = (struct srat_mem){ base, base + len, take_pxm(in, big), false, false };
	}
	slit.n = (u32)fuzz_take(in, 1) % 9;
	for (u32 a = 0; a < slit.n; a++)
		for (u32 b = 0; b < slit.n; b++) {
			u8 v = (u8)fuzz_take(in, 1);
			slit.dist[a][b] = v >= 0xf0 ? v & 0x0f : a == b ? 10 : 11 + v % 40;
		}
	map.n = (u32)fuzz_take(in, 1) % 9;
	for (u32 i = 0; i < map.n; i++) {
		u64 base = fuzz_take(in, 2) << 16, len = fuzz_take(in, 2) << 16;
		map.e[i] = (struct memmap_entry){ base, base + len,
						  fuzz_take(in, 1) % 3 ? E820_USABLE : E820_RESERVED };
	}
	memmap_sanitize(&map);
}

static void check_cpus(u32 bsp, bool use_madt, bool use_srat)
{
	static u32 want[MAX_CPUS];
	u32 n = 1;
	bool bsp_seen = false;

	want[0] = bsp;
	for (u32 i = 0; use_madt && i < madt.ncpus; i++) {
		const struct madt_cpu *c = &madt.cpus[i];
		bool listed = false;
		if (!c->enabled)
			continue;
		if (c->apic_id == bsp && !bsp_seen) {
			bsp_seen = true;
			continue;
		}
		for (u32 j = 0; j < n; j++)
			listed |= want[j] == c->apic_id;
		if (!listed && n < MAX_CPUS)
			want[n++] = c->apic_id;
	}
	FUZZ_CHECK(nl.ncpus == n);
	for (u32 cpu = 0; cpu < n; cpu++) {
		u32 nodes = 0;
		int pxm = -1;
		FUZZ_CHECK(nl.cpu_apic_id[cpu] == want[cpu]);
		for (u32 id = 0; id < MAX_NODES; id++)
			nodes += cpumask_test(&nl.nodes[id].cpus, cpu);
		FUZZ_CHECK(nodes == 1 && cpumask_test(&nl.nodes[nl.cpu_node[cpu]].cpus, cpu));
		for (u32 i = 0; use_srat && i < srat.ncpus; i++)
			if (srat.cpus[i].apic_id == want[cpu])
				pxm = (int)srat.cpus[i].pxm;
		if (pxm < 0)
			FUZZ_CHECK(nl.cpu_node[cpu] == 0);
		else
			FUZZ_CHECK(nl.node_pxm[nl.cpu_node[cpu]] == (u32)pxm);
	}
	u32 bits = 0;                   /* n CPUs in one mask each: no other bit is set */
	for (u32 id = 0; id < MAX_NODES; id++)
		for (u32 w = 0; w < ARRAY_SIZE(nl.nodes[id].cpus.bits); w++)
			bits += (u32)__builtin_popcountll(nl.nodes[id].cpus.bits[w]);
	FUZZ_CHECK(bits == n);
}

/* How many nodes hold byte p, through their ranges or orphans; *node = the last. */
static u32 holders(u64 p, int *node)
{
	u32 n = 0;

	for (u32 id = 0; id < MAX_NODES; id++) {
		bool here = false;
		for (u32 i = 0; i < nl.nodes[id].nmem; i++)
			here |= nl.nodes[id].mem[i].base <= p && p < nl.nodes[id].mem[i].end;
		for (u32 i = 0; i < nl.norphans; i++)
			here |= nl.orphan_node[i] == id && nl.orphan[i].base <= p && p < nl.orphan[i].end;
		if (here) {
			n++;
			*node = (int)id;
		}
	}
	return n;
}

/* The next place at or after p where holders() may change, at most end. */
static u64 next_edge(u64 p, u64 end)
{
	for (u32 id = 0; id < MAX_NODES; id++)
		for (u32 i = 0; i < nl.nodes[id].nmem; i++) {
			const struct numa_range *r = &nl.nodes[id].mem[i];
			if (r->base > p && r->base < end)
				end = r->base;
			if (r->end > p && r->end < end)
				end = r->end;
		}
	for (u32 i = 0; i < nl.norphans; i++) {
		if (nl.orphan[i].base > p && nl.orphan[i].base < end)
			end = nl.orphan[i].base;
		if (nl.orphan[i].end > p && nl.orphan[i].end < end)
			end = nl.orphan[i].end;
	}
	return end;
}

static void check_memory(bool use_srat)
{
	u64 ram[MAX_NODES] = { 0 };

	for (u32 i = 0; i < map.n; i++) {
		if (map.e[i].type != E820_USABLE)
			continue;
		for (u64 p = map.e[i].base; p < map.e[i].end; p = next_edge(p, map.e[i].end)) {
			int node = -1;
			FUZZ_CHECK(holders(p, &node) == 1);
			FUZZ_CHECK(use_srat || node == 0);
			ram[node] += next_edge(p, map.e[i].end) - p;
		}
	}
	for (u32 id = 0; id < MAX_NODES; id++)
		FUZZ_CHECK(nl.nodes[id].ram_bytes == ram[id]);
	for (u32 i = 0; use_srat && i < srat.nmem; i++) {
		const struct srat_mem *r = &srat.mem[i];
		bool inside = false;
		for (u32 id = 0; id < MAX_NODES; id++) {
			if (nl.node_pxm[id] != r->pxm || !nl.nodes[id].present)
				continue;
			for (u32 j = 0; j < nl.nodes[id].nmem; j++)
				inside |= nl.nodes[id].mem[j].base <= r->base && r->end <= nl.nodes[id].mem[j].end;
		}
		FUZZ_CHECK(inside);
	}
}

static void check_nodes(bool use_srat)
{
	bool renumbered = false;
	u32 highest = 0;

	for (u32 i = 0; use_srat && i < srat.ncpus; i++)
		renumbered |= srat.cpus[i].pxm >= MAX_NODES;
	for (u32 i = 0; use_srat && i < srat.nmem; i++)
		renumbered |= srat.mem[i].pxm >= MAX_NODES;
	for (u32 id = 0; id < MAX_NODES; id++) {
		const struct numa_node *nd = &nl.nodes[id];
		bool orphans = false;
		for (u32 i = 0; i < nl.norphans; i++)
			orphans |= nl.orphan_node[i] == id;
		FUZZ_CHECK(nd->present == (!cpumask_empty(&nd->cpus) || nd->nmem || orphans));
		for (u32 i = 0; i < nd->nmem; i++)
			FUZZ_CHECK(nd->mem[i].base < nd->mem[i].end &&
				   (i == 0 || nd->mem[i - 1].end < nd->mem[i].base));
		if (nd->present)
			highest = id + 1;
		if (!renumbered && nd->present)
			FUZZ_CHECK(nl.node_pxm[id] == id);
		for (u32 other = 0; other < id; other++)
			FUZZ_CHECK(!nd->present || !nl.nodes[other].present ||
				   nl.node_pxm[other] != nl.node_pxm[id]);
	}
	FUZZ_CHECK(nl.nr_nodes == highest);
}

static void check_distances(bool use_srat, bool use_slit)
{
	bool sane = use_slit && use_srat;

	for (u32 a = 0; sane && a < MAX_NODES; a++)
		for (u32 b = 0; sane && b < MAX_NODES; b++) {
			if (!nl.nodes[a].present || !nl.nodes[b].present)
				continue;
			u32 pa = nl.node_pxm[a], pb = nl.node_pxm[b];
			sane = pa < slit.n && pb < slit.n &&
			       (a == b ? slit.dist[pa][pb] == 10 : slit.dist[pa][pb] > 10);
		}
	for (u32 a = 0; a < MAX_NODES; a++)
		for (u32 b = 0; b < MAX_NODES; b++) {
			bool both = nl.nodes[a].present && nl.nodes[b].present;
			u8 want = sane && both ? slit.dist[nl.node_pxm[a]][nl.node_pxm[b]] :
				  a == b ? 10 : 20;
			FUZZ_CHECK(nl.distance[a][b] == want);
		}
}

/* Do SRAT ranges of two domains share a byte? Then the SRAT is not used. */
static bool two_domains_overlap(void)
{
	for (u32 i = 0; i < srat.nmem; i++)
		for (u32 j = 0; j < srat.nmem; j++)
			if (srat.mem[i].pxm != srat.mem[j].pxm && srat.mem[i].base < srat.mem[j].end &&
			    srat.mem[j].base < srat.mem[i].end)
				return true;
	return false;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };
	u32 flags = (u32)fuzz_take(&in, 1), bsp = (u32)fuzz_take(&in, 1) % FUZZ_APICS;
	bool use_madt = flags & 1, use_slit = flags & 4;

	fuzz_quiet();
	build_inputs(&in, flags);
	bool use_srat = (flags & 2) && (srat.ncpus || srat.nmem) && !two_domains_overlap();
	numa_build(&nl, use_madt ? &madt : NULL, flags & 2 ? &srat : NULL,
		   use_slit ? &slit : NULL, &map, NULL, bsp);
	FUZZ_CHECK(nl.from_srat == use_srat);
	check_cpus(bsp, use_madt, use_srat);
	check_nodes(use_srat);
	check_memory(use_srat);
	check_distances(use_srat, use_slit);
	return 0;
}
