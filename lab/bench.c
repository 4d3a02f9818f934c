/*
 * bench.c - run the registered benchmarks and print one line per result,
 * and the benchmarks of the kernel's own subsystems.
 *
 * Timing uses the TSC (calibrated in time.c) around many calls, so the
 * reading's own cost is spread thin. Values are printed with three decimals
 * from integer thousandths: the kernel has no floating point (no SSE).
 *
 * The kernel (kernel/, drivers/) knows nothing of benchmarks: they live
 * here, in the lab, and measure it through its interfaces. The storm's
 * benchmarks sit with the storm (storm.c), the scheduler's with its tests
 * (tests/kernel/sched_test.c); BENCH() registers each where it is written.
 */
#include "bench.h"
#include "cmdline.h"
#include "dma.h"
#include "format.h"
#include "kstring.h"
#include "page_alloc.h"
#include "printk.h"
#include "rcu.h"
#include "sched.h"
#include "swiotlb.h"
#include "time.h"
#include "trap.h"
#include "virtio_blk.h"
#include "vm.h"
#include "x86.h"

static u64 runs_arg = 5;
PARAM_U64("bench.runs", runs_arg, 1, BENCH_MAX_RUNS);

u32 bench_nr_runs(void)
{
	return (u32)runs_arg;
}

void bench_report(const struct bench *b, const char *suffix, u64 milli_value, const char *unit)
{
	printk("bench: %s%s %llu.%03llu %s\n", b->name, suffix,
	       (milli_value / 1000), (milli_value % 1000),
	       unit);
}

void bench_runs_add(struct bench_runs *r, u64 milli_value)
{
	if (r->n < BENCH_MAX_RUNS)
		r->value[r->n++] = milli_value;
}

