// SPDX-License-Identifier: MIT
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
#include "irqoff.h"
#include "kstring.h"
#include "page_alloc.h"
#include "printk.h"
#include "profile.h"
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

u32 bench_set_runs(u32 runs)
{
	u32 before = (u32)runs_arg;

	runs_arg = runs < 1 ? 1 : runs > BENCH_MAX_RUNS ? BENCH_MAX_RUNS : runs;
	return before;
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

void bench_runs_ratio(struct bench_runs *out, const struct bench_runs *num,
		      const struct bench_runs *den)
{
	for (u32 i = 0; i < num->n && i < den->n; i++)
		bench_runs_add(out, den->value[i] ? num->value[i] * 1000 / den->value[i] : 0);
}

void bench_report_ratio(const struct bench *b, const char *suffix, const struct bench_runs *num,
			const struct bench_runs *den)
{
	struct bench_runs ratio = { 0 };

	bench_runs_ratio(&ratio, num, den);
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

void bench_time_pair(struct bench_runs *a, u64 (*pass_a)(void *arg), void *arg_a,
		     struct bench_runs *b, u64 (*pass_b)(void *arg), void *arg_b)
{
	pass_a(arg_a);                          /* warm-up */
	pass_b(arg_b);
	for (u32 i = 0; i < bench_nr_runs(); i++) {
		bench_runs_add(a, pass_a(arg_a));
		bench_runs_add(b, pass_b(arg_b));
	}
}

static const struct bench *find(const char *name, size_t len)
{
	for (const struct bench *const *b = __start_benches; b < __stop_benches; b++)
		if (strlen((*b)->name) == len && !strncmp((*b)->name, name, len))
			return *b;
	return NULL;
}

const char *bench_first_unknown(const char *selection, size_t *len)
{
	const char *cursor = selection, *name;

	if (!strcmp(selection, "all"))
		return NULL;
	while (list_next(&cursor, &name, len))
		if (!find(name, *len))
			return name;
	return NULL;
}

void bench_names(char *buf, size_t size)
{
	struct words names = words_start(buf, size);

	for (const struct bench *const *b = __start_benches; b < __stop_benches; b++)
		if (!words_add(&names, (*b)->name, strlen((*b)->name)))
			break;
}

/*
 * One benchmark, with the interrupts-off tracer off: it costs every cli and
 * sti two TSC reads (under TCG, a lock all virtual CPUs share), so rates
 * timed with it on are the tracer's as much as the kernel's. Benchmarks
 * that report interrupts-off windows turn it on for what they trace.
 */
static void run_one(const struct bench *b)
{
	bool was = irqoff_trace(false), profiled = profile_begin();

	b->run(b);
	irqoff_trace(was);
	profile_end(profiled, b->name);
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
			run_one(*b);
		return 0;
	}
	for (const char *cursor = selection; list_next(&cursor, &name, &len);) {
		const struct bench *b = find(name, len);

		if (b) {
			run_one(b);
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

static struct device bench_dev64 = { .name = "bench-dma64", .dma_mask = DMA_BIT_MASK(64),
				     .coherent_dma_mask = DMA_BIT_MASK(64), .node = NODE_ANY };

#define DMA_BENCH_MAX_ROUNDS 2000
#define DMA_BENCH_BYTES      (32UL << 20)       /* per pass: fewer rounds for big mappings */

struct dma_pass {
	u64 pa;                 /* the caller's buffer (64 KiB) */
	void *buf;
	u32 size, rounds;
	u64 slot[DMA_BENCH_MAX_ROUNDS];         /* where each bounce of the last pass went */
};

static u32 dma_rounds(u32 size)
{
	return (u32)MIN((u64)DMA_BENCH_MAX_ROUNDS, DMA_BENCH_BYTES / size);
}

/* rounds bounced map+unmap (BIDIRECTIONAL: both copies): ns per round, in thousandths. */
static u64 bounce_pass(void *arg)
{
	struct dma_pass *d = arg;
	u64 start = rdtsc();

	for (u32 r = 0; r < d->rounds; r++) {
		u64 a = swiotlb_map(d->pa, d->size, DMA_BIDIRECTIONAL);
		if (a == SWIOTLB_NO_MAPPING)
			return 0;
		d->slot[r] = a;
		swiotlb_unmap(a, d->size, DMA_BIDIRECTIONAL);
	}
	return (rdtsc() - start) * 1000000 / tsc_khz * 1000 / d->rounds;
}

/* The same two copies as the bounce pass, between the same buffer and the same slots. */
static u64 memcpy_pass(void *arg)
{
	struct dma_pass *d = arg;
	u64 start = rdtsc();

	for (u32 r = 0; r < d->rounds; r++) {
		void *slot = phys_to_virt(d->slot[r]);
		memcpy(slot, d->buf, d->size);
		memcpy(d->buf, slot, d->size);
	}
	return (rdtsc() - start) * 1000000 / tsc_khz * 1000 / d->rounds;
}

static u64 direct_pass(void *arg)
{
	struct dma_pass *d = arg;
	u64 start = rdtsc();

	for (u32 r = 0; r < d->rounds; r++) {
		dma_addr_t a = dma_map_single(&bench_dev64, d->buf, d->size, DMA_BIDIRECTIONAL);
		dma_unmap_single(&bench_dev64, a, d->size, DMA_BIDIRECTIONAL);
	}
	return (rdtsc() - start) * 1000000 / tsc_khz * 1000 / d->rounds;
}

/*
 * Per size: a bounced map+unmap (both copies, BIDIRECTIONAL); the same two
 * memcpy() calls between the same buffer and the same slots, and the
 * bounce against them run by run (what the swiotlb adds: the bookkeeping);
 * a mapping that needs no bounce (unless swiotlb=force). Every size is
 * warmed up first; the very first pass, 32 MiB of 64 KiB bounces over pool
 * pages QEMU has not backed yet (it does on first touch), is its own line,
 * _first_pass_65536.
 */
static void bench_dma_map(const struct bench *b)
{
	static const u32 sizes[] = { 64, 4096, 65536 };
	static struct dma_pass d;
	struct bench_runs first = { 0 };
	u64 base, end;
	int node;

	if (!swiotlb_pool_range(&base, &end, &node))
		return;
	struct page *pg = alloc_pages(4, NODE_ANY, ALLOC_ZERO);         /* 64 KiB */
	if (!pg)
		return;
	d.buf = page_address(pg);
	d.pa = page_to_phys(pg);
	d.size = 65536;                         /* cold: the first walk over this CPU's area */
	d.rounds = dma_rounds(d.size);
	bench_runs_add(&first, bounce_pass(&d));
	bench_report_runs(b, "_first_pass_65536", &first, "ns");
	for (u32 i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct bench_runs bounce = { 0 }, copy = { 0 }, direct = { 0 };
		char suffix[48];

		d.size = sizes[i];
		d.rounds = dma_rounds(sizes[i]);
		bench_time_pair(&bounce, bounce_pass, &d, &copy, memcpy_pass, &d);
		bench_time_passes(&direct, direct_pass, &d);
		snprintf(suffix, sizeof(suffix), "_bounce_%u", sizes[i]);
		bench_report_runs(b, suffix, &bounce, "ns");
		snprintf(suffix, sizeof(suffix), "_memcpy_%u", sizes[i]);
		bench_report_runs(b, suffix, &copy, "ns");
		snprintf(suffix, sizeof(suffix), "_direct_%u", sizes[i]);
		bench_report_runs(b, suffix, &direct, "ns");
		snprintf(suffix, sizeof(suffix), "_bounce_%u_vs_memcpy", sizes[i]);
		bench_report_ratio(b, suffix, &bounce, &copy);
	}
	free_pages(pg, 4);
}
BENCH(dma_map_unmap, bench_dma_map);

/*
 * A refused map on a full pool against a normal 64-byte map+unmap, run by
 * run: every slot taken (256 KiB mappings, untimed), then refusals; then
 * everything given back, then map+unmaps.
 */
#define REFUSALS 2000

static u64 *full_maps;                  /* room for a 256 KiB mapping in every segment */
static u32 full_maps_max;

static u64 refused_pass(void *arg)
{
	struct dma_pass *d = arg;
	u32 n = 0;

	while (n < full_maps_max &&
	       (full_maps[n] = swiotlb_map(d->pa, SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE)) != SWIOTLB_NO_MAPPING)
		n++;
	u64 start = rdtsc();
	for (u32 r = 0; r < REFUSALS; r++)
		swiotlb_map(d->pa, 64, DMA_BIDIRECTIONAL);
	u64 ns = (rdtsc() - start) * 1000000 / tsc_khz * 1000 / REFUSALS;
	while (n--)
		swiotlb_unmap(full_maps[n], SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);
	return ns;
}

static void bench_dma_refused(const struct bench *b)
{
	static struct dma_pass d;
	struct bench_runs refused = { 0 }, normal = { 0 };
	struct swiotlb_stats st;
	u64 base, end;
	int node;

	if (!swiotlb_pool_range(&base, &end, &node))
		return;
	swiotlb_get_stats(&st);
	full_maps_max = st.slabs / SWIOTLB_SEGSIZE + 1;
	unsigned order = page_order((u64)full_maps_max * sizeof(u64));
	struct page *pg = alloc_pages(6, NODE_ANY, 0);          /* 256 KiB to copy in */
	struct page *maps = alloc_pages(order, NODE_ANY, 0);
	if (!pg || !maps) {
		if (pg)
			free_pages(pg, 6);
		if (maps)
			free_pages(maps, order);
		return;
	}
	full_maps = page_address(maps);
	d.buf = page_address(pg);
	d.pa = page_to_phys(pg);
	d.size = 64;
	d.rounds = REFUSALS;
	bench_time_pair(&refused, refused_pass, &d, &normal, bounce_pass, &d);
	bench_report_runs(b, "_full", &refused, "ns");
	bench_report_runs(b, "_map_unmap_64", &normal, "ns");
	bench_report_ratio(b, "_full_vs_map_unmap_64", &refused, &normal);
	free_pages(pg, 6);
	free_pages(maps, order);
}
BENCH(dma_refused, bench_dma_refused);

/*
 * Map+unmap of 64 bytes from one CPU, then from two at once (CPUs 0 and
 * 1, each its own buffer, so each its own area): the aggregate rate of
 * each, and two against one run by run. What one lock for the pool would
 * cost shows here as a ratio well under 2. The control does the same with
 * arithmetic on each CPU's own registers, sharing nothing: the most the
 * host's cores allow two vCPUs at that moment (2.0 on an idle host); the
 * last line divides the one scaling by the other, run by run: the share of
 * what the host offered that the DMA path used (1.0: all of it).
 */
#define SCALE_ROUNDS 20000

struct dma_scaler {
	u64 pa;
	bool control;           /* arithmetic instead of DMA: what the host lets two vCPUs do */
	volatile u32 go;
	u64 start, end;         /* TSC */
	u64 sink;
} __attribute__((aligned(64)));

static void scale_worker(void *arg)
{
	struct dma_scaler *w = arg;
	u64 x = w->pa;

	while (!__atomic_load_n(&w->go, __ATOMIC_ACQUIRE))
		cpu_relax();
	w->start = rdtsc();
	for (u32 r = 0; r < SCALE_ROUNDS; r++) {
		if (w->control) {
			for (u32 k = 0; k < 1000; k++)
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			continue;
		}
		u64 a = swiotlb_map(w->pa, 64, DMA_BIDIRECTIONAL);
		if (a != SWIOTLB_NO_MAPPING)
			swiotlb_unmap(a, 64, DMA_BIDIRECTIONAL);
	}
	w->end = rdtsc();
	w->sink = x;
}

/*
 * Map+unmaps per second (thousandths) of ncpus CPUs at once, from CPU 0
 * up: each CPU's rate over its own loop, added (a CPU that starts a little
 * later, its thread woken after the others, does not count as idle).
 */
static u64 scale_pass(u32 ncpus, struct dma_scaler w[2])
{
	struct thread *th[2];

	for (u32 c = 0; c < ncpus; c++) {
		w[c].go = 0;
		th[c] = thread_create("dma-scale", scale_worker, &w[c], c);
	}
	for (u32 c = 0; c < ncpus; c++)
		__atomic_store_n(&w[c].go, 1, __ATOMIC_RELEASE);
	u64 rate = 0;
	for (u32 c = 0; c < ncpus; c++) {
		if (!th[c])
			return 0;
		thread_join(th[c]);
		u64 ns = (w[c].end - w[c].start) * 1000000 / tsc_khz;
		rate += ns ? SCALE_ROUNDS * 1000000000ULL / ns * 1000 : 0;
	}
	return rate;
}

static void bench_dma_cpus(const struct bench *b)
{
	static struct dma_scaler w[2];
	struct bench_runs one = { 0 }, two = { 0 }, control_one = { 0 }, control_two = { 0 };
	u64 base, end;
	int node;

	if (!swiotlb_pool_range(&base, &end, &node) || nr_cpus_online < 2)
		return;
	struct page *pg = alloc_pages(0, NODE_ANY, 0);
	if (!pg)
		return;
	w[0].pa = page_to_phys(pg);
	w[1].pa = page_to_phys(pg) + 2048;
	scale_pass(1, w);                               /* warm-up */
	scale_pass(2, w);
	for (u32 r = 0; r < bench_nr_runs(); r++) {
		bench_runs_add(&one, scale_pass(1, w));
		bench_runs_add(&two, scale_pass(2, w));
		w[0].control = w[1].control = true;
		bench_runs_add(&control_one, scale_pass(1, w));
		bench_runs_add(&control_two, scale_pass(2, w));
		w[0].control = w[1].control = false;
	}
	bench_report_runs(b, "_1cpu", &one, "per_s");
	bench_report_runs(b, "_2cpus", &two, "per_s");
	bench_report_ratio(b, "_2cpus_vs_1cpu", &two, &one);
	bench_report_ratio(b, "_control_2cpus_vs_1cpu", &control_two, &control_one);
	struct bench_runs scaling = { 0 }, control = { 0 };
	bench_runs_ratio(&scaling, &two, &one);                 /* each run's two ratios */
	bench_runs_ratio(&control, &control_two, &control_one);
	bench_report_ratio(b, "_scaling_vs_control", &scaling, &control);
	free_pages(pg, 0);
}
BENCH(dma_map_unmap_cpus, bench_dma_cpus);

/* --- virtio-blk: 32-bit against 64-bit mask, queue depth 1 against 128 -------------- */

/*
 * Each run measures eight quantities: sequential 64 KiB I/O (8 MiB
 * written, then read, four times) and 4 KiB random I/O (2048 requests,
 * reads and writes alternating), each with a 32-bit and a 64-bit mask,
 * each at queue depth 1 and 128 (four times the I/O at 128: it is that
 * much faster, and a short pass is all noise). The two masks take turns in four slices
 * of a run (32, 64, 64, 32, ...), so that both see the same host, and a
 * ratio is taken within the run. At depth d, d requests go as one batch
 * (virtio_blk_submit_batch(): one notification, indirect descriptors
 * when offered) and are all waited for before the next batch. The buffers
 * are above 4 GiB when the machine has memory there: the 32-bit mask
 * bounces every byte through the swiotlb, the 64-bit mask none.
 */
#define BLK_DEPTH       128             /* the driver's queue */
#define BLK_SEQ_BYTES   (BLK_DEPTH * (u64)VIRTIO_BLK_MAX_REQUEST)     /* 8 MiB */
#define BLK_SLICES      4               /* a run alternates the masks this many times */
#define BLK_4K_OPS      2048            /* 4 KiB requests a run and mask: 16 batches of 128 */
#define BLK_DEEP_REPS   4               /* depth 128 does four times the work of depth 1 */
#define BLK_MIXED       0xff            /* a pass's type: reads and writes alternating */

struct blk_bench {
	struct virtio_blk *vb;
	struct page *pages[BLK_DEPTH];          /* 64 KiB each: request i of a batch uses i's */
	struct virtio_blk_req reqs[BLK_DEPTH];
	bool high;                              /* all of them above 4 GiB */
};

/* ops requests of len bytes in batches of depth: sequential from 0, or scattered; ns taken. */
static u64 blk_pass(struct blk_bench *bb, u32 depth, u32 type, u32 len, u32 ops, bool scattered)
{
	u64 start = ktime_ns();

	for (u32 done = 0; done < ops; ) {
		u32 n = ops - done < depth ? ops - done : depth;
		for (u32 i = 0; i < n; i++) {
			u32 op = done + i;
			u64 sector = scattered ? (op * 2654435761u) % (BLK_SEQ_BYTES / 4096) * 8
					       : (u64)op * (len / VIRTIO_BLK_SECTOR);
			bb->reqs[i] = (struct virtio_blk_req){
				.type = type == BLK_MIXED ? (op & 1 ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN) : type,
				.sector = sector, .buf = page_address(bb->pages[i]), .len = len };
		}
		u32 went = virtio_blk_submit_batch(bb->vb, bb->reqs, n, NULL);
		virtio_blk_wait_batch(bb->vb, bb->reqs, went);
		done += went ? went : 1;        /* a refused request is not retried: the numbers show it */
	}
	return ktime_ns() - start;
}

/*
 * One slice of both quantities at depth with the device's current mask,
 * reps times over: ns of sequential and of 4 KiB I/O added to *seq_ns and
 * *iops_ns.
 */
static void blk_slice(struct blk_bench *bb, u32 depth, u32 reps, u64 *seq_ns, u64 *iops_ns)
{
	u32 ops = (u32)(BLK_SEQ_BYTES / VIRTIO_BLK_MAX_REQUEST);

	for (u32 i = 0; i < reps; i++) {
		*seq_ns += blk_pass(bb, depth, VIRTIO_BLK_T_OUT, VIRTIO_BLK_MAX_REQUEST, ops, false) +
			   blk_pass(bb, depth, VIRTIO_BLK_T_IN, VIRTIO_BLK_MAX_REQUEST, ops, false);
		*iops_ns += blk_pass(bb, depth, BLK_MIXED, 4096, BLK_4K_OPS / BLK_SLICES, true);
	}
}

static void bench_virtio_blk(const struct bench *b)
{
	static struct blk_bench bb;
	struct bench_runs seq[2][2] = { 0 }, iops[2][2] = { 0 };   /* [deep][mask64] */
	static const u32 depth[2] = { 1, BLK_DEPTH };
	static const u32 reps[2] = { 1, BLK_DEEP_REPS };        /* deep is faster: more of it */
	struct virtio_blk_stats st;

	bb.vb = virtio_blk_get();
	if (!bb.vb || virtio_blk_capacity(bb.vb) * VIRTIO_BLK_SECTOR < BLK_SEQ_BYTES)
		return;
	bb.high = true;
	for (u32 i = 0; i < BLK_DEPTH; i++) {
		bb.pages[i] = alloc_pages(4, NODE_ANY, ALLOC_HIGH);
		if (!bb.pages[i]) {
			bb.high = false;
			bb.pages[i] = alloc_pages(4, NODE_ANY, 0);
		}
		if (!bb.pages[i]) {
			while (i--)
				free_pages(bb.pages[i], 4);
			return;
		}
	}
	struct device *dev = virtio_blk_device(bb.vb);
	u64 mask = dev->dma_mask;
	for (u32 run = 0; run <= bench_nr_runs(); run++) {     /* run 0 warms up */
		for (u32 deep = 0; deep < 2; deep++) {
			u64 seq_ns[2] = { 0 }, iops_ns[2] = { 0 };      /* [mask64] */
			/* The masks take turns in slices, so both see the same host. */
			for (u32 slice = 0; slice < BLK_SLICES; slice++) {
				for (u32 turn = 0; turn < 2; turn++) {
					u32 m64 = turn ^ (slice & 1);
					dev->dma_mask = m64 ? DMA_BIT_MASK(64) : DMA_BIT_MASK(32);
					blk_slice(&bb, depth[deep], reps[deep], &seq_ns[m64], &iops_ns[m64]);
				}
			}
			for (u32 m64 = 0; run && m64 < 2; m64++) {
				u64 bytes = 2 * BLK_SLICES * BLK_SEQ_BYTES * reps[deep];
				u64 ops = (u64)BLK_4K_OPS * reps[deep];
				/* In KiB, so that the product stays far inside 64 bits. */
				bench_runs_add(&seq[deep][m64], seq_ns[m64] ? (bytes >> 10) * 1000 *
							     1000000000 / seq_ns[m64] / 1024 : 0);
				bench_runs_add(&iops[deep][m64], iops_ns[m64] ? ops * 1000 * 1000000000 /
							      iops_ns[m64] : 0);
			}
		}
	}
	dev->dma_mask = mask;
	virtio_blk_get_stats(bb.vb, &st);
	bench_report_runs(b, "_seq_mask32", &seq[0][0], "MiB/s");
	bench_report_runs(b, "_seq_mask64", &seq[0][1], "MiB/s");
	bench_report_ratio(b, "_seq_mask32_vs_64", &seq[0][0], &seq[0][1]);
	bench_report_runs(b, "_4k_mask32", &iops[0][0], "IOPS");
	bench_report_runs(b, "_4k_mask64", &iops[0][1], "IOPS");
	bench_report_ratio(b, "_4k_mask32_vs_64", &iops[0][0], &iops[0][1]);
	bench_report_runs(b, "_seq_qd128_mask32", &seq[1][0], "MiB/s");
	bench_report_runs(b, "_seq_qd128_mask64", &seq[1][1], "MiB/s");
	bench_report_ratio(b, "_seq_qd128_mask32_vs_64", &seq[1][0], &seq[1][1]);
	bench_report_runs(b, "_4k_qd128_mask32", &iops[1][0], "IOPS");
	bench_report_runs(b, "_4k_qd128_mask64", &iops[1][1], "IOPS");
	bench_report_ratio(b, "_4k_qd128_mask32_vs_64", &iops[1][0], &iops[1][1]);
	bench_report_ratio(b, "_seq_qd128_vs_qd1_mask32", &seq[1][0], &seq[0][0]);
	bench_report_ratio(b, "_4k_qd128_vs_qd1_mask32", &iops[1][0], &iops[0][0]);
	bench_report(b, "_max_in_flight", st.max_in_flight * 1000, "requests");
	bench_report(b, bb.high ? "_buffers_above_4g" : "_buffers_below_4g", BLK_DEPTH * 1000, "buffers");
	for (u32 i = 0; i < BLK_DEPTH; i++)
		free_pages(bb.pages[i], 4);
}
BENCH(virtio_blk, bench_virtio_blk);
