// SPDX-License-Identifier: MIT
/*
 * numa.c - build the node table from the SRAT, SLIT, MADT and memory map.
 *
 * In order:
 *   1. logical CPUs: the boot CPU (found by its APIC ID, wherever the MADT
 *      lists it) is CPU 0, then the other enabled MADT CPUs in table order;
 *   2. node IDs: proximity domains as they are, or renumbered in order of
 *      first appearance if any is >= MAX_NODES;
 *   3. each CPU joins the node of its APIC ID's SRAT entry (node 0, with a
 *      warning, if it has none); each SRAT memory range joins its node;
 *   4. usable RAM no SRAT range covers joins the node whose memory is
 *      nearest in address (a warning names the range), as an orphan
 *      range, or past NUMA_MAX_ORPHANS of them as one of its ranges, so
 *      numa_node_of_addr() finds every usable byte's node;
 *   5. distances from the SLIT, read by proximity domain (its localities
 *      are domains, not our node IDs), if it covers every node's domain
 *      and is sane there (10 on the diagonal, > 10 elsewhere), else 10
 *      local / 20 remote.
 * Without an SRAT, or with one whose memory ranges of two domains
 * overlap (as Linux, which would put a byte on two nodes), all of it
 * collapses to node 0.
 */
#include "numa.h"
#include "format.h"
#include "kstring.h"
#include "printk.h"

#define LOCAL_DISTANCE  10
#define REMOTE_DISTANCE 20

/* Proximity domain -> node ID, renumbering only when it must. */
struct pxm_map {
	bool renumber;
	u32 pxm[MAX_NODES];
	u32 n;
};

static int pxm_to_node(struct numa_layout *nl, struct pxm_map *pm, u32 pxm)
{
	if (!pm->renumber)
		return pxm < MAX_NODES ? (int)pxm : -1;
	for (u32 i = 0; i < pm->n; i++)
		if (pm->pxm[i] == pxm)
			return (int)i;
	if (pm->n == MAX_NODES)
		return -1;
	pm->pxm[pm->n] = pxm;
	nl->node_pxm[pm->n] = pxm;
	return (int)pm->n++;
}

/*
 * Logical CPU numbers. The boot CPU is already running, so it is CPU 0
 * whatever its place in the MADT (firmware may list it anywhere: last,
 * after the other socket, ...); smp_boot() starts CPUs 1 to ncpus - 1.
 * Linux does the same: arch/x86/kernel/apic/apic.c, generic_processor_info(),
 * gives the entry whose APIC ID is boot_cpu_physical_apicid CPU 0, numbers
 * the others as the MADT lists them, and near NR_CPUS keeps "one slot for
 * boot cpu", as add_cpus() keeps slot 0 even past MAX_CPUS.
 */
/* Is apic_id already one of nl's logical CPUs? */
static bool apic_id_listed(const struct numa_layout *nl, u32 apic_id)
{
	for (u32 cpu = 0; cpu < nl->ncpus; cpu++)
		if (nl->cpu_apic_id[cpu] == apic_id)
			return true;
	return false;
}

static void add_cpus(struct numa_layout *nl, const struct madt_info *madt, u32 bsp_apic_id)
{
	u32 bsp_entry = ~0u, enabled = 0, dropped = 0;

	nl->cpu_apic_id[0] = bsp_apic_id;
	nl->ncpus = 1;
	for (u32 i = 0; madt && i < madt->ncpus; i++) {
		const struct madt_cpu *c = &madt->cpus[i];

		if (!c->enabled)
			continue;
		if (c->apic_id == bsp_apic_id && bsp_entry == ~0u) {
			bsp_entry = enabled++;
			continue;
		}
		/*
		 * A second entry with an APIC ID already listed is a firmware
		 * bug: an IPI to that ID reaches one CPU, so starting "both"
		 * would start (or reset) the same CPU twice.
		 */
		if (apic_id_listed(nl, c->apic_id)) {
			pr_warn("numa: the MADT lists APIC ID %u twice; the second entry is ignored\n",
				c->apic_id);
			continue;
		}
		enabled++;
		if (nl->ncpus < MAX_CPUS)
			nl->cpu_apic_id[nl->ncpus++] = c->apic_id;
		else
			dropped++;
	}
	if (madt && bsp_entry == ~0u)
		pr_warn("numa: the boot CPU (APIC ID %u) is no enabled MADT entry; it is CPU 0 all the same\n",
			bsp_apic_id);
	else if (madt && bsp_entry != 0)
		pr_info("numa: the boot CPU (APIC ID %u) is enabled MADT CPU %u; it is CPU 0, the others follow in table order\n",
			bsp_apic_id, bsp_entry);
	if (dropped)
		pr_warn("numa: %u enabled CPUs past MAX_CPUS (%d) not used\n", dropped, MAX_CPUS);
}

