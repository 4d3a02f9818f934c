/*
 * story.h - the 2.6.14 story, told by the machine it runs on.
 *
 * story_run() (make run's default: story=on, no test=) prints a report:
 * the topology; where each swiotlb policy puts its pool here (on copies
 * of the boot allocator; the live pool is the one swiotlb= chose); the
 * open/close storm under the four RCU policies, alone and against a hog,
 * as one table; and DMA from memory above 4 GiB through the bounce pool on
 * virtio-blk and edu. Every verdict in it is computed from what just
 * happened, never written in advance.
 */
#ifndef STORY_H
#define STORY_H

#include "types.h"

/* What the story saw: each verdict, as it printed it. */
struct story_result {
	bool storms_ran, hog_storms_ran;        /* the hog row needs two CPUs */
	bool enfile_alone[4], enfile_hog[4];    /* rc4, batch10k, count, fqs */
	bool dma_ran;                           /* memory above 4 GiB and a device */
	bool blk_intact, edu_intact;
	u64 blk_bounced;
};

void story_run(struct story_result *out);       /* always; out may be NULL */
void story_boot(void);          /* if story=on and no test= */
void story_swiotlb_table(void); /* act 1 alone: every policy's pool on this machine */

#endif
