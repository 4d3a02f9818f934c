// SPDX-License-Identifier: MIT
/*
 * numa_test.c - numa_build() on hand-made MADT/SRAT/SLIT facts: memoryless
 * nodes, CPU-less nodes, split nodes, orphan RAM, renumbering, fallbacks;
 * and the cpumask helpers behind its "0-3,6" lists.
 */
#include <stdlib.h>
#include "host.h"
#include "kstring.h"
#include "ktest.h"
#include "numa.h"

static struct madt_info madt;
static struct srat_info srat;
static struct slit_info slit;
static struct memmap map;
static struct numa_layout nl;

static void reset(void)
{
	memset(&madt, 0, sizeof(madt));
	memset(&srat, 0, sizeof(srat));
	memset(&slit, 0, sizeof(slit));
	memset(&map, 0, sizeof(map));
	host_log_clear();
}

static void add_cpu(u32 apic, bool enabled, u32 pxm)
{
	madt.cpus[madt.ncpus++] = (struct madt_cpu){ .apic_id = apic, .enabled = enabled };
	if (pxm != ~0u)
		srat.cpus[srat.ncpus++] = (struct srat_cpu){ .apic_id = apic, .pxm = pxm };
}

static void add_mem(u64 base, u64 end, u32 pxm)
{
	srat.mem[srat.nmem++] = (struct srat_mem){ .base = base, .end = end, .pxm = pxm };
}

static void add_ram(u64 base, u64 end, u32 type)
{
	map.e[map.n++] = (struct memmap_entry){ base, end, type };
}

#define G (1UL << 30)

