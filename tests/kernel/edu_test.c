// SPDX-License-Identifier: MIT
/*
 * edu_test.c - the 2005 swiotlb bug on a device that really cannot reach
 * past 32 bits: QEMU's edu with dma_mask=0xffffffff (see edu.h).
 *
 * With a pool below 4 GiB (rc5, low, nearest, force) a buffer above 4 GiB travels to
 * the device and back intact through bounce buffers. With the pool above
 * 4 GiB (rc4) the DMA API refuses; with its map-anyway test option the
 * device is handed the pool's address, truncates it, and reads the low
 * alias instead: the data that arrives is not the buffer's but whatever
 * lies at addr & 0xffffffff. Only the read direction is replayed: a write
 * to the low alias would land on memory the kernel owns, which is exactly
 * the corruption of 2005, and not something a test should do.
 */
#include "dma.h"
#include "edu.h"
#include "kstring.h"
#include "ktest.h"
#include "pattern.h"
#include "page_alloc.h"
#include "sched.h"
#include "swiotlb.h"
#include "time.h"
#include "vm.h"

#define LEN 3000

/* A machine without the device skips; a device the driver could not use fails. */
#define NEED_EDU(t, e)                                                                  \
	struct edu *e = edu_get();                                                      \
	if (!e && edu_probe_failure())                                                  \
		KTEST_FAIL(t, "the edu device is there but unusable: %s", edu_probe_failure()); \
	if (!e)                                                                         \
		KTEST_SKIP(t, "no edu device (-device edu)")

static void identification_and_liveness(struct ktest *t)
{
	NEED_EDU(t, e);
	EXPECT_EQ(t, edu_read32(e, 0x00) & 0xff, 0xed);
	edu_write32(e, 0x04, 0xcafe0001);
	EXPECT_EQ(t, edu_read32(e, 0x04), ~0xcafe0001u);
}

static void msi_interrupt_arrives(struct ktest *t)
{
	NEED_EDU(t, e);
	if (e->vector < 0)
		KTEST_SKIP(t, "no MSI: polling");
	u32 before = __atomic_load_n(&e->irqs, __ATOMIC_ACQUIRE);
	u64 deadline = ktime_ns() + 1000000000UL;

	edu_raise_irq(e, 0x5a);
	while (__atomic_load_n(&e->irqs, __ATOMIC_ACQUIRE) == before && ktime_ns() < deadline)
		yield();
	EXPECT_EQ(t, __atomic_load_n(&e->irqs, __ATOMIC_ACQUIRE), before + 1);
	EXPECT_EQ(t, e->last_irq_status, 0x5a);
	EXPECT_EQ(t, edu_read32(e, 0x24), 0);   /* acknowledged */
}

/* The fallback: the same interrupt as INTx, through the I/O APIC (level-triggered). */
static void intx_interrupt_arrives(struct ktest *t)
{
	NEED_EDU(t, e);
	if (e->vector < 0)
		KTEST_SKIP(t, "no interrupt vector");
	if (!edu_use_intx(e, true))
		KTEST_SKIP(t, "no legacy interrupt line");
	u32 before = __atomic_load_n(&e->irqs, __ATOMIC_ACQUIRE);
	u64 deadline = ktime_ns() + 1000000000UL;

	edu_raise_irq(e, 0x77);
	while (__atomic_load_n(&e->irqs, __ATOMIC_ACQUIRE) == before && ktime_ns() < deadline)
		yield();
	u32 after = __atomic_load_n(&e->irqs, __ATOMIC_ACQUIRE);
	EXPECT_TRUE(t, edu_use_intx(e, false));
	EXPECT_EQ(t, after, before + 1);                /* once: the handler quieted the line */
	EXPECT_EQ(t, e->last_irq_status, 0x77);
	ktest_log(t, "INTx on IRQ %u", e->pci->irq_line);
}

/* Can the device reach the whole bounce pool? */
static bool pool_reachable(const struct device *dev)
{
	u64 base, end;
	int node;

	return swiotlb_pool_range(&base, &end, &node) &&
	       dma_reachable(dev->dma_mask, base, end - base);
}

/* Memory of the kernel image: 2 MiB up, within even a 28-bit mask. */
static u8 image_buffer[2][EDU_BUFFER_SIZE] __aligned(4096);

