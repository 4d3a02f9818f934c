/*
 * story_test.c - the report make run prints tells the truth: run it, and
 * check each verdict it printed against the claims of docs/rcu.md and
 * docs/dma.md. A boot of its own (tests/matrix, story-report, +alone):
 * its hog rows need every virtual CPU to get host time.
 */
#include "ktest.h"
#include "story.h"
#include "swiotlb.h"

enum { RC4, BATCH10K, COUNT, FQS };

static void the_story_tells_both_bugs_and_fixes(struct ktest *t)
{
	struct story_result r;

	story_run(&r);
	ASSERT_TRUE(t, r.storms_ran);
	EXPECT_TRUE(t, r.enfile_alone[RC4]);            /* the 2005 bug */
	EXPECT_TRUE(t, r.enfile_alone[BATCH10K]);       /* rc5's batch limit does not help */
	EXPECT_FALSE(t, r.enfile_alone[COUNT]);         /* seed 001 holds alone... */
	EXPECT_FALSE(t, r.enfile_alone[FQS]);
	if (r.hog_storms_ran) {
		EXPECT_TRUE(t, r.enfile_hog[COUNT]);    /* ...not against a hog */
		EXPECT_FALSE(t, r.enfile_hog[FQS]);     /* 2.6.16's forcing does */
	}
	if (!r.dma_ran)
		KTEST_SKIP(t, "no memory above 4 GiB or no DMA device: act 3 had nothing to show");
	EXPECT_TRUE(t, r.blk_intact);
	EXPECT_TRUE(t, r.edu_intact);
	EXPECT_GT(t, r.blk_bounced, 0);                 /* through the pool below 4 GiB */
}

static const struct ktest_case story_cases[] = {
	KTEST(the_story_tells_both_bugs_and_fixes),
	{},
};
KTEST_SUITE_MANUAL(story, story_cases);
