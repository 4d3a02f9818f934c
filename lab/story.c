// SPDX-License-Identifier: MIT
/*
 * story.c - the report make run prints (see story.h).
 *
 * Three acts, each measured into struct story_result, then drawn from it:
 *   1. swiotlb: swiotlb_place_what_if() for every policy;
 *   2. RCU: storm_run_in_mode() for every mode: the user-mode storm on one
 *      CPU with the others idle, then against a hog on another CPU, then
 *      the storm as a kernel thread, alone;
 *   3. DMA: a buffer above 4 GiB written to the disk and read back, and
 *      sent through edu, with the device's 32-bit mask.
 * The storms stop at the first ENFILE, like Serge Belyshev's loop; each
 * prints its own "storm:" line as it ends, before the report.
 */
#include "story.h"
#include "cmdline.h"
#include "dma.h"
#include "edu.h"
#include "format.h"
#include "kstring.h"
#include "numa.h"
#include "page_alloc.h"
#include "pattern.h"
#include "percpu.h"
#include "printk.h"
#include "results.h"
#include "time.h"
#include "vfs.h"
#include "virtio_blk.h"
#include "vm.h"

#define DMA_BYTES   (64 * 1024)         /* act 3's buffers: order 4 */
#define DMA_ORDER   4
#define BLK_SEED    7
#define EDU_SEED    9

static int story_off;
PARAM_CHOICE("story", story_off, "on", "off");

/* --- act 1: the swiotlb pool, policy by policy ---------------------------------- */

static void measure_swiotlb(struct story_result *res)
{
	for (enum swiotlb_policy policy = 0; policy < SWIOTLB_NR_POLICIES; policy++)
		res->pool_placed[policy] = swiotlb_place_what_if(policy, swiotlb_size(),
								 &res->pools[policy]);
	res->live_pool = swiotlb_pool_range(&res->live_base, &res->live_end, &res->live_node);
}

/* --- act 2: the storm under every mode ------------------------------------------ */

static enum story_verdict judge(const struct storm_result *alone,
				const struct storm_result *with_hog, bool hog_ran)
{
	bool survives_alone = alone->enfile_at < 0;

	if (!hog_ran)
		return survives_alone ? STORY_SURVIVES_ALONE : STORY_HITS_ENFILE;
	bool survives_hog = with_hog->enfile_at < 0;
	if (survives_alone)
		return survives_hog ? STORY_SURVIVES : STORY_LOSES_TO_THE_HOG;
	return survives_hog ? STORY_LOSES_ALONE_ONLY : STORY_HITS_ENFILE;
}

/* The hog needs a second online CPU; the storm then runs on the one below it. */
static void plan_storms(struct story_result *res)
{
	res->storm_iterations = 4 * vfs_max_files();
	res->hog_storms_ran = nr_cpus >= 2 && percpu[nr_cpus - 2].online;
	res->hog_cpu = nr_cpus - 1;
	res->storm_cpu = res->hog_storms_ran ? nr_cpus - 2 : nr_cpus - 1;
}

static void measure_storms(struct story_result *res)
{
	struct cpumask cpus = { { 0 } }, no_hog = { { 0 } }, hog = { { 0 } };

	cpumask_set(&cpus, res->storm_cpu);
	cpumask_set(&hog, res->hog_cpu);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		storm_run_in_mode(mode, STORM_USER, res->storm_iterations, &cpus, &no_hog,
				  &res->alone[mode]);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES && res->hog_storms_ran; mode++)
		storm_run_in_mode(mode, STORM_USER, res->storm_iterations, &cpus, &hog,
				  &res->with_hog[mode]);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		storm_run_in_mode(mode, STORM_KERNEL, res->storm_iterations, &cpus, &no_hog,
				  &res->in_kernel[mode]);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		res->verdict[mode] = judge(&res->alone[mode], &res->with_hog[mode],
					   res->hog_storms_ran);
}

/* --- act 3: DMA from above 4 GiB -------------------------------------------------- */

