// SPDX-License-Identifier: MIT
/*
 * logring_test.c - kernel/logring.c (the log's ring) and kernel/logview.c
 * (the scroll-back's window of rows) on the host.
 */
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "logring.h"
#include "logview.h"

/* Everything the ring can give from its first whole line, as a string. */
static const char *kept(const struct logring *r)
{
	static char out[256];
	size_t n = logring_copy(r, 0, r->total, out, sizeof(out) - 1, NULL);

	out[n] = '\0';
	return out;
}

static void nothing_lost_before_the_ring_fills(struct ktest *t)
{
	char buf[32];
	struct logring r = { .buf = buf, .size = sizeof(buf) };

	logring_put(&r, "one\ntwo\n", 8);
	EXPECT_STREQ(t, kept(&r), "one\ntwo\n");
	EXPECT_EQ(t, r.dropped_lines, 0);
	EXPECT_EQ(t, logring_first(&r), 0);
}

static void wrap_drops_the_oldest_whole_lines_and_counts_them(struct ktest *t)
{
	char buf[16];
	struct logring r = { .buf = buf, .size = sizeof(buf) };
	char line[24];

	/* 10 lines of 6 bytes: 60 bytes through a 16-byte ring. */
	for (int i = 0; i < 10; i++) {
		snprintf(line, sizeof(line), "line%d\n", i);
		logring_put(&r, line, 6);
	}
	/* The last 16 bytes are "e7\nline8\nline9\n" minus ...: whole lines 8 and 9 stay. */
	EXPECT_STREQ(t, kept(&r), "line8\nline9\n");
	/* Lines 0-6 lost their '\n'; line 7 lost its start but not its end. */
	EXPECT_EQ(t, r.dropped_lines, 7);
	EXPECT_EQ(t, r.total, 60);
}

static void the_newest_line_is_never_lost(struct ktest *t)
{
	char buf[16];
	struct logring r = { .buf = buf, .size = sizeof(buf) };

	for (int i = 0; i < 100; i++)
		logring_put(&r, "abc\n", 4);
	logring_put(&r, "newest\n", 7);
	const char *k = kept(&r);
	size_t n = strlen(k);
	EXPECT_TRUE(t, n >= 7 && !strcmp(k + n - 7, "newest\n"));
	/* A partial line being written is kept too. */
	logring_put(&r, "part", 4);
	k = kept(&r);
	n = strlen(k);
	EXPECT_TRUE(t, n >= 4 && !strcmp(k + n - 4, "part"));
}

/* The very first byte overwritten counts like any other. */
static void the_first_byte_dropped_is_counted(struct ktest *t)
{
	char buf[4];
	struct logring r = { .buf = buf, .size = sizeof(buf) };

	logring_put(&r, "\nab\n", 4);       /* full, nothing lost yet */
	EXPECT_EQ(t, r.dropped_lines, 0);
	logring_put(&r, "c", 1);              /* the empty first line goes */
	EXPECT_EQ(t, r.dropped_lines, 1);
	EXPECT_EQ(t, logring_first(&r), 1);   /* "ab\n" is whole */
}

static void a_line_longer_than_the_ring_leaves_nothing_whole(struct ktest *t)
{
	char buf[8];
	struct logring r = { .buf = buf, .size = sizeof(buf) };

	logring_put(&r, "0123456789abcdef", 16);
	EXPECT_STREQ(t, kept(&r), "");
	EXPECT_EQ(t, logring_first(&r), 16);
}

static void copy_resumes_where_it_stopped(struct ktest *t)
{
	char buf[64], out[4], all[64] = "";
	struct logring r = { .buf = buf, .size = sizeof(buf) };
	u64 pos = 0;
	size_t n;

	logring_put(&r, "alpha\nbeta\ngamma\n", 17);
	while ((n = logring_copy(&r, pos, r.total, out, sizeof(out), &pos)))
		strncat(all, out, n);
	EXPECT_STREQ(t, all, "alpha\nbeta\ngamma\n");
}

