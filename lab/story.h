/* SPDX-License-Identifier: MIT */
/*
 * story.h - the 2.6.14 story, told by the machine it runs on.
 *
 * story_run() (make run's default: story=on, no test=) replays both bugs
 * and their fixes here and prints a report: the machine; where each
 * swiotlb policy puts its pool (on copies of the boot allocator; the live
 * pool is the one swiotlb= chose); the open/close storm under every RCU
 * mode, as Serge Belyshev's user program alone and against a kernel hog,
 * with a verdict per mode, then as the article's kernel thread that never
 * schedules; and DMA from memory above 4 GiB through the bounce pool on
 * virtio-blk and edu.
 *
 * It is two steps. story_measure() runs everything and fills a struct
 * story_result, printing nothing of its own (the storms print their
 * "storm:" lines as they end); story_print() draws the report from that
 * struct alone. So every verdict is computed from what just happened, and
 * the story suite checks the struct, not the text.
 */
#ifndef STORY_H
#define STORY_H

#include "rcu.h"
#include "storm.h"
#include "swiotlb.h"
#include "types.h"

/* How a mode fared against the user-mode storm, alone and against a kernel hog. */
enum story_verdict {
	STORY_SURVIVES,                 /* no ENFILE, alone or against a hog */
	STORY_SURVIVES_ALONE,           /* no ENFILE alone; no second CPU for a hog */
	STORY_LOSES_TO_THE_HOG,         /* no ENFILE alone, ENFILE against a hog */
	STORY_LOSES_ALONE_ONLY,         /* ENFILE alone, none against a hog (!) */
	STORY_HITS_ENFILE,              /* ENFILE both ways: the 2005 bug */
};

/* One device's round trip from memory above 4 GiB (act 3). */
struct story_dma {
	bool present;           /* the machine has the device */
	bool refused;           /* the DMA API found no bounce buffer the device can reach */
	bool intact;            /* what came back is what went out */
	u64 bounced;            /* virtio-blk: bytes that went through the pool */
	u64 dma_addr;           /* edu: the bus address the device was given */
};

struct story_result {
	/* Act 1: every swiotlb policy's pool on this machine. */
	struct swiotlb_placement pools[SWIOTLB_NR_POLICIES];
	bool pool_placed[SWIOTLB_NR_POLICIES];
	bool live_pool;                 /* this boot has a pool (swiotlb=) ... */
	u64 live_base, live_end;        /* ... here */
	int live_node;

	/*
	 * Act 2: the storm under every mode, on storm_cpu; the hog on hog_cpu.
	 * alone and with_hog are the user-mode storm (the verdicts); in_kernel
	 * is the same loop as a kernel thread, alone.
	 */
	u64 storm_iterations;           /* per storm: 4 x max_files */
	u32 storm_cpu, hog_cpu;
	bool hog_storms_ran;            /* the machine has a CPU for the hog */
	struct storm_result alone[RCU_NR_MODES], with_hog[RCU_NR_MODES], in_kernel[RCU_NR_MODES];
	enum story_verdict verdict[RCU_NR_MODES];

	/* Act 3: DMA from above 4 GiB, through the pool. */
	bool high_memory;               /* 64 KiB above 4 GiB were free: something to bounce */
	u64 out_phys, in_phys;          /* the two buffers */
	struct story_dma blk, edu;
};

/* Run all three acts; fills *res and prints only the storms' own lines. */
void story_measure(struct story_result *res);

/* Draw the report from res. */
void story_print(const struct story_result *res);

/* Measure, then print (the shell's story command, make run's report). */
void story_run(struct story_result *res);

/* The story, if story=on (the default) and no test= ran. */
void story_boot(void);

/* Act 1 alone, measured and drawn: the shell's swiotlb command. */
void story_swiotlb_table(void);

#endif
