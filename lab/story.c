/*
 * story.c - the report make run prints (see story.h).
 *
 * Three acts, each a table and a verdict:
 *   1. swiotlb: swiotlb_place_what_if() for every policy;
 *   2. RCU: storm_run() for rc4, batch10k, count, fqs, on one CPU with the
 *      others idle, then against a hog on another CPU;
 *   3. DMA: a buffer above 4 GiB written to the disk and read back, and
 *      sent through edu, with the device's 32-bit mask.
 * The storms stop at the first ENFILE, like Serge Belyshev's loop; each
 * also prints the contract's "storm:" line.
 */
#include "story.h"
#include "cmdline.h"
#include "dma.h"
#include "edu.h"
#include "format.h"
#include "kstring.h"
#include "numa.h"
#include "page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "rcu.h"
#include "storm.h"
#include "swiotlb.h"
#include "vfs.h"
#include "virtio_blk.h"
#include "vm.h"

static int story_off;
PARAM_CHOICE("story", story_off, "on", "off");

static void rule(void)
{
	printk("------------------------------------------------------------------------------\n");
}

static void act_topology(void)
{
	char cpus[64];

	printk("The machine: %u CPUs in %u NUMA nodes\n", nr_cpus_online, numa.nr_nodes);
	for (u32 n = 0; n < numa.nr_nodes; n++) {
		const struct numa_node *node = &numa.nodes[n];
		u64 low = 0, high = 0;
		for (u32 i = 0; i < node->nmem; i++) {
			u64 b = node->mem[i].base, e = node->mem[i].end;
			low += b < DMA32_LIMIT ? MIN(e, DMA32_LIMIT) - b : 0;
			high += e > DMA32_LIMIT ? e - MAX(b, DMA32_LIMIT) : 0;
		}
		printk("  node %u: cpus %-6s  below 4 GiB %5llu MiB  above 4 GiB %5llu MiB\n", n,
		       cpumask_format(&node->cpus, cpus, sizeof(cpus)), (low >> 20), (high >> 20));
	}
}

void story_swiotlb_table(void)
{
	u64 base, end;
	int node;
	bool live = swiotlb_pool_range(&base, &end, &node);

	rule();
	printk("Act 1. The swiotlb bounce pool (%llu MiB), policy by policy, on this machine\n",
	       (swiotlb_size() >> 20));
	printk("  policy  where                                 node  a 32-bit device can reach it\n");
	for (int p = SWIOTLB_SCAN; p <= SWIOTLB_OFF; p++) {
		struct swiotlb_placement w;
		char where[48], nodename[8] = "-";
		bool ok = swiotlb_place_what_if((enum swiotlb_policy)p, swiotlb_size(), &w);

		if (ok)
			snprintf(nodename, sizeof(nodename), "%d", w.node);
		if (ok)
			snprintf(where, sizeof(where), "0x%llx-0x%llx", w.base, (w.base + w.size));
		else
			snprintf(where, sizeof(where), "failed: %s", w.failed);
		printk("  %-7s %-37s %4s  %s%s\n", swiotlb_policy_name((enum swiotlb_policy)p), where,
		       nodename,
		       !ok ? "no pool" : w.base + w.size <= DMA32_LIMIT ? "yes" : "NO: the 2.6.14-rc4 bug",
		       p == (int)swiotlb_policy() ? "   <- this boot" : "");
	}
	if (live)
		printk("  This boot's pool (swiotlb=%s): 0x%llx-0x%llx on node %d.\n",
		       swiotlb_policy_name(swiotlb_policy()), base, end, node);
	else
		printk("  This boot has no pool (swiotlb=%s).\n", swiotlb_policy_name(swiotlb_policy()));
}

struct storm_row {
	const char *mode;
	bool hog;
	struct storm_result r;
};

static void act_rcu(struct story_result *res)
{
	static const char *const modes[] = { "rc4", "batch10k", "count", "fqs" };
	static struct storm_row rows[8];
	const char *before = rcu_mode_name();
	u32 n = 0, storm_cpu = nr_cpus - 1;
	bool hogs = nr_cpus >= 2 && percpu[nr_cpus - 2].online;

	rule();
	printk("Act 2. The open/close storm: %llu iterations on CPU %u, max_files %llu\n",
	       (4 * vfs_max_files()), hogs ? nr_cpus - 2 : storm_cpu, vfs_max_files());
	for (u32 h = 0; h < (hogs ? 2u : 1u); h++) {
		for (u32 m = 0; m < ARRAY_SIZE(modes); m++) {
			struct cpumask cpus = { { 0 } }, hog = { { 0 } };
			struct storm_row *row = &rows[n++];

			rcu_barrier();
			rcu_set_mode(modes[m]);
			cpumask_set(&cpus, hogs ? nr_cpus - 2 : storm_cpu);
			if (h)
				cpumask_set(&hog, nr_cpus - 1);
			row->mode = modes[m];
			row->hog = h;
			storm_run(4 * vfs_max_files(), &cpus, &hog, &row->r);
		}
	}
	rcu_set_mode(before);
	res->storms_ran = true;
	res->hog_storms_ran = hogs;
	for (u32 i = 0; i < n; i++) {
		bool *col = rows[i].hog ? res->enfile_hog : res->enfile_alone;
		col[i % ARRAY_SIZE(modes)] = rows[i].r.enfile_at >= 0;
	}
	printk("  mode      hog   iterations  ENFILE at  peak nr_files  peak qlen   GPs  k iter/s\n");
	for (u32 i = 0; i < n; i++) {
		const struct storm_result *r = &rows[i].r;
		char enfile[16];
		if (r->enfile_at < 0)
			snprintf(enfile, sizeof(enfile), "-");
		else
			snprintf(enfile, sizeof(enfile), "%lld", r->enfile_at);
		printk("  %-8s  %-4s  %10llu  %9s  %13llu  %9llu  %4llu  %8llu\n", rows[i].mode,
		       rows[i].hog ? "yes" : "no", r->iterations, enfile,
		       r->peak_nr_files, r->peak_qlen, r->gps,
		       (r->ms ? r->iterations / r->ms : r->iterations));
	}
	for (u32 m = 0; m < ARRAY_SIZE(modes); m++) {
		bool alone = rows[m].r.enfile_at < 0;
		bool with_hog = hogs ? rows[ARRAY_SIZE(modes) + m].r.enfile_at < 0 : alone;
		printk("  %-8s  %s\n", modes[m],
		       alone && with_hog ? "survives, alone and against a hog" :
		       alone ? "survives alone, hits ENFILE against a hog" :
		       with_hog ? "hits ENFILE alone (!), survives the hog" : "hits ENFILE: the 2005 bug");
	}
}

