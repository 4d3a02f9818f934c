/*
 * ktest.c - run test suites and print KTAP version 1.
 *
 * The output for "test=a,b" looks like this (KUnit's layout):
 *
 *   KTAP version 1
 *   1..2
 *       KTAP version 1
 *       # Subtest: a
 *       1..2
 *       ok 1 first_case
 *       # second_case: EXPECTATION FAILED at tests/kernel/a_test.c:42
 *       #   x == 3: 4 (0x4) vs 3 (0x3)
 *       not ok 2 second_case
 *   # a: pass:1 fail:1 skip:0 total:2
 *   not ok 1 a
 *   ...
 *   # Totals: pass:.. fail:.. skip:.. total:..
 *
 * A suite passes when none of its cases failed (skips are fine). A name in
 * the selection that matches no suite is reported as a failed suite, so a
 * typo in test= cannot silently run nothing.
 */
#include "ktest.h"
#include "format.h"
#include "kstring.h"
#include "printk.h"

struct totals {
	int pass, fail, skip;
};

static void vlog(struct ktest *t, const char *fmt, va_list ap)
{
	char line[256];

	if (t->quiet)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	printk("    # %s: %s\n", t->name, line);
}

void ktest_log(struct ktest *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(t, fmt, ap);
	va_end(ap);
}

static void fail_header(struct ktest *t, const char *file, int line)
{
	t->status = KTEST_FAIL;
	ktest_log(t, "EXPECTATION FAILED at %s:%d", file, line);
}

bool ktest_check(struct ktest *t, bool ok, const char *file, int line, const char *expr)
{
	if (ok)
		return true;
	fail_header(t, file, line);
	ktest_log(t, "  expected %s", expr);
	return false;
}

bool ktest_check_eq(struct ktest *t, bool ok, const char *file, int line, const char *op,
		    const char *left_expr, u64 left, const char *right_expr, u64 right)
{
	if (ok)
		return true;
	fail_header(t, file, line);
	ktest_log(t, "  expected %s %s %s", left_expr, op, right_expr);
	ktest_log(t, "  %s = %lld (0x%llx)", left_expr, (long long)left, left);
	ktest_log(t, "  %s = %lld (0x%llx)", right_expr, (long long)right, right);
	return false;
}

bool ktest_check_str(struct ktest *t, bool ok, const char *file, int line,
		     const char *left_expr, const char *left, const char *right_expr,
		     const char *right)
{
	if (ok)
		return true;
	fail_header(t, file, line);
	ktest_log(t, "  expected %s equal to %s", left_expr, right_expr);
	ktest_log(t, "  %s = \"%s\"", left_expr, left ? left : "(null)");
	ktest_log(t, "  %s = \"%s\"", right_expr, right ? right : "(null)");
	return false;
}

enum ktest_status ktest_run_quiet(void (*fn)(struct ktest *t))
{
	struct ktest t = { .name = "scratch", .status = KTEST_PASS, .quiet = true };

	fn(&t);
	return t.status;
}

static int count_cases(const struct ktest_suite *s)
{
	int n = 0;

	while (s->cases[n].run)
		n++;
	return n;
}

/* Run one suite as subtest number `index`; add its cases to *tot. */
static void run_suite(const struct ktest_suite *s, int index, struct totals *tot)
{
	struct totals st = { 0, 0, 0 };
	int n = count_cases(s);

	printk("    KTAP version 1\n");
	printk("    # Subtest: %s\n", s->name);
	printk("    1..%d\n", n);
	for (int i = 0; i < n; i++) {
		struct ktest t = { .name = s->cases[i].name, .status = KTEST_PASS };

		s->cases[i].run(&t);
		switch (t.status) {
		case KTEST_PASS:
			st.pass++;
			printk("    ok %d %s\n", i + 1, t.name);
			break;
		case KTEST_SKIP:
			st.skip++;
			printk("    ok %d %s # SKIP %s\n", i + 1, t.name,
			       t.skip_reason ? t.skip_reason : "");
			break;
		case KTEST_FAIL:
			st.fail++;
			printk("    not ok %d %s\n", i + 1, t.name);
			break;
		}
	}
	printk("# %s: pass:%d fail:%d skip:%d total:%d\n", s->name, st.pass, st.fail, st.skip, n);
	printk("%s %d %s\n", st.fail ? "not ok" : "ok", index, s->name);
	tot->pass += st.pass;
	tot->fail += st.fail;
	tot->skip += st.skip;
}

static const struct ktest_suite *find_suite(const char *name, size_t len)
{
	for (const struct ktest_suite *const *s = __start_ktest_suites; s < __stop_ktest_suites; s++)
		if (strlen((*s)->name) == len && !strncmp((*s)->name, name, len))
			return *s;
	return NULL;
}

struct run_state {
	int index;              /* KTAP number of the last suite started */
	int unknown;            /* names in the selection that match no suite */
	struct totals tot;
};

/* Run the suite called name[0..len), or report that there is none. */
static void run_named(const char *name, size_t len, struct run_state *rs)
{
	const struct ktest_suite *s = find_suite(name, len);

	rs->index++;
	if (!s) {
		printk("# no test suite named '%.*s'\n", (int)len, name);
		printk("not ok %d %.*s\n", rs->index, (int)len, name);
		rs->unknown++;
		return;
	}
	run_suite(s, rs->index, &rs->tot);
}

int ktest_run(const char *selection)
{
	struct run_state rs = { 0, 0, { 0, 0, 0 } };
	bool all = !strcmp(selection, "all");
	const char *cursor, *name;
	size_t len;
	int nsuites = 0;

	if (all) {
		for (const struct ktest_suite *const *s = __start_ktest_suites; s < __stop_ktest_suites; s++)
			nsuites += !(*s)->manual;
	} else {
		for (cursor = selection; list_next(&cursor, &name, &len);)
			nsuites++;
	}
	printk("KTAP version 1\n");
	printk("1..%d\n", nsuites);
	if (all) {
		for (const struct ktest_suite *const *s = __start_ktest_suites; s < __stop_ktest_suites; s++)
			if (!(*s)->manual)
				run_suite(*s, ++rs.index, &rs.tot);
	} else {
		for (cursor = selection; list_next(&cursor, &name, &len);)
			run_named(name, len, &rs);
	}
	printk("# Totals: pass:%d fail:%d skip:%d total:%d\n", rs.tot.pass, rs.tot.fail,
	       rs.tot.skip, rs.tot.pass + rs.tot.fail + rs.tot.skip);
	return rs.tot.fail + rs.unknown;
}