/*
 * Add [base, end) to a node's ranges, merging with those it touches: the
 * ranges stay sorted, apart and not touching.
 */
static void node_add_range(struct numa_node *nd, int id, u64 base, u64 end)
{
	for (u32 i = 0; i < nd->nmem; i++) {
		if (base <= nd->mem[i].end && nd->mem[i].base <= end) {
			nd->mem[i].base = MIN(nd->mem[i].base, base);
			nd->mem[i].end = MAX(nd->mem[i].end, end);
			/* Wider, it may reach the ranges after it: they join it. */
			while (i + 1 < nd->nmem && nd->mem[i + 1].base <= nd->mem[i].end) {
				nd->mem[i].end = MAX(nd->mem[i].end, nd->mem[i + 1].end);
				memmove(&nd->mem[i + 1], &nd->mem[i + 2],
					(nd->nmem - i - 2) * sizeof(nd->mem[0]));
				nd->nmem--;
			}
			return;
		}
	}
	if (nd->nmem == NUMA_MAX_RANGES) {
		pr_warn("numa: node %d has more than %u memory ranges; [0x%llx-0x%llx) ignored\n",
			id, NUMA_MAX_RANGES, base, end);
		return;
	}
	u32 i = nd->nmem++;             /* keep the ranges sorted */
	while (i > 0 && nd->mem[i - 1].base > base) {
		nd->mem[i] = nd->mem[i - 1];
		i--;
	}
	nd->mem[i] = (struct numa_range){ base, end };
	nd->present = true;
}

static void from_srat(struct numa_layout *nl, const struct srat_info *srat)
{
	struct pxm_map pm = { .renumber = false };

	for (u32 id = 0; id < MAX_NODES; id++)
		nl->node_pxm[id] = id;          /* unless renumbered below */

	for (u32 i = 0; i < srat->ncpus; i++)
		pm.renumber |= srat->cpus[i].pxm >= MAX_NODES;
	for (u32 i = 0; i < srat->nmem; i++)
		pm.renumber |= srat->mem[i].pxm >= MAX_NODES;
	if (pm.renumber)
		pr_info("numa: proximity domains above %d; node IDs assigned in SRAT order\n",
			MAX_NODES - 1);

	for (u32 cpu = 0; cpu < nl->ncpus; cpu++) {
		int node = -1;
		for (u32 i = 0; i < srat->ncpus; i++)
			if (srat->cpus[i].apic_id == nl->cpu_apic_id[cpu])
				node = pxm_to_node(nl, &pm, srat->cpus[i].pxm);
		if (node < 0) {
			pr_warn("numa: CPU %u (APIC ID %u) is in no SRAT entry; putting it on node 0\n",
				cpu, nl->cpu_apic_id[cpu]);
			node = 0;
		}
		nl->cpu_node[cpu] = (u8)node;
		cpumask_set(&nl->nodes[node].cpus, cpu);
		nl->nodes[node].present = true;
	}
	for (u32 i = 0; i < srat->nmem; i++) {
		int node = pxm_to_node(nl, &pm, srat->mem[i].pxm);
		if (node < 0) {
			pr_warn("numa: more than %d proximity domains; memory of domain %u ignored\n",
				MAX_NODES, srat->mem[i].pxm);
			continue;
		}
		node_add_range(&nl->nodes[node], node, srat->mem[i].base, srat->mem[i].end);
	}
}

