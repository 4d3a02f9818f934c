/*
 * story_test.c - the report make run prints tells the truth: measure it,
 * and check each verdict against the claims of docs/rcu.md and docs/dma.md,
 * and each verdict against the storm it was drawn from. A boot of its own
 * (tests/matrix, story-report, +alone): its hog rows need every virtual
 * CPU to get host time.
 */
#include "ktest.h"
#include "story.h"
#include "swiotlb.h"

static void the_story_tells_both_bugs_and_fixes(struct ktest *t)
{
	static struct story_result r;

	story_run(&r);
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
		bool enfile_alone = r.alone[mode].enfile_at >= 0;
		EXPECT_EQ(t, r.alone[mode].mode, mode);
		EXPECT_EQ(t, enfile_alone, r.verdict[mode] == STORY_HITS_ENFILE ||
					   r.verdict[mode] == STORY_LOSES_ALONE_ONLY);
	}
	EXPECT_EQ(t, r.verdict[RCU_MODE_RC4], STORY_HITS_ENFILE);        /* the 2005 bug */
	EXPECT_EQ(t, r.verdict[RCU_MODE_BATCH10K], STORY_HITS_ENFILE);   /* a larger batch does not help */
	if (r.hog_storms_ran) {
		EXPECT_EQ(t, r.verdict[RCU_MODE_COUNT], STORY_LOSES_TO_THE_HOG); /* the counter holds alone */
		EXPECT_EQ(t, r.verdict[RCU_MODE_FQS], STORY_SURVIVES);          /* 2.6.16's forcing */
	} else {
		EXPECT_EQ(t, r.verdict[RCU_MODE_COUNT], STORY_SURVIVES_ALONE);
		EXPECT_EQ(t, r.verdict[RCU_MODE_FQS], STORY_SURVIVES_ALONE);
	}
	if (!r.high_memory || (!r.blk.present && !r.edu.present))
		KTEST_SKIP(t, "no memory above 4 GiB or no DMA device: act 3 had nothing to show");
	EXPECT_TRUE(t, r.blk.intact);
	EXPECT_TRUE(t, r.edu.intact);
	EXPECT_GT(t, r.blk.bounced, 0);                 /* through the pool below 4 GiB */
}

static const struct ktest_case story_cases[] = {
	KTEST(the_story_tells_both_bugs_and_fixes),
	{},
};
KTEST_SUITE_MANUAL(story, story_cases);