static void last_lines_start_where_they_should(struct ktest *t)
{
	char buf[16], out[32];
	struct logring r = { .buf = buf, .size = sizeof(buf) };
	size_t n;

	logring_put(&r, "a\nb\nc\n", 6);
	EXPECT_EQ(t, logring_last_lines(&r, 1), 4);
	EXPECT_EQ(t, logring_last_lines(&r, 2), 2);
	EXPECT_EQ(t, logring_last_lines(&r, 99), 0);
	EXPECT_EQ(t, logring_last_lines(&r, 0), 6);
	logring_put(&r, "d", 1);                /* a partial line counts as one */
	EXPECT_EQ(t, logring_last_lines(&r, 1), 6);
	/* Wrapped exactly at a line start: that line is whole, and kept. */
	logring_put(&r, "\n01234567890\n", 13);        /* 20 bytes through 16: "a\nb\n" go */
	n = logring_copy(&r, 0, r.total, out, sizeof(out) - 1, NULL);
	out[n] = '\0';
	EXPECT_STREQ(t, out, "c\nd\n01234567890\n");
	EXPECT_EQ(t, r.dropped_lines, 2);
}

/* The window as strings, one per row, trailing blanks cut. */
static void window(const char *text, u32 cols, u32 rows, u32 back, char lines[][16],
		   u32 *clamped)
{
	char out[16 * 16];

	*clamped = logview_render(text, strlen(text), cols, rows, back, out);
	for (u32 r = 0; r < rows; r++) {
		u32 n = cols;
		while (n && out[r * cols + n - 1] == ' ')
			n--;
		memcpy(lines[r], out + r * cols, n);
		lines[r][n] = '\0';
	}
}

static void view_shows_the_bottom_then_scrolls_up(struct ktest *t)
{
	const char *text = "a\nb\nc\nd\ne\n";      /* 6 rows: a..e and the empty last one */
	char l[3][16];
	u32 back;

	EXPECT_EQ(t, logview_rows(text, strlen(text), 10), 6);
	window(text, 10, 3, 0, l, &back);
	EXPECT_STREQ(t, l[0], "d");
	EXPECT_STREQ(t, l[1], "e");
	EXPECT_STREQ(t, l[2], "");
	EXPECT_EQ(t, back, 0);
	window(text, 10, 3, 2, l, &back);
	EXPECT_STREQ(t, l[0], "b");
	EXPECT_STREQ(t, l[2], "d");
	window(text, 10, 3, 99, l, &back);      /* past the top: the top */
	EXPECT_EQ(t, back, 3);
	EXPECT_STREQ(t, l[0], "a");
	EXPECT_STREQ(t, l[2], "c");
}

static void view_wraps_long_lines_and_expands_tabs(struct ktest *t)
{
	char l[4][16];
	u32 back;

	EXPECT_EQ(t, logview_rows("abcdefghij\n", 11, 4), 4);       /* abcd efgh ij + empty */
	window("abcdefghij\n", 4, 4, 0, l, &back);
	EXPECT_STREQ(t, l[0], "abcd");
	EXPECT_STREQ(t, l[1], "efgh");
	EXPECT_STREQ(t, l[2], "ij");
	window("x\ty\n", 12, 2, 0, l, &back);
	EXPECT_STREQ(t, l[0], "x       y");
	window("ab\b \bc\rZ\n", 12, 2, 0, l, &back);               /* the line editor's erase */
	EXPECT_STREQ(t, l[0], "Zc");
}

static void view_of_a_short_text_starts_at_the_top(struct ktest *t)
{
	char l[4][16];
	u32 back;

	window("only\n", 10, 4, 5, l, &back);
	EXPECT_EQ(t, back, 0);
	EXPECT_STREQ(t, l[0], "only");
	EXPECT_STREQ(t, l[1], "");
}

static const struct ktest_case logring_cases[] = {
	KTEST(nothing_lost_before_the_ring_fills),
	KTEST(wrap_drops_the_oldest_whole_lines_and_counts_them),
	KTEST(the_newest_line_is_never_lost),
	KTEST(the_first_byte_dropped_is_counted),
	KTEST(a_line_longer_than_the_ring_leaves_nothing_whole),
	KTEST(copy_resumes_where_it_stopped),
	KTEST(last_lines_start_where_they_should),
	KTEST(view_shows_the_bottom_then_scrolls_up),
	KTEST(view_wraps_long_lines_and_expands_tabs),
	KTEST(view_of_a_short_text_starts_at_the_top),
	{}
};
KTEST_SUITE(logring, logring_cases);
