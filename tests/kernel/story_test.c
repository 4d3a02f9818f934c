// SPDX-License-Identifier: MIT
/*
 * story_test.c - the report make run prints tells the truth: measure it,
 * and check each verdict against the claims of docs/rcu.md and docs/dma.md,
 * and each verdict against the storm it was drawn from. Manual: the story
 * runs in boots of its own. story-report (tests/matrix) boots story-icount,
 * the machine make run boots: under -icount the guest's clock is its
 * instruction count, so the storms end the same way on every run, and
 * the second case asserts every verdict word for word (make test then
 * checks the README's excerpt against that boot's report,
 * scripts/story_excerpt.py). modern-pc-story runs the first case under
 * TCG, where its hog rows need every virtual CPU to get host time.
 */
#include "ktest.h"
#include "story.h"
#include "swiotlb.h"

/* One story for both cases: it takes a while (ten seconds under -icount). */
static struct story_result r;
static bool told;

static void tell_the_story(void)
{
	if (!told)
		story_run(&r);
	told = true;
}

static void the_story_tells_both_bugs_and_fixes(struct ktest *t)
{
	tell_the_story();
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
		bool enfile_alone = r.alone[mode].enfile_at >= 0;
		EXPECT_EQ(t, r.alone[mode].mode, mode);
		EXPECT_EQ(t, r.alone[mode].where, STORM_USER);
		EXPECT_EQ(t, r.in_kernel[mode].where, STORM_KERNEL);
		EXPECT_EQ(t, enfile_alone, r.verdict[mode] == STORY_HITS_ENFILE ||
					   r.verdict[mode] == STORY_LOSES_ALONE_ONLY);
	}
	/*
	 * rc4: ENFILE (Serge Belyshev, 15 Oct 2005). That grace periods end
	 * meanwhile, with done callbacks waiting, holds in nearly every run but
	 * not all (rcu_bound.rc4_user_storm_hits_enfile_although_grace_periods_end
	 * asserts it under -icount, on a program that also works in user mode); the report
	 * shows this run's numbers.
	 */
	EXPECT_EQ(t, r.verdict[RCU_MODE_RC4], STORY_HITS_ENFILE);
	/*
	 * batch10k alone: with Serge's bare loop, whether done callbacks wait
	 * at ENFILE is the host's timing (30,030 did once in a fresh-clone
	 * make test); rcu_claims.batch10k_keeps_up_with_a_user_storm_alone
	 * asserts it where one run decides. The report shows this run's.
	 */
	/* the article's never-scheduling kernel thread: no grace period, ENFILE */
	EXPECT_GE(t, r.in_kernel[RCU_MODE_RC4].enfile_at, 0);
	EXPECT_GE(t, r.in_kernel[RCU_MODE_BATCH10K].enfile_at, 0);
	/* the counter and every forcing make the storming CPU switch: no ENFILE */
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		if (rcu_mode_brakes(mode))
			EXPECT_EQ(t, r.in_kernel[mode].enfile_at, -1);
	if (r.hog_storms_ran) {
		/* batch10k: not against a CPU that never switches */
		EXPECT_GE(t, r.with_hog[RCU_MODE_BATCH10K].enfile_at, 0);
		EXPECT_EQ(t, r.verdict[RCU_MODE_COUNT], STORY_LOSES_TO_THE_HOG);
		EXPECT_EQ(t, r.verdict[RCU_MODE_FQS16], STORY_LOSES_TO_THE_HOG); /* bare IPIs */
		EXPECT_EQ(t, r.verdict[RCU_MODE_FQS19], STORY_LOSES_TO_THE_HOG);
		EXPECT_EQ(t, r.verdict[RCU_MODE_FQS], STORY_SURVIVES);          /* testbed's own */
	} else {
		for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
			if (rcu_mode_brakes(mode))
				EXPECT_EQ(t, r.verdict[mode], STORY_SURVIVES_ALONE);
	}
	if (!r.high_memory || (!r.blk.present && !r.edu.present))
		KTEST_SKIP(t, "no memory above 4 GiB or no DMA device: act 3 had nothing to show");
	EXPECT_TRUE(t, r.blk.intact);
	EXPECT_TRUE(t, r.edu.intact);
	EXPECT_GT(t, r.blk.bounced, 0);                 /* through the pool below 4 GiB */
}

/*
 * On story-icount every storm ends the same way on every run, so every
 * verdict is asserted: the words make run prints there, on every boot.
 */
static void the_icount_machines_verdicts_are_the_readmes(struct ktest *t)
{
	static const enum story_verdict user[RCU_NR_MODES] = {
		[RCU_MODE_RC4] = STORY_HITS_ENFILE,
		/*
		 * Linus's larger batch kept up with Serge's program on his
		 * machine. On this clock (1 ns an instruction) the program
		 * closes files faster than grace periods end and hits ENFILE
		 * alone too; under TCG it survives most runs (docs/story.md).
		 * rcu_claims.batch10k_keeps_up_with_a_user_storm_alone asserts
		 * what the batch changed: no done callback waits at ENFILE.
		 */
		[RCU_MODE_BATCH10K] = STORY_HITS_ENFILE,
		[RCU_MODE_COUNT] = STORY_LOSES_TO_THE_HOG,
		[RCU_MODE_FQS16] = STORY_LOSES_TO_THE_HOG,
		[RCU_MODE_FQS19] = STORY_LOSES_TO_THE_HOG,
		[RCU_MODE_FQS] = STORY_SURVIVES,
	};

	tell_the_story();
	ASSERT_TRUE(t, r.hog_storms_ran);       /* story-icount has 4 CPUs */
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
		EXPECT_EQ(t, r.verdict[mode], user[mode]);
		/* the kernel thread: only a mode that makes it switch ends grace periods */
		EXPECT_EQ(t, r.in_kernel[mode].enfile_at < 0, rcu_mode_brakes(mode));
		EXPECT_EQ(t, r.in_kernel[mode].gps > 0, rcu_mode_brakes(mode));
	}
}

static const struct ktest_case story_cases[] = {
	KTEST(the_story_tells_both_bugs_and_fixes),
	KTEST(the_icount_machines_verdicts_are_the_readmes),
	{},
};
KTEST_SUITE_MANUAL(story, story_cases);