/* Within the mask, no bounce: the device reads and writes the buffer itself. */
static void buffer_within_the_mask_round_trip(struct ktest *t)
{
	NEED_EDU(t, e);
	struct device *dev = &e->pci->dma;
	u64 bounces = dma_device_stats(dev).bounces;

	pattern_fill(image_buffer[0], LEN, 0x51);
	memset(image_buffer[1], 0, LEN);
	dma_addr_t a = dma_map_single(dev, image_buffer[0], LEN, DMA_TO_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(dev, a));
	EXPECT_TRUE(t, dma_reachable(dev->dma_mask, a, LEN));
	EXPECT_TRUE(t, edu_dma(e, a, 0, LEN, false));
	dma_unmap_single(dev, a, LEN, DMA_TO_DEVICE);
	dma_addr_t b = dma_map_single(dev, image_buffer[1], LEN, DMA_FROM_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(dev, b));
	EXPECT_TRUE(t, edu_dma(e, b, 0, LEN, true));
	dma_unmap_single(dev, b, LEN, DMA_FROM_DEVICE);
	EXPECT_TRUE(t, pattern_ok(image_buffer[1], LEN, 0x51));
	EXPECT_EQ(t, dma_device_stats(dev).bounces, bounces);
	ktest_log(t, "DMA mask 0x%llx: %u bytes each way at 0x%llx and 0x%llx", dev->dma_mask, LEN,
		  a, b);
}

/*
 * A transfer that times out never lands: its caller unmaps and reuses the
 * buffer, so the device must not write it when the engine gets round to it
 * (QEMU's edu takes about 100 ms; the timeout is made 10 ms). The next
 * transfer, once the engine is done, works again.
 */
#define EDU_ENGINE_WAIT_MS 10000                /* 100 times what the engine takes */

static void a_timed_out_transfer_never_lands(struct ktest *t)
{
	NEED_EDU(t, e);
	struct device *dev = &e->pci->dma;

	pattern_fill(image_buffer[0], LEN, 0x3c);
	dma_addr_t a = dma_map_single(dev, image_buffer[0], LEN, DMA_TO_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(dev, a));
	EXPECT_TRUE(t, edu_dma(e, a, 0, LEN, false));   /* the device's buffer: the pattern */
	dma_unmap_single(dev, a, LEN, DMA_TO_DEVICE);

	memset(image_buffer[1], 0, LEN);
	dma_addr_t b = dma_map_single(dev, image_buffer[1], LEN, DMA_FROM_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(dev, b));
	if (!dma_reachable(dev->dma_mask, b, LEN) || b != virt_to_phys(image_buffer[1])) {
		dma_unmap_single(dev, b, LEN, DMA_FROM_DEVICE);
		KTEST_SKIP(t, "the buffer is bounced: the device would not write it directly");
	}
	u64 old = edu_set_dma_timeout_ms(10);
	bool done = edu_dma(e, b, 0, LEN, true);
	edu_set_dma_timeout_ms(old);
	EXPECT_FALSE(t, done);
	/*
	 * Wait for the engine to finish the late transfer: QEMU runs it on a
	 * timer of the host's clock, which a loaded host may starve for a
	 * while. Then it has written all it ever will.
	 */
	u64 waited_ms = 0;
	while (edu_dma_running(e) && waited_ms < EDU_ENGINE_WAIT_MS) {
		msleep(10);
		waited_ms += 10;
	}
	ASSERT_FALSE(t, edu_dma_running(e));
	u32 written = 0;
	for (u32 i = 0; i < LEN; i++)
		written += image_buffer[1][i] != 0;
	EXPECT_EQ(t, written, 0);
	EXPECT_TRUE(t, edu_dma(e, b, 0, LEN, true));    /* bus mastering back on */
	dma_unmap_single(dev, b, LEN, DMA_FROM_DEVICE);
	EXPECT_TRUE(t, pattern_ok(image_buffer[1], LEN, 0x3c));
}

/* Requests that would leave the device's buffer, or wrap, never reach the device. */
static void transfers_out_of_the_buffer_are_refused(struct ktest *t)
{
	NEED_EDU(t, e);
	EXPECT_FALSE(t, edu_dma(e, 0x1000, 4000, 200, false));         /* runs past the end */
	EXPECT_FALSE(t, edu_dma(e, 0x1000, 0xffffff00, 0x200, false)); /* off + len wraps */
	EXPECT_FALSE(t, edu_dma(e, 0x1000, 0, 0, false));
	EXPECT_FALSE(t, edu_dma(e, 0x1000, 0, EDU_DMA_MAX + 1, false));
}

/* Two threads transferring at once: each gets its own data back. */
struct edu_worker {
	struct edu *e;
	u32 seed, off, bad;
	u8 *out, *in;
};