/* QEMU's story: node 0 CPUs 0-1 no memory; node 1 CPU 2 0-3G; node 2 CPU 3 4G-7G. */
static void build_story(void)
{
	reset();
	add_cpu(0, true, 0);
	add_cpu(1, true, 0);
	add_cpu(2, true, 1);
	add_cpu(3, true, 2);
	add_mem(0, 0xa0000, 1);
	add_mem(0x100000, 3 * G, 1);
	add_mem(4 * G, 7 * G, 2);
	add_ram(0, 0x9f000, E820_USABLE);
	add_ram(0x100000, 3 * G - 0x20000, E820_USABLE);
	add_ram(3 * G - 0x20000, 3 * G, E820_RESERVED);
	add_ram(4 * G, 7 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
}

static void story_has_a_memoryless_node_0(struct ktest *t)
{
	build_story();
	ASSERT_EQ(t, nl.nr_nodes, 3);
	EXPECT_TRUE(t, nl.from_srat);
	EXPECT_EQ(t, nl.nodes[0].nmem, 0);
	EXPECT_EQ(t, cpumask_weight(&nl.nodes[0].cpus), 2);
	EXPECT_EQ(t, nl.nodes[1].nmem, 2);
	EXPECT_EQ(t, nl.nodes[2].mem[0].base, 4 * G);
	EXPECT_EQ(t, nl.cpu_node[2], 1);
	EXPECT_EQ(t, nl.cpu_node[3], 2);
	EXPECT_EQ(t, nl.nodes[2].ram_bytes, 3 * G);
}

static void story_prints_the_fact_lines(struct ktest *t)
{
	build_story();
	host_log_clear();
	numa_print(&nl);
	EXPECT_TRUE(t, host_log_has("numa: node 0 cpus 0-1 mem none\n"));
	EXPECT_TRUE(t, host_log_has("numa: node 1 cpus 2 mem 0x0-0xa0000,0x100000-0xc0000000\n"));
	EXPECT_TRUE(t, host_log_has("numa: node 2 cpus 3 mem 0x100000000-0x1c0000000\n"));
}

static void addresses_map_to_their_node(struct ktest *t)
{
	build_story();
	EXPECT_EQ(t, numa_node_of_addr(&nl, 0x1000), 1);
	EXPECT_EQ(t, numa_node_of_addr(&nl, 5 * G), 2);
	EXPECT_EQ(t, numa_node_of_addr(&nl, 3 * G + 5), -1);      /* the PCI hole */
}

static void cpu_less_node_is_present(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_mem(0, G, 0);
	add_mem(G, 2 * G, 1);
	add_ram(0, 2 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	ASSERT_EQ(t, nl.nr_nodes, 2);
	EXPECT_TRUE(t, nl.nodes[1].present);
	EXPECT_TRUE(t, cpumask_empty(&nl.nodes[1].cpus));
	numa_print(&nl);
	EXPECT_TRUE(t, host_log_has("numa: node 1 cpus none mem 0x40000000-0x80000000\n"));
}

static void disabled_madt_cpus_are_not_logical_cpus(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_cpu(1, false, 0);
	add_cpu(2, true, 0);
	add_mem(0, G, 0);
	add_ram(0, G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_EQ(t, nl.ncpus, 2);
	EXPECT_EQ(t, nl.cpu_apic_id[1], 2);
}

/* A repeated APIC ID (a firmware bug) is one CPU: started twice it would be reset while it runs. */
static void a_repeated_apic_id_is_one_cpu(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_cpu(1, true, 0);
	add_cpu(1, true, 0);
	add_cpu(0, true, 0);
	add_cpu(2, true, 0);
	add_mem(0, G, 0);
	add_ram(0, G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_EQ(t, nl.ncpus, 3);
	EXPECT_EQ(t, nl.cpu_apic_id[1], 1);
	EXPECT_EQ(t, nl.cpu_apic_id[2], 2);
	EXPECT_EQ(t, host_log_count("lists APIC ID 1 twice"), 1);
	EXPECT_EQ(t, host_log_count("lists APIC ID 0 twice"), 1);
}

static void sparse_apic_ids_keep_madt_order(struct ktest *t)
{
	reset();
	u32 ids[] = { 0, 1, 2, 4, 5, 6 };
	for (u32 i = 0; i < 6; i++)
		add_cpu(ids[i], true, i < 3 ? 0 : 1);
	add_mem(0, G, 0);
	add_mem(G, 2 * G, 1);
	add_ram(0, 2 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	numa_print(&nl);
	EXPECT_TRUE(t, host_log_has("numa: node 0 cpus 0-2 "));
	EXPECT_TRUE(t, host_log_has("numa: node 1 cpus 3-5 "));
	EXPECT_EQ(t, nl.cpu_apic_id[3], 4);
}

static void cpu_missing_from_srat_goes_to_node_0(struct ktest *t)
{
	reset();
	add_cpu(0, true, 1);
	add_cpu(7, true, ~0u);
	add_mem(0, G, 1);
	add_ram(0, G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_EQ(t, nl.cpu_node[1], 0);
	EXPECT_TRUE(t, host_log_has("APIC ID 7) is in no SRAT entry"));
}

static void ram_outside_srat_joins_the_nearest_node(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_cpu(1, true, 1);
	add_mem(0, G, 0);
	add_mem(4 * G, 5 * G, 1);
	add_ram(0, G, E820_USABLE);
	add_ram(4 * G, 6 * G, E820_USABLE);        /* 5G-6G: no SRAT range */
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_EQ(t, numa_node_of_addr(&nl, 5 * G + 4096), 1);
	EXPECT_EQ(t, nl.nodes[1].ram_bytes, 2 * G);
	EXPECT_TRUE(t, host_log_has("[mem 0x140000000-0x17fffffff] is in no SRAT range; giving it to node 1"));
}

/*
 * Memory two domains both claim would be on two nodes: the SRAT is not
 * believed and there is one node, as in Linux (found by the numa_build
 * fuzz oracle: every usable byte on exactly one node).
 */
static void srat_ranges_of_two_domains_overlapping_mean_one_node(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_cpu(1, true, 1);
	add_mem(0, 2 * G, 0);
	add_mem(G, 3 * G, 1);                      /* 1G-2G in both */
	add_ram(0, 3 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_FALSE(t, nl.from_srat);
	ASSERT_EQ(t, nl.nr_nodes, 1);
	EXPECT_EQ(t, nl.nodes[0].ram_bytes, 3 * G);
	EXPECT_EQ(t, numa_node_of_addr(&nl, G + 4096), 0);
	EXPECT_TRUE(t, host_log_has("numa: SRAT: [mem 0x40000000-0x7fffffff] is in domains 0 and 1; "
				    "using one node\n"));
}

/* A range that joins two of its node's ranges makes them one (numa_build fuzz oracle). */
static void a_range_bridging_two_of_a_node_merges_them(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_mem(0, G, 0);
	add_mem(2 * G, 3 * G, 0);
	add_mem(G / 2, 5 * G / 2, 0);
	add_ram(0, 3 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	ASSERT_EQ(t, nl.nodes[0].nmem, 1);
	EXPECT_EQ(t, nl.nodes[0].mem[0].base, 0);
	EXPECT_EQ(t, nl.nodes[0].mem[0].end, 3 * G);
}

/*
 * More pieces of RAM outside the SRAT than NUMA_MAX_ORPHANS: each is still
 * on the node its bytes were counted for (numa_build fuzz oracle).
 */
static void ram_outside_srat_past_the_orphan_limit_keeps_its_node(struct ktest *t)
{
	const u64 M = 1UL << 20;

	reset();
	add_cpu(0, true, 0);
	add_cpu(1, true, 1);
	for (u64 i = 0; i <= NUMA_MAX_ORPHANS; i++)
		add_mem((2 * i + 1) * M, (2 * i + 2) * M, 0);
	add_mem(G, 2 * G, 1);
	add_ram(0, 2 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_EQ(t, nl.norphans, NUMA_MAX_ORPHANS);
	for (u64 i = 0; i <= NUMA_MAX_ORPHANS; i++)
		EXPECT_EQ(t, numa_node_of_addr(&nl, 2 * i * M), 0);
	EXPECT_EQ(t, numa_node_of_addr(&nl, G - 4096), 0);      /* the last piece, a tie: node 0 */
	EXPECT_EQ(t, nl.nodes[0].ram_bytes + nl.nodes[1].ram_bytes, 2 * G);
}

static void no_srat_means_one_node_with_everything(struct ktest *t)
{
	reset();
	add_cpu(0, true, ~0u);
	add_cpu(1, true, ~0u);
	add_ram(0, 0x9f000, E820_USABLE);
	add_ram(0x100000, G, E820_USABLE);
	numa_build(&nl, &madt, NULL, NULL, &map, "no SRAT", 0);
	ASSERT_EQ(t, nl.nr_nodes, 1);
	EXPECT_FALSE(t, nl.from_srat);
	numa_print(&nl);
	EXPECT_TRUE(t, host_log_has("numa: one node: no SRAT\n"));
	EXPECT_TRUE(t, host_log_has("numa: node 0 cpus 0-1 mem 0x0-0x9f000,0x100000-0x40000000\n"));
}

static void no_madt_means_one_cpu(struct ktest *t)
{
	reset();
	add_ram(0x100000, G, E820_USABLE);
	numa_build(&nl, NULL, NULL, NULL, &map, "no ACPI", 0);
	EXPECT_EQ(t, nl.ncpus, 1);
	EXPECT_TRUE(t, cpumask_test(&nl.nodes[0].cpus, 0));
}

static void large_proximity_domains_are_renumbered(struct ktest *t)
{
	reset();
	add_cpu(0, true, 1000);
	add_cpu(1, true, 77);
	add_mem(0, G, 77);
	add_mem(G, 2 * G, 1000);
	add_ram(0, 2 * G, E820_USABLE);
	numa_build(&nl, &madt, &srat, NULL, &map, NULL, 0);
	EXPECT_EQ(t, nl.nr_nodes, 2);
	EXPECT_EQ(t, nl.cpu_node[0], 0);        /* 1000 seen first */
	EXPECT_EQ(t, nl.cpu_node[1], 1);
	EXPECT_EQ(t, numa_node_of_addr(&nl, 0), 1);
}

static void slit_distances_are_used(struct ktest *t)
{
	build_story();
	slit.n = 3;
	for (u32 a = 0; a < 3; a++)
		for (u32 b = 0; b < 3; b++)
			slit.dist[a][b] = a == b ? 10 : (u8)(15 + a + b);
	numa_build(&nl, &madt, &srat, &slit, &map, NULL, 0);
	EXPECT_EQ(t, nl.distance[0][2], 17);
	EXPECT_EQ(t, nl.distance[1][1], 10);
}

static void bad_slit_falls_back_to_10_20(struct ktest *t)
{
	build_story();
	slit.n = 3;
	for (u32 a = 0; a < 3; a++)
		for (u32 b = 0; b < 3; b++)
			slit.dist[a][b] = 5;    /* below 10: nonsense */
	numa_build(&nl, &madt, &srat, &slit, &map, NULL, 0);
	EXPECT_EQ(t, nl.distance[0][2], 20);
	EXPECT_TRUE(t, host_log_has("SLIT does not fit"));
}

/*
 * The SLIT's localities are proximity domains. Domains 1000 and 77 become
 * nodes 0 and 1; a SLIT of two localities (domains 0 and 1) says nothing
 * about them, and its [0][1] must not be taken for node 0 to node 1.
 */
static void slit_is_read_by_proximity_domain_not_node(struct ktest *t)
{
	reset();
	add_cpu(0, true, 1000);
	add_cpu(1, true, 77);
	add_mem(0, G, 77);
	add_mem(G, 2 * G, 1000);
	add_ram(0, 2 * G, E820_USABLE);
	slit.n = 2;
	slit.dist[0][0] = slit.dist[1][1] = 10;
	slit.dist[0][1] = slit.dist[1][0] = 33;
	numa_build(&nl, &madt, &srat, &slit, &map, NULL, 0);
	EXPECT_EQ(t, nl.node_pxm[0], 1000);
	EXPECT_EQ(t, nl.node_pxm[1], 77);
	EXPECT_EQ(t, nl.distance[0][1], 20);
	EXPECT_TRUE(t, host_log_has("SLIT does not fit"));
}

/* Nodes 0 and 2 (no domain 1): a SLIT that is nonsense only for domain 1 is still used. */
static void slit_rows_of_absent_domains_do_not_count(struct ktest *t)
{
	reset();
	add_cpu(0, true, 0);
	add_cpu(1, true, 2);
	add_mem(0, G, 0);
	add_mem(G, 2 * G, 2);
	add_ram(0, 2 * G, E820_USABLE);
	slit.n = 3;
	for (u32 a = 0; a < 3; a++)
		for (u32 b = 0; b < 3; b++)
			slit.dist[a][b] = a == 1 || b == 1 ? 0 : a == b ? 10 : 25;
	numa_build(&nl, &madt, &srat, &slit, &map, NULL, 0);
	EXPECT_EQ(t, nl.distance[0][2], 25);
	EXPECT_EQ(t, nl.distance[2][2], 10);
}

static void cpumask_format_and_parse(struct ktest *t)
{
	struct cpumask m = { { 0 } };
	char buf[64];
	const char *why = NULL;

	EXPECT_STREQ(t, cpumask_format(&m, buf, sizeof(buf)), "none");
	ASSERT_TRUE(t, cpumask_parse("0-3,6,8-9", 16, &m, &why));
	EXPECT_STREQ(t, cpumask_format(&m, buf, sizeof(buf)), "0-3,6,8-9");
	EXPECT_EQ(t, cpumask_weight(&m), 7);
	ASSERT_TRUE(t, cpumask_parse("all", 4, &m, &why));
	EXPECT_STREQ(t, cpumask_format(&m, buf, sizeof(buf)), "0-3");
	EXPECT_FALSE(t, cpumask_parse("4", 4, &m, &why));
	EXPECT_STREQ(t, why, "no such CPU");
	EXPECT_FALSE(t, cpumask_parse("3-1", 4, &m, &why));
	EXPECT_FALSE(t, cpumask_parse("1,", 4, &m, &why));
	EXPECT_FALSE(t, cpumask_parse("x", 4, &m, &why));
	EXPECT_FALSE(t, cpumask_parse("", 4, &m, &why));
	EXPECT_STREQ(t, cpumask_format(&m, buf, sizeof(buf)), "0-3");   /* failures change nothing */
}

static void cpumask_format_truncates_safely(struct ktest *t)
{
	struct cpumask m = { { 0 } };
	char buf[6];

	for (u32 cpu = 0; cpu < MAX_CPUS; cpu += 2)
		cpumask_set(&m, cpu);
	cpumask_format(&m, buf, sizeof(buf));
	EXPECT_EQ(t, strlen(buf), 5);
	EXPECT_EQ(t, strncmp(buf, "0,2,4", 5), 0);
}

static const struct ktest_case numa_cases[] = {
	KTEST(story_has_a_memoryless_node_0),
	KTEST(story_prints_the_fact_lines),
	KTEST(addresses_map_to_their_node),
	KTEST(cpu_less_node_is_present),
	KTEST(disabled_madt_cpus_are_not_logical_cpus),
	KTEST(a_repeated_apic_id_is_one_cpu),
	KTEST(sparse_apic_ids_keep_madt_order),
	KTEST(cpu_missing_from_srat_goes_to_node_0),
	KTEST(ram_outside_srat_joins_the_nearest_node),
	KTEST(srat_ranges_of_two_domains_overlapping_mean_one_node),
	KTEST(a_range_bridging_two_of_a_node_merges_them),
	KTEST(ram_outside_srat_past_the_orphan_limit_keeps_its_node),
	KTEST(no_srat_means_one_node_with_everything),
	KTEST(no_madt_means_one_cpu),
	KTEST(large_proximity_domains_are_renumbered),
	KTEST(slit_is_read_by_proximity_domain_not_node),
	KTEST(slit_rows_of_absent_domains_do_not_count),
	KTEST(slit_distances_are_used),
	KTEST(bad_slit_falls_back_to_10_20),
	KTEST(cpumask_format_and_parse),
	KTEST(cpumask_format_truncates_safely),
	{},
};
KTEST_SUITE(numa, numa_cases);