/* Write out to the disk's first sectors, read them back into in. */
static void measure_blk(struct virtio_blk *disk, u8 *out, u8 *in, struct story_dma *result)
{
	struct virtio_blk_stats before, after;

	result->present = true;
	pattern_fill(out, DMA_BYTES, BLK_SEED);
	memset(in, 0, DMA_BYTES);
	virtio_blk_get_stats(disk, &before);
	int err = virtio_blk_write(disk, 0, out, DMA_BYTES);
	if (!err)
		err = virtio_blk_read(disk, 0, in, DMA_BYTES);
	virtio_blk_get_stats(disk, &after);
	result->refused = err != 0;
	result->intact = !err && pattern_ok(in, DMA_BYTES, BLK_SEED);
	result->bounced = after.bounced_bytes - before.bounced_bytes;
}

/* Send out to edu's buffer and fetch it back into in, each through the DMA API. */
static void measure_edu(struct edu *edu, u8 *out, u8 *in, struct story_dma *result)
{
	struct device *dev = &edu->pci->dma;

	result->present = true;
	pattern_fill(out, EDU_DMA_MAX, EDU_SEED);
	memset(in, 0, EDU_DMA_MAX);
	dma_addr_t to_device = dma_map_single(dev, out, EDU_DMA_MAX, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, to_device)) {
		result->refused = true;
		return;
	}
	result->dma_addr = to_device;
	bool ok = edu_dma(edu, to_device, 0, EDU_DMA_MAX, false);
	dma_unmap_single(dev, to_device, EDU_DMA_MAX, DMA_TO_DEVICE);
	dma_addr_t from_device = dma_map_single(dev, in, EDU_DMA_MAX, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, from_device))
		return;
	ok = ok && edu_dma(edu, from_device, 0, EDU_DMA_MAX, true);
	dma_unmap_single(dev, from_device, EDU_DMA_MAX, DMA_FROM_DEVICE);
	result->intact = ok && pattern_ok(in, EDU_DMA_MAX, EDU_SEED);
}

static void measure_dma(struct story_result *res)
{
	/* Above 4 GiB, or NULL: without such memory there is nothing to bounce. */
	struct page *out = alloc_pages(DMA_ORDER, NODE_ANY, ALLOC_HIGH);
	struct page *in = alloc_pages(DMA_ORDER, NODE_ANY, ALLOC_HIGH);
	struct virtio_blk *disk = virtio_blk_get();
	struct edu *edu = edu_get();

	res->high_memory = out && in;
	if (res->high_memory) {
		res->out_phys = page_to_phys(out);
		res->in_phys = page_to_phys(in);
		if (disk)
			measure_blk(disk, page_address(out), page_address(in), &res->blk);
		if (edu)
			measure_edu(edu, page_address(out), page_address(in), &res->edu);
	}
	if (out)
		free_pages(out, DMA_ORDER);
	if (in)
		free_pages(in, DMA_ORDER);
}

void story_measure(struct story_result *res)
{
	*res = (struct story_result){ 0 };
	measure_swiotlb(res);
	plan_storms(res);
	measure_storms(res);
	measure_dma(res);
}

/* --- the report ------------------------------------------------------------------- */

static void rule(void)
{
	printk("------------------------------------------------------------------------------\n");
}

static void print_machine(void)
{
	char cpus[64];

	printk("The machine: %u CPUs in %u NUMA nodes\n", nr_cpus_online, numa.nr_nodes);
	for (u32 id = 0; id < numa.nr_nodes; id++) {
		const struct numa_node *node = &numa.nodes[id];
		u64 low = 0, high = 0;
		for (u32 i = 0; i < node->nmem; i++) {
			u64 base = node->mem[i].base, end = node->mem[i].end;
			low += base < DMA32_LIMIT ? MIN(end, DMA32_LIMIT) - base : 0;
			high += end > DMA32_LIMIT ? end - MAX(base, DMA32_LIMIT) : 0;
		}
		printk("  node %u: cpus %-6s  below 4 GiB %5llu MiB  above 4 GiB %5llu MiB\n", id,
		       cpumask_format(&node->cpus, cpus, sizeof(cpus)), low >> 20, high >> 20);
	}
}