static void edu_worker(void *arg)
{
	struct edu_worker *w = arg;
	struct device *dev = &w->e->pci->dma;

	for (u32 round = 0; round < 3; round++) {      /* each transfer takes ~100 ms */
		pattern_fill(w->out, 1000, w->seed + round);
		memset(w->in, 0, 1000);
		dma_addr_t a = dma_map_single(dev, w->out, 1000, DMA_TO_DEVICE);
		dma_addr_t b = dma_map_single(dev, w->in, 1000, DMA_FROM_DEVICE);
		bool ok = !dma_mapping_error(dev, a) && !dma_mapping_error(dev, b) &&
			  edu_dma(w->e, a, w->off, 1000, false) && edu_dma(w->e, b, w->off, 1000, true);
		if (!dma_mapping_error(dev, a))
			dma_unmap_single(dev, a, 1000, DMA_TO_DEVICE);
		if (!dma_mapping_error(dev, b))
			dma_unmap_single(dev, b, 1000, DMA_FROM_DEVICE);
		w->bad += !ok || !pattern_ok(w->in, 1000, w->seed + round);
	}
}

static void two_threads_transfer_at_once(struct ktest *t)
{
	static struct edu_worker w[2];

	NEED_EDU(t, e);
	for (u32 i = 0; i < 2; i++)
		w[i] = (struct edu_worker){ e, 100 * i, 2000 * i, 0, image_buffer[0] + 2048 * i,
					    image_buffer[1] + 2048 * i };
	struct thread *a = thread_create("edu-a", edu_worker, &w[0], SCHED_ANY_CPU);
	struct thread *b = thread_create("edu-b", edu_worker, &w[1], SCHED_ANY_CPU);
	ASSERT_TRUE(t, a && b);
	thread_join(a);
	thread_join(b);
	EXPECT_EQ(t, w[0].bad, 0);
	EXPECT_EQ(t, w[1].bad, 0);
}

/* High buffer -> device -> another high buffer, through the DMA API. */
static void high_buffers_round_trip(struct ktest *t)
{
	NEED_EDU(t, e);
	struct page *src = alloc_pages(0, NODE_ANY, ALLOC_HIGH), *dst = alloc_pages(0, NODE_ANY, ALLOC_HIGH);
	if (!src || !dst) {
		if (src)
			free_pages(src, 0);
		if (dst)
			free_pages(dst, 0);
		KTEST_SKIP(t, "no free memory above 4 GiB");
	}
	struct device *dev = &e->pci->dma;
	u8 *in = page_address(src), *out = page_address(dst);
	u64 bounces = dma_device_stats(dev).bounces;

	pattern_fill(in, LEN, 0x3c);
	memset(out, 0, LEN);
	dma_addr_t a = dma_map_single(dev, in, LEN, DMA_TO_DEVICE);
	if (!pool_reachable(dev)) {
		/* rc4 above 4 GiB, node0 failed, off, a 28-bit device: refused, nothing moves. */
		EXPECT_TRUE(t, dma_mapping_error(dev, a));
		goto out;
	}
	ASSERT_FALSE(t, dma_mapping_error(dev, a));
	EXPECT_TRUE(t, dma_reachable(dev->dma_mask, a, LEN));
	EXPECT_TRUE(t, edu_dma(e, a, 0, LEN, false));
	dma_unmap_single(dev, a, LEN, DMA_TO_DEVICE);
	dma_addr_t b = dma_map_single(dev, out, LEN, DMA_FROM_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(dev, b));
	EXPECT_TRUE(t, edu_dma(e, b, 0, LEN, true));
	dma_unmap_single(dev, b, LEN, DMA_FROM_DEVICE);
	EXPECT_TRUE(t, pattern_ok(out, LEN, 0x3c));         /* intact */
	EXPECT_EQ(t, dma_device_stats(dev).bounces, bounces + 2);  /* both ways bounced */
	ktest_log(t, "%u bytes each way through bounce buffers at 0x%llx and 0x%llx", LEN, a, b);
out:
	free_pages(src, 0);
	free_pages(dst, 0);
}

/*
 * A 4 MiB block of RAM below 4 GiB but past 28 bits, or NULL: blocks are
 * taken until one lies there (at most the 64 that fit below 256 MiB, plus
 * one), the others given back.
 */
static struct page *block_past_28_bits(void)
{
	static struct page *below[128];
	struct page *found = NULL;
	u32 n = 0;

	while (n < ARRAY_SIZE(below)) {
		struct page *pg = alloc_pages(MAX_ORDER, NODE_ANY, ALLOC_DMA32);
		if (!pg)
			break;
		if (page_to_phys(pg) > DMA_BIT_MASK(28)) {
			found = pg;
			break;
		}
		below[n++] = pg;
	}
	while (n)
		free_pages(below[--n], MAX_ORDER);
	return found;
}

/*
 * A buffer between 256 MiB and 4 GiB: within the story machines' 32-bit
 * mask (it goes to the device as it is), past pair's 28-bit one (bounced,
 * or refused when the pool is out of reach too). Either way, what the
 * device reads must be the buffer: given as it is to a device that cannot
 * reach it, the device would read addr & its mask instead. The device's
 * own behaviour is the judge, not the driver's idea of its mask.
 */