int numa_node_of_addr(const struct numa_layout *nl, u64 pa)
{
	for (u32 id = 0; id < nl->nr_nodes; id++)
		for (u32 i = 0; i < nl->nodes[id].nmem; i++)
			if (nl->nodes[id].mem[i].base <= pa && pa < nl->nodes[id].mem[i].end)
				return (int)id;
	for (u32 i = 0; i < nl->norphans; i++)
		if (nl->orphan[i].base <= pa && pa < nl->orphan[i].end)
			return nl->orphan_node[i];
	return -1;
}

u64 numa_piece_end(const struct numa_layout *nl, u64 pa, u64 limit)
{
	u64 stop = limit;

	for (u32 id = 0; id < nl->nr_nodes; id++)
		for (u32 i = 0; i < nl->nodes[id].nmem; i++) {
			const struct numa_range *r = &nl->nodes[id].mem[i];
			if (r->base <= pa && pa < r->end)
				return MIN(r->end, limit);
			if (r->base > pa)
				stop = MIN(stop, r->base);
		}
	for (u32 i = 0; i < nl->norphans; i++) {
		if (nl->orphan[i].base <= pa && pa < nl->orphan[i].end)
			return MIN(nl->orphan[i].end, limit);
		if (nl->orphan[i].base > pa)
			stop = MIN(stop, nl->orphan[i].base);
	}
	return stop;
}

/* The node with memory closest in address to [base, end), or -1 if none has memory. */
static int nearest_node(const struct numa_layout *nl, u64 base, u64 end)
{
	u64 best_gap = UINT64_MAX;
	int best = -1;

	for (u32 id = 0; id < MAX_NODES; id++)
		for (u32 i = 0; i < nl->nodes[id].nmem; i++) {
			const struct numa_range *r = &nl->nodes[id].mem[i];
			u64 gap = r->end <= base ? base - r->end : end <= r->base ? r->base - end : 0;
			if (gap < best_gap) {
				best_gap = gap;
				best = (int)id;
			}
		}
	return best;
}

/* Give RAM outside every SRAT range to the nearest node; count each node's RAM. */
static void place_ram(struct numa_layout *nl, const struct memmap *map)
{
	for (u32 i = 0; i < map->n; i++) {
		const struct memmap_entry *e = &map->e[i];
		u64 pos = e->base;

		if (e->type != E820_USABLE)
			continue;
		while (pos < e->end) {
			int node = numa_node_of_addr(nl, pos);
			u64 next = numa_piece_end(nl, pos, e->end);

			if (node < 0) {
				node = nearest_node(nl, pos, next);
				if (node < 0)
					node = 0;
				pr_warn("numa: [mem 0x%llx-0x%llx] is in no SRAT range; giving it to node %d, the nearest\n",
					pos, next - 1, node);
				if (nl->norphans < NUMA_MAX_ORPHANS) {
					nl->orphan[nl->norphans] = (struct numa_range){ pos, next };
					nl->orphan_node[nl->norphans++] = (u8)node;
				} else {        /* no room to keep it apart: it joins the node's ranges */
					node_add_range(&nl->nodes[node], node, pos, next);
				}
				nl->nodes[node].present = true;
			}
			nl->nodes[node].ram_bytes += next - pos;
			pos = next;
		}
	}
}

/*
 * Is the SLIT usable for the present nodes: does it cover each one's
 * proximity domain, with 10 on the diagonal and more than 10 elsewhere?
 */
static bool slit_is_sane(const struct numa_layout *nl, const struct slit_info *slit)
{
	for (u32 a = 0; a < nl->nr_nodes; a++) {
		if (!nl->nodes[a].present)
			continue;
		if (nl->node_pxm[a] >= slit->n)
			return false;
		for (u32 b = 0; b < nl->nr_nodes; b++) {
			if (!nl->nodes[b].present)
				continue;
			if (nl->node_pxm[b] >= slit->n)
				return false;
			u8 d = slit->dist[nl->node_pxm[a]][nl->node_pxm[b]];
			if ((a == b) != (d == LOCAL_DISTANCE) || d < LOCAL_DISTANCE)
				return false;
		}
	}
	return true;
}