static void print_swiotlb(const struct story_result *res)
{
	enum swiotlb_policy live = swiotlb_policy();

	rule();
	printk("Act 1. The swiotlb bounce pool (%llu MiB), policy by policy, on this machine\n",
	       swiotlb_size() >> 20);
	printk("  policy  where                                 node  a 32-bit device can reach it\n");
	for (enum swiotlb_policy policy = 0; policy < SWIOTLB_NR_POLICIES; policy++) {
		const struct swiotlb_placement *pool = &res->pools[policy];
		bool placed = res->pool_placed[policy];
		char where[48], node[8] = "-";

		if (placed) {
			snprintf(node, sizeof(node), "%d", pool->node);
			snprintf(where, sizeof(where), "0x%llx-0x%llx", pool->base,
				 pool->base + pool->size);
		} else {
			snprintf(where, sizeof(where), "failed: %s", pool->failed);
		}
		printk("  %-7s %-37s %4s  %s%s\n", swiotlb_policies[policy].name, where, node,
		       !placed ? "no pool" :
		       pool->base + pool->size <= DMA32_LIMIT ? "yes" : "NO: above 4 GiB",
		       policy == live ? "   <- this boot" : "");
	}
	if (res->live_pool)
		printk("  This boot's pool (swiotlb=%s): 0x%llx-0x%llx on node %d.\n",
		       swiotlb_policies[live].name, res->live_base, res->live_end, res->live_node);
	else
		printk("  This boot has no pool (swiotlb=%s).\n", swiotlb_policies[live].name);
}

static const char *const verdict_text[] = {
	[STORY_SURVIVES] = "survives, alone and against a hog",
	[STORY_SURVIVES_ALONE] = "survives alone (no second CPU here for a hog)",
	[STORY_LOSES_TO_THE_HOG] = "survives alone, hits ENFILE against a hog",
	[STORY_LOSES_ALONE_ONLY] = "hits ENFILE alone (!), survives the hog",
	[STORY_HITS_ENFILE] = "hits ENFILE alone: the 2005 bug",
};

static void print_storm_row(const struct storm_result *storm, bool hog)
{
	char enfile[16] = "-";

	if (storm->enfile_at >= 0)
		snprintf(enfile, sizeof(enfile), "%lld", storm->enfile_at);
	printk("  %-8s  %-6s  %-4s  %10llu  %9s  %13llu  %9llu  %4llu  %8llu\n",
	       rcu_modes[storm->mode].name, storm_where_names[storm->where], hog ? "yes" : "no",
	       storm->iterations, enfile,
	       storm->peak_nr_files, storm->peak_qlen, storm->gps,
	       storm->ms ? storm->iterations / storm->ms : storm->iterations);
}

/* The kernel thread's verdict: it has no hog to lose to, only its own loop. */
static void print_kernel_verdict(const struct storm_result *storm)
{
	printk("  %-8s  %s\n", rcu_modes[storm->mode].name,
	       storm->enfile_at < 0 ? "survives as a kernel thread" :
	       storm->gps == 0 ? "hits ENFILE as a kernel thread: no grace period ended" :
	       "hits ENFILE as a kernel thread, though grace periods ended");
}

static void print_storms(const struct story_result *res)
{
	static const char header[] =
		"  mode      where   hog   iterations  ENFILE at  peak nr_files  peak qlen   GPs  k iter/s\n";

	rule();
	printk("Act 2. The open/close storm: %llu iterations on CPU %u, max_files %llu, HZ %llu\n",
	       res->storm_iterations, res->storm_cpu, vfs_max_files(), hz);
	if (res->hog_storms_ran)
		printk("  Serge Belyshev's program in user mode, alone, then against a kernel hog on\n"
		       "  CPU %u (a thread that switches only when told to):\n", res->hog_cpu);
	else
		printk("  Serge Belyshev's program in user mode, alone (no CPU left for a hog):\n");
	printk(header);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		print_storm_row(&res->alone[mode], false);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES && res->hog_storms_ran; mode++)
		print_storm_row(&res->with_hog[mode], true);
	printk("  Each mode's verdict on the program, from its rows above:\n");
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		printk("  %-8s  %s\n", rcu_modes[mode].name, verdict_text[res->verdict[mode]]);
	printk("  The article's scenario: the same loop as a kernel thread, alone. It never\n"
	       "  schedules on its own: count and every forcing make it switch above %llu\n"
	       "  queued callbacks, and fqs also passes a quiescent state at cond_resched():\n",
	       rcu_qhimark_value());
	printk(header);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		print_storm_row(&res->in_kernel[mode], false);
	printk("  Each mode's verdict on the kernel thread:\n");
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		print_kernel_verdict(&res->in_kernel[mode]);
}