/* The runs in ascending order, into sorted[] (insertion sort: at most 15). */
static void sort_runs(const struct bench_runs *r, u64 *sorted)
{
	for (u32 i = 0; i < r->n; i++) {
		u64 v = r->value[i];
		u32 j = i;

		for (; j > 0 && sorted[j - 1] > v; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = v;
	}
}

u64 bench_runs_median(const struct bench_runs *r)
{
	u64 sorted[BENCH_MAX_RUNS];

	if (!r->n)
		return 0;
	sort_runs(r, sorted);
	return sorted[(r->n - 1) / 2];
}

void bench_report_runs(const struct bench *b, const char *suffix, const struct bench_runs *r,
		       const char *unit)
{
	u64 sorted[BENCH_MAX_RUNS];

	if (!r->n)
		return;
	sort_runs(r, sorted);
	u64 median = sorted[(r->n - 1) / 2], lo = sorted[0], hi = sorted[r->n - 1];
	printk("bench: %s%s %llu.%03llu %s (median of %u, %llu.%03llu-%llu.%03llu)\n",
	       b->name, suffix, median / 1000, median % 1000, unit, r->n,
	       lo / 1000, lo % 1000, hi / 1000, hi % 1000);
}

void bench_report_ratio(const struct bench *b, const char *suffix, const struct bench_runs *num,
			const struct bench_runs *den)
{
	struct bench_runs ratio = { 0 };

	for (u32 i = 0; i < num->n && i < den->n; i++)
		bench_runs_add(&ratio, den->value[i] ? num->value[i] * 1000 / den->value[i] : 0);
	bench_report_runs(b, suffix, &ratio, "ratio");
}

/* One pass of n calls: TSC nanoseconds per call, in thousandths. */
static u64 ns_per_call_milli(void (*fn)(void *arg), void *arg, u64 n)
{
	u64 start = rdtsc();

	for (u64 i = 0; i < n; i++)
		fn(arg);
	u64 ticks = rdtsc() - start;
	/* ticks / khz = ms, so ticks * 1e6 / khz = ns (u64 holds hours of it). */
	u64 ns = ticks * 1000000 / tsc_khz;
	return ns * 1000 / n;
}

void bench_time_calls(struct bench_runs *out, void (*fn)(void *arg), void *arg, u64 n)
{
	ns_per_call_milli(fn, arg, n);          /* warm-up */
	for (u32 i = 0; i < bench_nr_runs(); i++)
		bench_runs_add(out, ns_per_call_milli(fn, arg, n));
}

void bench_time_passes(struct bench_runs *out, u64 (*pass)(void *arg), void *arg)
{
	pass(arg);                              /* warm-up */
	for (u32 i = 0; i < bench_nr_runs(); i++)
		bench_runs_add(out, pass(arg));
}

static const struct bench *find(const char *name, size_t len)
{
	for (const struct bench *const *b = __start_benches; b < __stop_benches; b++)
		if (strlen((*b)->name) == len && !strncmp((*b)->name, name, len))
			return *b;
	return NULL;
}

int bench_run(const char *selection)
{
	const char *name;
	size_t len;
	int missing = 0;

	printk("bench: %u benchmarks registered; running %s\n",
	       (unsigned)(__stop_benches - __start_benches), selection);
	if (!strcmp(selection, "all")) {
		for (const struct bench *const *b = __start_benches; b < __stop_benches; b++)
			(*b)->run(*b);
		return 0;
	}
	for (const char *cursor = selection; list_next(&cursor, &name, &len);) {
		const struct bench *b = find(name, len);

		if (b) {
			b->run(b);
		} else {
			printk(KERN_WARNING "bench: no benchmark named '%.*s'\n", (int)len, name);
			missing++;
		}
	}
	return missing;
}

/* --- the machinery's own costs ------------------------------------------ */

static void read_tsc(void *arg)
{
	*(volatile u64 *)arg = rdtsc();
}

static void bench_rdtsc(const struct bench *b)
{
	struct bench_runs r = { 0 };
	u64 sink;

	bench_time_calls(&r, read_tsc, &sink, 100000);
	bench_report_runs(b, "", &r, "ns");
}
BENCH(rdtsc, bench_rdtsc);

static void do_int3(void *arg)
{
	__asm__ volatile("int3");
}

static void catch_int3(void *arg)
{
	struct fault_info fi;

	fault_catch(do_int3, NULL, &fi);
}

/* An exception's full trip: IDT entry, trap_dispatch, iretq, the unwind. */
static void bench_exception(const struct bench *b)
{
	struct bench_runs r = { 0 };

	bench_time_calls(&r, catch_int3, NULL, 10000);
	bench_report_runs(b, "_roundtrip", &r, "ns");
}
BENCH(exception, bench_exception);

static void format_line(void *arg)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "storm: mode=%s cpus=%s iterations=%llu peak_qlen=%d ms=%u",
		 "fqs", "0-3", 123456789ULL, 10042, 1234u);
	*(volatile char *)arg = buf[0];
}

static void bench_snprintf(const struct bench *b)
{
	struct bench_runs r = { 0 };
	char sink;

	bench_time_calls(&r, format_line, &sink, 20000);
	bench_report_runs(b, "_line", &r, "ns");
}
BENCH(snprintf, bench_snprintf);

/* --- RCU ------------------------------------------------------------------------ */

#define RCU_BENCH_CALLS 10000

static void noop_callback(struct rcu_head *head)
{
}

/* call_rcu() itself: queue RCU_BENCH_CALLS callbacks on this CPU; ns per call. */
static u64 call_rcu_pass(void *unused)
{
	static struct rcu_head heads[RCU_BENCH_CALLS];
	u64 start;

	rcu_drain();
	preempt_disable();
	start = ktime_ns();
	for (u32 i = 0; i < RCU_BENCH_CALLS; i++)
		call_rcu(&heads[i], noop_callback);
	u64 ns = ktime_ns() - start;
	preempt_enable();
	rcu_drain();
	return ns * 1000 / RCU_BENCH_CALLS;
}

