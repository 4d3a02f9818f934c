// SPDX-License-Identifier: MIT
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
 * A selection is "all" (every suite not marked manual) or words separated
 * by commas, each "suite" or "suite.case", where either part may be a glob
 * with * and ?: "rcu", "rcu*", "rcu.reader_*", "*.leaks_nothing". A suite
 * named exactly runs even if it is manual; a glob picks the others only.
 * Suites run in the order they are linked, each once, with the cases the
 * selection picks.
 *
 * A suite passes when none of its cases failed (skips are fine). A word of
 * the selection that picks nothing is reported as a failed suite, so a
 * typo in test= cannot silently run nothing.
 */
#include "ktest.h"
#include "format.h"
#include "kstring.h"
#include "printk.h"

struct totals {
	int pass, fail, skip;
};

static struct ktest_summary last_summary;

const struct ktest_summary *ktest_last_summary(void)
{
	return &last_summary;
}

/* Remember a failed case by name, while there is room. */
static void note_failed(const char *suite, const char *name)
{
	struct ktest_summary *s = &last_summary;

	if (s->nr_failed_names < KTEST_FAILED_NAMES)
		snprintf(s->failed[s->nr_failed_names++], sizeof(s->failed[0]), "%s.%s", suite,
			 name);
}

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

void ktest_skip(struct ktest *t, const char *reason)
{
	if (t->status == KTEST_FAIL) {
		ktest_log(t, "skipped after a failure (%s): the case stays failed", reason);
		return;
	}
	t->status = KTEST_SKIP;
	t->skip_reason = reason;
}

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fail_header(t, file, line);
	ktest_log(t, "  %s", why);
}

enum ktest_status ktest_run_quiet(void (*fn)(struct ktest *t))
{
	struct ktest t = { .name = "scratch", .status = KTEST_PASS, .quiet = true };

	fn(&t);
	return t.status;
}

static const struct ktest_hooks *hooks;

void ktest_set_hooks(const struct ktest_hooks *h)
{
	hooks = h;
}

/* The leak check, as the suite's last case. */
static void leaks_nothing(struct ktest *t)
{
	hooks->after_suite(t);
}

/* --- which suites and cases a selection names ---------------------------------- */

static bool has_glob(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] == '*' || p[i] == '?')
			return true;
	return false;
}

bool ktest_glob(const char *pattern, size_t len, const char *name)
{
	if (!len)
		return !*name;
	if (*pattern == '*') {
		for (const char *s = name;; s++) {
			if (ktest_glob(pattern + 1, len - 1, s))
				return true;
			if (!*s)
				return false;
		}
	}
	if (!*name || (*pattern != '?' && *pattern != *name))
		return false;
	return ktest_glob(pattern + 1, len - 1, name + 1);
}

/* One word of a selection: "suite" or "suite.case", either part a glob. */
struct entry {
	const char *suite, *cases;
	size_t suite_len, cases_len;    /* cases_len 0: every case */
	bool all;                       /* the word "all" */
};

static struct entry parse_entry(const char *word, size_t len)
{
	struct entry e = { .suite = word, .suite_len = len };

	for (size_t i = 0; i < len; i++) {
		if (word[i] == '.') {
			e.suite_len = i;
			e.cases = word + i + 1;
			e.cases_len = len - i - 1;
			break;
		}
	}
	e.all = len == 3 && !strncmp(word, "all", 3);
	return e;
}

/* A named suite runs even when manual; "all" and globs pick the others only. */
static bool entry_picks_suite(const struct entry *e, const struct ktest_suite *s)
{
	if (e->all)
		return !s->manual;
	if (!has_glob(e->suite, e->suite_len))
		return strlen(s->name) == e->suite_len && !strncmp(s->name, e->suite, e->suite_len);
	return !s->manual && ktest_glob(e->suite, e->suite_len, s->name);
}

bool ktest_selects(const char *selection, const struct ktest_suite *s, const char *case_name)
{
	const char *cursor = selection, *word;
	size_t len;

	while (list_next(&cursor, &word, &len)) {
		struct entry e = parse_entry(word, len);
		if (entry_picks_suite(&e, s) &&
		    (!e.cases_len || ktest_glob(e.cases, e.cases_len, case_name)))
			return true;
	}
	return false;
}

static int count_selected(const char *selection, const struct ktest_suite *s)
{
	int n = 0;

	for (int i = 0; s->cases[i].run; i++)
		n += ktest_selects(selection, s, s->cases[i].name);
	return n;
}

/* --- running ------------------------------------------------------------------ */

/* Run one case as number `number`; print its result, count it in *st. */
static void run_case(const struct ktest_suite *s, const struct ktest_case *c, int number,
		     struct totals *st)
{
	struct ktest t = { .name = c->name, .status = KTEST_PASS };

