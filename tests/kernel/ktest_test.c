/*
 * ktest_test.c - the test framework tests itself (kernel and host builds).
 *
 * ktest_selftest is manual and fails on purpose: the matrix runs it and
 * expects exactly its deliberate_failure case to be reported, which proves
 * failures get through the whole chain (kernel, KTAP, exit code, runner).
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

static void string_compare(struct ktest *t)
{
	char buf[8] = "abc";

	EXPECT_STREQ(t, buf, "abc");
}

static const struct ktest_case ktest_cases[] = {
	KTEST(failed_expect_fails_the_case),
	KTEST(failed_assert_returns_early),
	KTEST(skip_is_recorded),
	KTEST(string_compare),
	{},
};
KTEST_SUITE(ktest, ktest_cases);

static void passes(struct ktest *t)
{
	EXPECT_TRUE(t, true);
}

static void deliberate_failure(struct ktest *t)
{
	int answer = 41;

	EXPECT_EQ(t, answer, 42);
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