static void bench_call_rcu(const struct bench *b)
{
	struct bench_runs r = { 0 };

	bench_time_passes(&r, call_rcu_pass, NULL);
	bench_report_runs(b, "", &r, "ns");
}
BENCH(call_rcu, bench_call_rcu);

/* A grace period from an idle machine: every CPU but this one is idle. */
static u64 synchronize_rcu_pass(void *unused)
{
	const u32 rounds = 10;
	u64 start = ktime_ns();

	for (u32 i = 0; i < rounds; i++)
		synchronize_rcu();
	return (ktime_ns() - start) / rounds;   /* ns = thousandths of us */
}

static void bench_synchronize_rcu(const struct bench *b)
{
	struct bench_runs r = { 0 };

	bench_time_passes(&r, synchronize_rcu_pass, NULL);
	bench_report_runs(b, "_idle", &r, "us");
}
BENCH(synchronize_rcu, bench_synchronize_rcu);

/* --- DMA through the swiotlb ----------------------------------------------------- */

#define DMA_BENCH_ROUNDS 2000

static struct device bench_dev64 = { .name = "bench-dma64", .dma_mask = DMA_BIT_MASK(64),
				     .coherent_dma_mask = DMA_BIT_MASK(64), .node = NODE_ANY };

/*
 * Per size: a bounced map+unmap (both copies, BIDIRECTIONAL), a mapping
 * that needs no bounce (unless swiotlb=force), and the bounce against the
 * two memcpy() calls it makes, as a ratio: the rest is bookkeeping.
 */
static void bench_dma_map(const struct bench *b)
{
	static const u32 sizes[] = { 64, 4096, 65536 };
	u64 base, end;
	int node;

	if (!swiotlb_pool_range(&base, &end, &node))
		return;
	struct page *pg = alloc_pages(4, NODE_ANY, ALLOC_ZERO);         /* 64 KiB */
	if (!pg)
		return;
	void *buf = page_address(pg);
	u64 pa = page_to_phys(pg);
	for (u32 i = 0; i < ARRAY_SIZE(sizes); i++) {
		char suffix[40];
		u64 start = ktime_ns(), bounced, direct, copy;

		for (u32 r = 0; r < DMA_BENCH_ROUNDS; r++) {
			u64 a = swiotlb_map(pa, sizes[i], DMA_BIDIRECTIONAL);
			if (a == ~0UL)
				break;
			swiotlb_unmap(a, sizes[i], DMA_BIDIRECTIONAL);
		}
		bounced = (ktime_ns() - start) / DMA_BENCH_ROUNDS;
		start = ktime_ns();
		for (u32 r = 0; r < DMA_BENCH_ROUNDS; r++) {
			dma_addr_t a = dma_map_single(&bench_dev64, buf, sizes[i], DMA_BIDIRECTIONAL);
			dma_unmap_single(&bench_dev64, a, sizes[i], DMA_BIDIRECTIONAL);
		}
		direct = (ktime_ns() - start) / DMA_BENCH_ROUNDS;
		start = ktime_ns();
		for (u32 r = 0; r < DMA_BENCH_ROUNDS; r++) {
			memcpy(phys_to_virt(base), buf, sizes[i]);
			memcpy(buf, phys_to_virt(base), sizes[i]);
		}
		copy = (ktime_ns() - start) / DMA_BENCH_ROUNDS;
		snprintf(suffix, sizeof(suffix), "_bounce_%u", sizes[i]);
		bench_report(b, suffix, bounced * 1000, "ns");
		snprintf(suffix, sizeof(suffix), "_direct_%u", sizes[i]);
		bench_report(b, suffix, direct * 1000, "ns");
		snprintf(suffix, sizeof(suffix), "_bounce_%u_vs_memcpy", sizes[i]);
		bench_report(b, suffix, copy ? bounced * 1000 / copy : 0, "ratio");
	}
	free_pages(pg, 4);
}
BENCH(dma_map_unmap, bench_dma_map);