static void a_buffer_past_28_bits_arrives_or_is_refused(struct ktest *t)
{
	NEED_EDU(t, e);
	struct device *dev = &e->pci->dma;
	struct page *blk = block_past_28_bits();

	if (!blk)
		KTEST_SKIP(t, "no free memory between 256 MiB and 4 GiB");
	u8 *in = page_address(blk);

	pattern_fill(in, LEN, 0x6b);
	memset(image_buffer[1], 0, LEN);
	dma_addr_t a = dma_map_single(dev, in, LEN, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, a)) {
		EXPECT_FALSE(t, pool_reachable(dev));   /* refused only when the pool is out of reach */
		ktest_log(t, "a buffer at 0x%llx refused: no bounce pool within mask 0x%llx",
			  page_to_phys(blk), dev->dma_mask);
		goto out;
	}
	EXPECT_TRUE(t, edu_dma(e, a, 0, LEN, false));
	dma_unmap_single(dev, a, LEN, DMA_TO_DEVICE);
	dma_addr_t b = dma_map_single(dev, image_buffer[1], LEN, DMA_FROM_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(dev, b));
	EXPECT_TRUE(t, edu_dma(e, b, 0, LEN, true));
	dma_unmap_single(dev, b, LEN, DMA_FROM_DEVICE);
	EXPECT_TRUE(t, pattern_ok(image_buffer[1], LEN, 0x6b)); /* what the device read was the buffer */
	ktest_log(t, "a buffer at 0x%llx went to the device as 0x%llx (mask 0x%llx)",
		  page_to_phys(blk), a, dev->dma_mask);
out:
	free_pages(blk, MAX_ORDER);
}

/* rc4 plus the map-anyway option: the device reads the low alias. */
static void rc4_device_reads_the_truncated_address(struct ktest *t)
{
	NEED_EDU(t, e);
	u64 base, end;
	int node;
	if (!swiotlb_pool_range(&base, &end, &node) || end <= DMA32_LIMIT)
		KTEST_SKIP(t, "the pool is below 4 GiB (swiotlb=rc4 shows the bug)");
	struct page *src = alloc_pages(0, NODE_ANY, ALLOC_HIGH);
	struct page *back = alloc_pages(0, NODE_ANY, ALLOC_DMA32 | ALLOC_ZERO);
	ASSERT_TRUE(t, src && back);
	struct device reckless = e->pci->dma;
	reckless.dma_map_unreachable = true;
	u8 *in = page_address(src), *got = page_address(back);

	pattern_fill(in, LEN, 0xa5);
	dma_addr_t a = dma_map_single(&reckless, in, LEN, DMA_TO_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(&reckless, a));
	EXPECT_FALSE(t, dma_reachable(reckless.dma_mask, a, LEN));     /* an unreachable address */
	EXPECT_TRUE(t, pattern_ok(phys_to_virt(a), LEN, 0xa5));     /* the bounce buffer is right... */
	EXPECT_TRUE(t, edu_dma(e, a, 0, LEN, false));           /* ...the device reads a & its mask */
	dma_unmap_single(&reckless, a, LEN, DMA_TO_DEVICE);
	/* Bring the device's buffer back into memory it can reach: no bounce. */
	EXPECT_TRUE(t, edu_dma(e, page_to_phys(back), 0, LEN, true));
	u64 alias = a & reckless.dma_mask;
	EXPECT_FALSE(t, pattern_ok(got, LEN, 0xa5));                /* the pattern is missing */
	if (vm_mapped((u64)phys_to_virt(alias)) && vm_mapped((u64)phys_to_virt(alias + LEN - 1))) {
		/* The alias is RAM (story under SeaBIOS): what arrived is exactly its bytes. */
		EXPECT_EQ(t, memcmp(got, phys_to_virt(alias), LEN), 0);
		ktest_log(t, "bounce buffer 0x%llx, the device read RAM at 0x%llx instead",
			  a, alias);
	} else {
		/* The alias is no RAM (q35's PCI hole): the device read the hole. */
		ktest_log(t, "bounce buffer 0x%llx, the device read 0x%llx, which is not RAM",
			  a, alias);
	}
	free_pages(src, 0);
	free_pages(back, 0);
}

static const struct ktest_case edu_cases[] = {
	KTEST(identification_and_liveness),
	KTEST(msi_interrupt_arrives),
	KTEST(intx_interrupt_arrives),
	KTEST(buffer_within_the_mask_round_trip),
	KTEST(transfers_out_of_the_buffer_are_refused),
	KTEST(a_timed_out_transfer_never_lands),
	KTEST(two_threads_transfer_at_once),
	KTEST(high_buffers_round_trip),
	KTEST(a_buffer_past_28_bits_arrives_or_is_refused),
	KTEST(rc4_device_reads_the_truncated_address),
	{},
};
KTEST_SUITE(edu, edu_cases);
