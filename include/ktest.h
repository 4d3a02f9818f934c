/* SPDX-License-Identifier: MIT */
/*
 * ktest.h - a small KUnit-like test framework, for the kernel and the host.
 *
 * A test case is a function taking a struct ktest *; a suite is a named
 * list of cases; suites register themselves with KTEST_SUITE() into the
 * ktest_suites section, so the runner finds them without a central list.
 *
 *	static void adds_up(struct ktest *t)
 *	{
 *		EXPECT_EQ(t, 1 + 1, 2);         // records a failure, goes on
 *		ASSERT_TRUE(t, ptr != NULL);    // records a failure, returns
 *	}
 *	static const struct ktest_case math_cases[] = { KTEST(adds_up), {} };
 *	KTEST_SUITE(math, math_cases);
 *
 * Output is KTAP version 1, as Linux's KUnit prints it, so its kunit.py
 * and our tests/run.py both read it. A failed check prints the expression,
 * both values and file:line as KTAP diagnostics ("# ..."). ASSERT_* return
 * from the case function, so use them only in the case function itself.
 *
 * The same code runs on the host (tests/host/), built with ASan and UBSan.
 */
#ifndef KTEST_H
#define KTEST_H

#include "types.h"

enum ktest_status { KTEST_PASS, KTEST_FAIL, KTEST_SKIP };

struct ktest {
	const char *name;       /* the running case */
	enum ktest_status status;
	const char *skip_reason;
	bool quiet;             /* don't print diagnostics (the framework's own tests) */
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;         /* ended by an entry with run == NULL */
	bool manual;            /* run only when named in test=, never by test=all */
};

#define KTEST(fn) { #fn, fn }

#define KTEST_SUITE(name_, cases_)                                                   \
	static const struct ktest_suite name_##_suite = { #name_, cases_, false };   \
	static const struct ktest_suite *const name_##_suite_ptr                     \
		__used __section("ktest_suites") = &name_##_suite
/* A suite that only runs when asked for by name (deliberate panics, failures). */
#define KTEST_SUITE_MANUAL(name_, cases_)                                            \
	static const struct ktest_suite name_##_suite = { #name_, cases_, true };    \
	static const struct ktest_suite *const name_##_suite_ptr                     \
		__used __section("ktest_suites") = &name_##_suite

extern const struct ktest_suite *const __start_ktest_suites[];
extern const struct ktest_suite *const __stop_ktest_suites[];

/* Record the outcome of a check; false if it failed. Used by the macros. */
bool ktest_check(struct ktest *t, bool ok, const char *file, int line, const char *expr);
bool ktest_check_eq(struct ktest *t, bool ok, const char *file, int line, const char *op,
		    const char *left_expr, u64 left, const char *right_expr, u64 right);
bool ktest_check_str(struct ktest *t, bool ok, const char *file, int line,
		     const char *left_expr, const char *left, const char *right_expr,
		     const char *right);

/* Print a "# case: ..." diagnostic line under the running case. */
void ktest_log(struct ktest *t, const char *fmt, ...) __printf(2, 3);

/*
 * A skip says "what this case needs is not on this machine" and returns.
 * It never hides a failure: a case that already failed stays failed.
 */
void ktest_skip(struct ktest *t, const char *reason);
#define KTEST_SKIP(t, reason)                                                   \
	do {                                                                    \
		ktest_skip(t, reason);                                          \
		return;                                                         \
	} while (0)

/* Fail the case with a message (what went wrong, in words) and return. */
void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...) __printf(4, 5);
#define KTEST_FAIL(t, ...)                                                      \
	do {                                                                    \
		ktest_fail(t, __FILE__, __LINE__, __VA_ARGS__);                 \
		return;                                                         \
	} while (0)