static const char *outcome(const struct story_dma *dma, const char *refused)
{
	return dma->refused ? refused : dma->intact ? "intact" : "CORRUPTED";
}

static void print_dma(const struct story_result *res)
{
	rule();
	printk("Act 3. DMA from memory above 4 GiB by devices limited to 32 bits\n");
	if (!res->high_memory) {
		printk("  This machine has no free memory above 4 GiB: nothing needs a bounce.\n");
		return;
	}
	printk("  buffers at 0x%llx and 0x%llx\n", res->out_phys, res->in_phys);
	if (res->blk.present)
		printk("  virtio-blk: 64 KiB written and read back: %s, %llu bytes bounced\n",
		       outcome(&res->blk, "REFUSED (no pool it can reach)"), res->blk.bounced);
	else
		printk("  virtio-blk: no device (topology line \"disk:\")\n");
	if (!res->edu.present)
		printk("  edu: no device (-device edu,dma_mask=0xffffffff)\n");
	else if (res->edu.refused)
		printk("  edu: refused: no bounce buffer it can reach (swiotlb=%s)\n",
		       swiotlb_policies[swiotlb_policy()].name);
	else
		printk("  edu: %u bytes to the device and back through 0x%llx: %s\n", EDU_DMA_MAX,
		       res->edu.dma_addr, outcome(&res->edu, "refused"));
}

void story_print(const struct story_result *res)
{
	rule();
	printk("The 2.6.14 story, October 2005: two bugs, replayed on this machine\n");
	print_machine();
	print_swiotlb(res);
	print_storms(res);
	print_dma(res);
	rule();
	printk("See docs/story.md. Try: make run ARGS=\"swiotlb=rc4\", then the shell's help.\n");
}

/* One word per verdict, for the results' QR code. */
static const char *const verdict_word[] = {
	[STORY_SURVIVES] = "survives",
	[STORY_SURVIVES_ALONE] = "survives-alone",
	[STORY_LOSES_TO_THE_HOG] = "enfile-with-hog",
	[STORY_LOSES_ALONE_ONLY] = "enfile-alone-only",
	[STORY_HITS_ENFILE] = "enfile",
};

static const char *dma_word(const struct story_dma *dma)
{
	return !dma->present ? "absent" : dma->refused ? "refused" :
	       dma->intact ? "intact" : "CORRUPTED";
}

/* The verdicts, compact, for the results a user takes home (results.h). */
static void story_results(const struct story_result *res)
{
	enum swiotlb_policy live = swiotlb_policy();

	results_begin("story");
	if (res->live_pool)
		results_add("swiotlb=%s pool=0x%llx-0x%llx node=%d dma32=%s",
			    swiotlb_policies[live].name, res->live_base, res->live_end,
			    res->live_node, res->live_end <= DMA32_LIMIT ? "yes" : "NO");
	else
		results_add("swiotlb=%s pool=none", swiotlb_policies[live].name);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		results_add("rcu.mode=%s %s", rcu_modes[mode].name, verdict_word[res->verdict[mode]]);
	if (res->high_memory)
		results_add("dma-high: virtio-blk=%s edu=%s", dma_word(&res->blk), dma_word(&res->edu));
	else
		results_add("dma-high: no memory above 4 GiB");
	results_show();
}

void story_run(struct story_result *res)
{
	printk("story: replaying both bugs; the storms' own lines come first, then the report\n");
	story_measure(res);
	story_print(res);
	story_results(res);
}

void story_boot(void)
{
	static struct story_result res;         /* 18 storm results: not on the stack */

	if (!story_off)
		story_run(&res);
}

void story_swiotlb_table(void)
{
	static struct story_result res;

	measure_swiotlb(&res);
	print_swiotlb(&res);
}