	/* kselftest's "# RUN": a case that never ends (a panic, a hang) is named */
	printk("    # RUN %s\n", c->name);
	if (hooks && hooks->before_case)
		hooks->before_case();
	c->run(&t);
	if (hooks && hooks->after_case)
		hooks->after_case();
	switch (t.status) {
	case KTEST_PASS:
		st->pass++;
		printk("    ok %d %s\n", number, t.name);
		break;
	case KTEST_SKIP:
		st->skip++;
		printk("    ok %d %s # SKIP %s\n", number, t.name, t.skip_reason ? t.skip_reason : "");
		break;
	case KTEST_FAIL:
		st->fail++;
		note_failed(s->name, t.name);
		printk("    not ok %d %s\n", number, t.name);
		break;
	}
}

/* Run the selected cases of one suite as subtest number `index`; add them to *tot. */
static void run_suite(const struct ktest_suite *s, const char *selection, int index,
		      struct totals *tot)
{
	static const struct ktest_case leak_case = KTEST(leaks_nothing);
	struct totals st = { 0, 0, 0 };
	bool leaks = hooks && hooks->after_suite;
	int n = count_selected(selection, s) + (leaks ? 1 : 0), number = 0;

	printk("    KTAP version 1\n");
	printk("    # Subtest: %s\n", s->name);
	printk("    1..%d\n", n);
	if (leaks)
		hooks->before_suite();
	for (int i = 0; s->cases[i].run; i++)
		if (ktest_selects(selection, s, s->cases[i].name))
			run_case(s, &s->cases[i], ++number, &st);
	if (leaks)
		run_case(s, &leak_case, ++number, &st);
	printk("# %s: pass:%d fail:%d skip:%d total:%d\n", s->name, st.pass, st.fail, st.skip, n);
	printk("%s %d %s\n", st.fail ? "not ok" : "ok", index, s->name);
	tot->pass += st.pass;
	tot->fail += st.fail;
	tot->skip += st.skip;
}

#define FOR_EACH_SUITE(s) \
	for (const struct ktest_suite *const *s = __start_ktest_suites; s < __stop_ktest_suites; s++)

/*
 * Words of the selection that select nothing: an unknown name, a glob or a
 * case pattern that matches nothing. Each is one failed suite in the
 * report, so a typo in test= cannot silently run nothing.
 */
static bool word_selects_nothing(const char *word, size_t len)
{
	struct entry e = parse_entry(word, len);

	FOR_EACH_SUITE(s)
		if (entry_picks_suite(&e, *s))
			for (int i = 0; (*s)->cases[i].run; i++)
				if (!e.cases_len || ktest_glob(e.cases, e.cases_len, (*s)->cases[i].name))
					return false;
	return true;
}

const char *ktest_first_unmatched(const char *selection, size_t *len)
{
	const char *cursor = selection, *word;

	while (list_next(&cursor, &word, len))
		if (word_selects_nothing(word, *len))
			return word;
	return NULL;
}

void ktest_suite_names(char *buf, size_t size)
{
	struct words names = words_start(buf, size);

	FOR_EACH_SUITE(s)
		if (!(*s)->manual && !words_add(&names, (*s)->name, strlen((*s)->name)))
			break;
}

int ktest_list(const char *selection)
{
	int n = 0;

	FOR_EACH_SUITE(s)
		for (int i = 0; (*s)->cases[i].run; i++)
			if (ktest_selects(selection, *s, (*s)->cases[i].name)) {
				printk("%s.%s\n", (*s)->name, (*s)->cases[i].name);
				n++;
			}
	return n;
}

static const char *running_selection;

const char *ktest_selection(void)
{
	return running_selection;
}

int ktest_run(const char *selection)
{
	struct totals tot = { 0, 0, 0 };
	const char *cursor, *word;
	size_t len;
	int nsuites = 0, index = 0, unknown = 0;

	memset(&last_summary, 0, sizeof(last_summary));
	running_selection = selection;
	FOR_EACH_SUITE(s)
		nsuites += count_selected(selection, *s) > 0;
	for (cursor = selection; list_next(&cursor, &word, &len);)
		nsuites += word_selects_nothing(word, len);
	printk("KTAP version 1\n");
	printk("1..%d\n", nsuites);
	FOR_EACH_SUITE(s)
		if (count_selected(selection, *s))
			run_suite(*s, selection, ++index, &tot);
	for (cursor = selection; list_next(&cursor, &word, &len);) {
		if (!word_selects_nothing(word, len))
			continue;
		printk("# no test suite or case matches '%.*s'\n", (int)len, word);
		printk("not ok %d %.*s\n", ++index, (int)len, word);
		unknown++;
	}
	printk("# Totals: pass:%d fail:%d skip:%d total:%d\n", tot.pass, tot.fail,
	       tot.skip, tot.pass + tot.fail + tot.skip);
	last_summary.pass = tot.pass;
	last_summary.fail = tot.fail;
	last_summary.skip = tot.skip;
	last_summary.unknown = unknown;
	return tot.fail + unknown;
}