/* --- virtio-blk with a 32-bit mask ----------------------------------------------- */

#define BENCH_SEQ_BYTES (4UL << 20)     /* 4 MiB in 64 KiB requests, written then read */
#define BENCH_IOPS      1000            /* 4 KiB requests, reads and writes alternating */

/* 64 KiB above 4 GiB if the machine has it (something to bounce), else anywhere. */
static struct page *bench_pages(void)
{
	struct page *p = alloc_pages(4, NODE_ANY, ALLOC_HIGH);

	return p ? p : alloc_pages(4, NODE_ANY, 0);
}

/* MB/s (x1000) of sequential 64 KiB I/O, and 4 KiB IOPS (x1000), with the current mask. */
static void bench_pass(struct virtio_blk *vb, void *buf, u64 *mbps, u64 *iops)
{
	u64 start = ktime_ns();

	for (u64 off = 0; off < BENCH_SEQ_BYTES; off += VIRTIO_BLK_MAX_REQUEST)
		virtio_blk_write(vb, off / VIRTIO_BLK_SECTOR, buf, VIRTIO_BLK_MAX_REQUEST);
	for (u64 off = 0; off < BENCH_SEQ_BYTES; off += VIRTIO_BLK_MAX_REQUEST)
		virtio_blk_read(vb, off / VIRTIO_BLK_SECTOR, buf, VIRTIO_BLK_MAX_REQUEST);
	u64 ns = ktime_ns() - start;
	u64 bytes_per_ms = ns ? 2 * BENCH_SEQ_BYTES * 1000000 / ns : 0;
	*mbps = bytes_per_ms * 1000000 / (1 << 20);              /* thousandths of MiB/s */
	start = ktime_ns();
	for (u32 i = 0; i < BENCH_IOPS; i++) {
		u64 sector = (i * 2654435761u) % (BENCH_SEQ_BYTES / 4096) * 8;
		if (i & 1)
			virtio_blk_write(vb, sector, buf, 4096);
		else
			virtio_blk_read(vb, sector, buf, 4096);
	}
	ns = ktime_ns() - start;
	*iops = ns ? (u64)BENCH_IOPS * 1000000000 / ns * 1000 : 0;
}

static void bench_virtio_blk(const struct bench *b)
{
	struct virtio_blk *vb = virtio_blk_get();
	struct device *dev;
	u64 mbps32, iops32, mbps64, iops64;

	if (!vb || virtio_blk_capacity(vb) * VIRTIO_BLK_SECTOR < BENCH_SEQ_BYTES)
		return;
	struct page *p = bench_pages();
	if (!p)
		return;
	dev = virtio_blk_device(vb);
	u64 mask = dev->dma_mask;
	dev->dma_mask = DMA_BIT_MASK(32);
	bench_pass(vb, page_address(p), &mbps32, &iops32);
	dev->dma_mask = DMA_BIT_MASK(64);
	bench_pass(vb, page_address(p), &mbps64, &iops64);
	dev->dma_mask = mask;
	bench_report(b, "_seq_mask32", mbps32, "MiB/s");
	bench_report(b, "_seq_mask64", mbps64, "MiB/s");
	bench_report(b, "_seq_mask32_vs_64", mbps64 ? mbps32 * 1000 / mbps64 : 0, "ratio");
	bench_report(b, "_4k_mask32", iops32, "IOPS");
	bench_report(b, "_4k_mask64", iops64, "IOPS");
	bench_report(b, "_4k_mask32_vs_64", iops64 ? iops32 * 1000 / iops64 : 0, "ratio");
	bench_report(b, page_to_phys(p) >= DMA32_LIMIT ? "_buffer_above_4g" : "_buffer_below_4g",
		     page_to_phys(p) >> 20 << 10, "KiB_at");
	free_pages(p, 4);
}
BENCH(virtio_blk, bench_virtio_blk);