#define KTEST_CHECK_OP_(t, fatal, a, op, b)                                                  \
	do {                                                                                 \
		u64 l_ = (u64)(a), r_ = (u64)(b);                                            \
		if (!ktest_check_eq(t, l_ op r_, __FILE__, __LINE__, #op, #a, l_, #b, r_) && \
		    (fatal))                                                                 \
			return;                                                              \
	} while (0)

/* Values are compared as u64: pointers, sizes and addresses all fit. */
#define EXPECT_EQ(t, a, b) KTEST_CHECK_OP_(t, false, a, ==, b)
#define EXPECT_NE(t, a, b) KTEST_CHECK_OP_(t, false, a, !=, b)
#define EXPECT_LT(t, a, b) KTEST_CHECK_OP_(t, false, a, <, b)
#define EXPECT_LE(t, a, b) KTEST_CHECK_OP_(t, false, a, <=, b)
#define EXPECT_GT(t, a, b) KTEST_CHECK_OP_(t, false, a, >, b)
#define EXPECT_GE(t, a, b) KTEST_CHECK_OP_(t, false, a, >=, b)
#define ASSERT_EQ(t, a, b) KTEST_CHECK_OP_(t, true, a, ==, b)
#define ASSERT_NE(t, a, b) KTEST_CHECK_OP_(t, true, a, !=, b)
#define ASSERT_LT(t, a, b) KTEST_CHECK_OP_(t, true, a, <, b)
#define ASSERT_LE(t, a, b) KTEST_CHECK_OP_(t, true, a, <=, b)
#define ASSERT_GT(t, a, b) KTEST_CHECK_OP_(t, true, a, >, b)
#define ASSERT_GE(t, a, b) KTEST_CHECK_OP_(t, true, a, >=, b)

#define EXPECT_TRUE(t, cond) ((void)ktest_check(t, !!(cond), __FILE__, __LINE__, #cond))
#define EXPECT_FALSE(t, cond) ((void)ktest_check(t, !(cond), __FILE__, __LINE__, "!(" #cond ")"))
#define ASSERT_TRUE(t, cond)                                                     \
	do {                                                                     \
		if (!ktest_check(t, !!(cond), __FILE__, __LINE__, #cond))        \
			return;                                                  \
	} while (0)
#define ASSERT_FALSE(t, cond) ASSERT_TRUE(t, !(cond))

#define KTEST_STR_(t, fatal, a, b)                                                        \
	do {                                                                              \
		const char *l_ = (a), *r_ = (b);                                          \
		bool ok_ = l_ && r_ && !strcmp(l_, r_);                                   \
		if (!ktest_check_str(t, ok_, __FILE__, __LINE__, #a, l_, #b, r_) && (fatal)) \
			return;                                                           \
	} while (0)
#define EXPECT_STREQ(t, a, b) KTEST_STR_(t, false, a, b)
#define ASSERT_STREQ(t, a, b) KTEST_STR_(t, true, a, b)

/*
 * What a kernel does around the tests (the host does nothing). It may
 * check that each suite gives back what it took (swiotlb slots, files,
 * RCU callbacks, slab objects, pages): before_suite() runs ahead of a
 * suite's first case; after_suite() runs as one more case of the suite,
 * leaks_nothing, and fails it for whatever was not given back. Around
 * each case, before_case() and after_case(): the kernel's keep the case
 * on the CPU it starts on, so that a CPU number it reads stays true.
 */
struct ktest_hooks {
	void (*before_suite)(void);
	void (*after_suite)(struct ktest *t);
	void (*before_case)(void);
	void (*after_case)(void);
};
void ktest_set_hooks(const struct ktest_hooks *hooks);
extern const struct ktest_hooks ktest_kernel_hooks;    /* kernel/ktest_leaks.c */

/*
 * Run what selection picks: "all" (every suite not marked manual), or
 * words separated by commas, each "suite" or "suite.case" with * and ?
 * globs in either part (a manual suite runs only when named exactly).
 * Prints KTAP. Returns the number of failed cases plus the words that
 * picked nothing (0 = all passed).
 */
int ktest_run(const char *selection);

/* The selection ktest_run() is running (NULL outside it). */
const char *ktest_selection(void);

/*
 * What the last ktest_run() counted, for the results a user takes home
 * (the final line and the QR code): the totals of its "# Totals:" line,
 * the selection words that picked nothing, and the first failed cases by
 * name ("suite.case"); nr_failed_names <= KTEST_FAILED_NAMES.
 */
#define KTEST_FAILED_NAMES 8
struct ktest_summary {
	int pass, fail, skip, unknown;
	int nr_failed_names;
	char failed[KTEST_FAILED_NAMES][64];
};
const struct ktest_summary *ktest_last_summary(void);

/*
 * The first word of selection that picks no case (an unknown suite, a
 * glob or case pattern matching nothing), its length in *len; NULL when
 * every word picks something. What ktest_run() would count as unknown.
 */
const char *ktest_first_unmatched(const char *selection, size_t *len);

/* The names of the suites "all" runs (not the manual ones), blank-separated, into buf. */
void ktest_suite_names(char *buf, size_t size);

/* Print "suite.case" for every case selection picks; returns how many. */
int ktest_list(const char *selection);

/* Does selection pick case case_name of suite s? */
bool ktest_selects(const char *selection, const struct ktest_suite *s, const char *case_name);

/* Does name match pattern[0..len), where * is any run and ? any one character? */
bool ktest_glob(const char *pattern, size_t len, const char *name);

/* Run one case on a scratch struct ktest, quietly; for testing the framework. */
enum ktest_status ktest_run_quiet(void (*fn)(struct ktest *t));

#endif