static bool pattern_ok(const u8 *p, u32 n, u8 seed)
{
	for (u32 i = 0; i < n; i++)
		if (p[i] != (u8)(seed + i * 3))
			return false;
	return true;
}

static void fill(u8 *p, u32 n, u8 seed)
{
	for (u32 i = 0; i < n; i++)
		p[i] = (u8)(seed + i * 3);
}

static void act_dma(struct story_result *res)
{
	/* 64 KiB each above 4 GiB, or NULL: without such memory there is nothing to bounce. */
	struct page *out = alloc_pages(4, NODE_ANY, ALLOC_HIGH), *in = alloc_pages(4, NODE_ANY, ALLOC_HIGH);
	struct virtio_blk *vb = virtio_blk_get();
	struct edu *e = edu_get();

	rule();
	printk("Act 3. DMA from memory above 4 GiB by devices limited to 32 bits\n");
	if (!out || !in) {
		printk("  This machine has no free memory above 4 GiB: nothing needs a bounce.\n");
		goto out;
	}
	printk("  buffers at 0x%llx and 0x%llx\n", page_to_phys(out), page_to_phys(in));
	if (vb) {
		struct virtio_blk_stats a, b;
		u8 *o = page_address(out), *i = page_address(in);
		fill(o, 65536, 7);
		memset(i, 0, 65536);
		virtio_blk_get_stats(vb, &a);
		int w = virtio_blk_write(vb, 0, o, 65536), r = w ? w : virtio_blk_read(vb, 0, i, 65536);
		virtio_blk_get_stats(vb, &b);
		res->dma_ran = true;
		res->blk_intact = !w && !r && pattern_ok(i, 65536, 7);
		res->blk_bounced = b.bounced_bytes - a.bounced_bytes;
		printk("  virtio-blk: 64 KiB written and read back: %s, %llu bytes bounced\n",
		       w || r ? "REFUSED (no pool it can reach)" :
		       pattern_ok(i, 65536, 7) ? "intact" : "CORRUPTED",
		       (b.bounced_bytes - a.bounced_bytes));
	} else {
		printk("  virtio-blk: no device (topology line \"disk:\")\n");
	}
	if (e) {
		struct device *dev = &e->pci->dma;
		u8 *o = page_address(out), *i = page_address(in);
		fill(o, EDU_DMA_MAX, 9);
		memset(i, 0, EDU_DMA_MAX);
		dma_addr_t a = dma_map_single(dev, o, EDU_DMA_MAX, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, a)) {
			printk("  edu: refused: no bounce buffer it can reach (swiotlb=%s)\n",
			       swiotlb_policy_name(swiotlb_policy()));
		} else {
			bool ok = edu_dma(e, a, 0, EDU_DMA_MAX, false);
			dma_unmap_single(dev, a, EDU_DMA_MAX, DMA_TO_DEVICE);
			dma_addr_t b = dma_map_single(dev, i, EDU_DMA_MAX, DMA_FROM_DEVICE);
			ok = ok && !dma_mapping_error(dev, b) && edu_dma(e, b, 0, EDU_DMA_MAX, true);
			if (!dma_mapping_error(dev, b))
				dma_unmap_single(dev, b, EDU_DMA_MAX, DMA_FROM_DEVICE);
			res->dma_ran = true;
			res->edu_intact = ok && pattern_ok(i, EDU_DMA_MAX, 9);
			printk("  edu: %u bytes to the device and back through 0x%llx: %s\n", EDU_DMA_MAX,
			       a, ok && pattern_ok(i, EDU_DMA_MAX, 9) ? "intact" : "CORRUPTED");
		}
	} else {
		printk("  edu: no device (-device edu,dma_mask=0xffffffff)\n");
	}
out:
	if (out)
		free_pages(out, 4);
	if (in)
		free_pages(in, 4);
}

void story_run(struct story_result *out)
{
	struct story_result res = { 0 };

	rule();
	printk("The 2.6.14 story, October 2005: two bugs, replayed on this machine\n");
	act_topology();
	story_swiotlb_table();
	act_rcu(&res);
	act_dma(&res);
	rule();
	printk("See docs/story.md. Try: make run ARGS=\"swiotlb=rc4\", then the shell's help.\n");
	if (out)
		*out = res;
}

void story_boot(void)
{
	if (!story_off)
		story_run(NULL);
}
