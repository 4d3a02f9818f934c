// SPDX-License-Identifier: MIT
/*
 * ktest_test.c - the test framework tests itself (kernel and host builds).
 *
 * ktest_selftest is manual and fails on purpose: the matrix runs it and
 * expects exactly its deliberate_failure case to be reported, which proves
 * failures get through the whole chain (kernel, KTAP, exit code, runner),
 * even when the case skips after failing.
 */
#include "kstring.h"
#include "ktest.h"

static void failing_expect(struct ktest *t)
{
	EXPECT_EQ(t, 1 + 1, 3);
}

static bool ran_past_assert;

static void failing_assert(struct ktest *t)
{
	ran_past_assert = false;
	ASSERT_TRUE(t, 0);
	ran_past_assert = true;
}

static void skipping(struct ktest *t)
{
	KTEST_SKIP(t, "because");
}

static void failing_then_skipping(struct ktest *t)
{
	EXPECT_EQ(t, 1 + 1, 3);
	KTEST_SKIP(t, "the machine lacks something");
}

static void failing_with_a_message(struct ktest *t)
{
	KTEST_FAIL(t, "the device is there but %s", "unusable");
}

static void failed_expect_fails_the_case(struct ktest *t)
{
	EXPECT_EQ(t, ktest_run_quiet(failing_expect), KTEST_FAIL);
}

static void failed_assert_returns_early(struct ktest *t)
{
	EXPECT_EQ(t, ktest_run_quiet(failing_assert), KTEST_FAIL);
	EXPECT_FALSE(t, ran_past_assert);
}

static void skip_is_recorded(struct ktest *t)
{
	EXPECT_EQ(t, ktest_run_quiet(skipping), KTEST_SKIP);
}

/* A skip means "not on this machine", never "it failed, but...". */
static void skip_after_a_failure_stays_a_failure(struct ktest *t)
{
	EXPECT_EQ(t, ktest_run_quiet(failing_then_skipping), KTEST_FAIL);
}

static void fail_with_a_message_fails(struct ktest *t)
{
	EXPECT_EQ(t, ktest_run_quiet(failing_with_a_message), KTEST_FAIL);
}

static void globs_match_like_a_shell(struct ktest *t)
{
	EXPECT_TRUE(t, ktest_glob("rcu*", 4, "rcu"));
	EXPECT_TRUE(t, ktest_glob("rcu*", 4, "rcu_claims"));
	EXPECT_FALSE(t, ktest_glob("rcu*", 4, "mm"));
	EXPECT_TRUE(t, ktest_glob("*_test", 6, "mm_test"));
	EXPECT_TRUE(t, ktest_glob("a?c", 3, "abc"));
	EXPECT_FALSE(t, ktest_glob("a?c", 3, "ac"));
	EXPECT_TRUE(t, ktest_glob("*", 1, ""));
	EXPECT_FALSE(t, ktest_glob("", 0, "x"));
	EXPECT_TRUE(t, ktest_glob("a*b*c", 5, "axxbyyc"));
	EXPECT_FALSE(t, ktest_glob("a*b*c", 5, "axxbyy"));
	EXPECT_TRUE(t, ktest_glob("rcu,x", 3, "rcu"));  /* only len characters count */
}

static const struct ktest_case sample_cases[] = {
	{ "reader_holds", NULL }, { "late_callback", NULL }, {},
};
static const struct ktest_suite sample = { "sample", sample_cases, false };
static const struct ktest_suite sample_manual = { "sample_claims", sample_cases, true };

static void selection_picks_suites_and_cases(struct ktest *t)
{
	EXPECT_TRUE(t, ktest_selects("all", &sample, "reader_holds"));
	EXPECT_FALSE(t, ktest_selects("all", &sample_manual, "reader_holds"));
	EXPECT_TRUE(t, ktest_selects("mm,sample", &sample, "late_callback"));
	EXPECT_FALSE(t, ktest_selects("mm", &sample, "late_callback"));
	EXPECT_TRUE(t, ktest_selects("sample_claims", &sample_manual, "late_callback"));
	EXPECT_FALSE(t, ktest_selects("sample*", &sample_manual, "late_callback"));   /* globs skip manual */
	EXPECT_TRUE(t, ktest_selects("sample*", &sample, "late_callback"));
	EXPECT_TRUE(t, ktest_selects("sample.late*", &sample, "late_callback"));
	EXPECT_FALSE(t, ktest_selects("sample.late*", &sample, "reader_holds"));
	EXPECT_TRUE(t, ktest_selects("*.reader_holds", &sample, "reader_holds"));
	EXPECT_FALSE(t, ktest_selects("", &sample, "reader_holds"));
	EXPECT_FALSE(t, ktest_selects("samples", &sample, "reader_holds"));
}

static void string_compare(struct ktest *t)
{
	char buf[8] = "abc";

	EXPECT_STREQ(t, buf, "abc");
}

static const struct ktest_case ktest_cases[] = {
	KTEST(failed_expect_fails_the_case),
	KTEST(failed_assert_returns_early),
	KTEST(skip_is_recorded),
	KTEST(skip_after_a_failure_stays_a_failure),
	KTEST(fail_with_a_message_fails),
	KTEST(globs_match_like_a_shell),
	KTEST(selection_picks_suites_and_cases),
	KTEST(string_compare),
	{},
};
KTEST_SUITE(ktest, ktest_cases);

static void passes(struct ktest *t)
{
	EXPECT_TRUE(t, true);
}

/* Fails, then skips: the runner must still see "not ok". */
static void deliberate_failure(struct ktest *t)
{
	int answer = 41;

	EXPECT_EQ(t, answer, 42);
	KTEST_SKIP(t, "a skip after a failure");
}

static void skipped(struct ktest *t)
{
	KTEST_SKIP(t, "skipped on purpose");
}

static const struct ktest_case ktest_selftest_cases[] = {
	KTEST(passes),
	KTEST(deliberate_failure),
	KTEST(skipped),
	{},
};
KTEST_SUITE_MANUAL(ktest_selftest, ktest_selftest_cases);