static void set_distances(struct numa_layout *nl, const struct slit_info *slit)
{
	bool use_slit = slit && nl->from_srat && slit_is_sane(nl, slit);

	if (slit && nl->from_srat && !use_slit)
		pr_warn("numa: SLIT does not fit the nodes' proximity domains (size or values); "
			"using 10/20\n");
	for (u32 a = 0; a < MAX_NODES; a++)
		for (u32 b = 0; b < MAX_NODES; b++) {
			bool known = use_slit && nl->nodes[a].present && nl->nodes[b].present;
			nl->distance[a][b] = known ? slit->dist[nl->node_pxm[a]][nl->node_pxm[b]] :
					     a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
		}
}

static void count_nodes(struct numa_layout *nl)
{
	for (u32 id = 0; id < MAX_NODES; id++)
		if (nl->nodes[id].present)
			nl->nr_nodes = id + 1;
}

/*
 * Do memory ranges of two domains overlap? A byte in both would be on two
 * nodes. Linux (arch/x86/mm/numa.c, numa_cleanup_meminfo(): "node %d
 * [mem ...] overlaps with node %d") refuses such an SRAT and falls back
 * to one node; so does testbed, naming the first overlap.
 */
static bool srat_domains_overlap(const struct srat_info *srat)
{
	for (u32 i = 0; i < srat->nmem; i++)
		for (u32 j = 0; j < i; j++) {
			const struct srat_mem *a = &srat->mem[i], *b = &srat->mem[j];
			if (a->pxm == b->pxm || a->end <= b->base || b->end <= a->base)
				continue;
			pr_warn("numa: SRAT: [mem 0x%llx-0x%llx] is in domains %u and %u; using one node\n",
				MAX(a->base, b->base), MIN(a->end, b->end) - 1, b->pxm, a->pxm);
			return true;
		}
	return false;
}

void numa_build(struct numa_layout *nl, const struct madt_info *madt,
		const struct srat_info *srat, const struct slit_info *slit,
		const struct memmap *map, const char *why_no_srat, u32 bsp_apic_id)
{
	memset(nl, 0, sizeof(*nl));
	add_cpus(nl, madt, bsp_apic_id);
	nl->from_srat = srat && (srat->ncpus || srat->nmem);
	if (nl->from_srat && srat_domains_overlap(srat)) {
		nl->from_srat = false;
		why_no_srat = "the SRAT gives memory to two domains";
	}
	if (nl->from_srat) {
		from_srat(nl, srat);
	} else {
		nl->why_single = why_no_srat ? why_no_srat : "the SRAT is empty";
		for (u32 cpu = 0; cpu < nl->ncpus; cpu++)
			cpumask_set(&nl->nodes[0].cpus, cpu);
		for (u32 i = 0; i < map->n; i++)
			if (map->e[i].type == E820_USABLE)
				node_add_range(&nl->nodes[0], 0, map->e[i].base, map->e[i].end);
		nl->nodes[0].present = true;
	}
	count_nodes(nl);
	place_ram(nl, map);
	count_nodes(nl);        /* orphan RAM may have woken a node up */
	set_distances(nl, slit);
}

void numa_print(const struct numa_layout *nl)
{
	char cpus[256], mem[NUMA_MAX_RANGES * 40 + 8];

	if (!nl->from_srat)
		pr_info("numa: one node: %s\n", nl->why_single);
	for (u32 id = 0; id < nl->nr_nodes; id++) {
		const struct numa_node *nd = &nl->nodes[id];
		size_t used = 0;

		if (!nd->present)
			continue;
		mem[0] = '\0';
		for (u32 i = 0; i < nd->nmem && used < sizeof(mem); i++)
			used += (size_t)snprintf(mem + used, sizeof(mem) - used, "%s0x%llx-0x%llx",
						 i ? "," : "", nd->mem[i].base, nd->mem[i].end);
		printk("numa: node %u cpus %s mem %s\n", id,
		       cpumask_format(&nd->cpus, cpus, sizeof(cpus)), nd->nmem ? mem : "none");
	}
	if (nl->from_srat && nl->nr_nodes > 1) {
		for (u32 a = 0; a < nl->nr_nodes; a++) {
			char row[MAX_NODES * 4 + 1];
			size_t used = 0;
			for (u32 b = 0; b < nl->nr_nodes && used < sizeof(row); b++)
				used += (size_t)snprintf(row + used, sizeof(row) - used, " %3u",
							 nl->distance[a][b]);
			pr_info("numa: distance from node %u:%s\n", a, row);
		}
	}
}
