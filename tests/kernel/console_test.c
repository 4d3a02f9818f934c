/*
 * console_test.c - printk's log and timestamps, and the framebuffer console.
 */
#include "fbcon.h"
#include "format.h"
#include "fw_cfg.h"
#include "kstring.h"
#include "ktest.h"
#include "logring.h"
#include "mb2.h"
#include "param.h"
#include "printk.h"
#include "serial.h"
#include "time.h"
#include "x86.h"

extern struct boot_info boot_info;

static char tail[512];

#define MAX_LINE_TEST 400

static void log_keeps_what_printk_said(struct ktest *t)
{
	printk("console_test: marker %d\n", 4242);
	printk_log_tail(tail, sizeof(tail));
	EXPECT_TRUE(t, strstr(tail, "console_test: marker 4242\n") != NULL);
}

/*
 * A line the consoles show adds the time their write() took to
 * printk_console_cycles() (the boot line's "ms of it writing to the
 * consoles"): more than nothing, no more than the whole printk.
 */
static void console_time_counts_each_line_written(struct ktest *t)
{
	if (!printk_console_shows(6))
		KTEST_SKIP(t, "loglevel= hides info lines from the consoles");
	u64 before = printk_console_cycles(), t0 = rdtsc();

	pr_info("console_test: a line whose writing is timed\n");
	u64 t1 = rdtsc(), after = printk_console_cycles();

	EXPECT_GT(t, after, before);
	EXPECT_LE(t, after - before, t1 - t0);
}

/* "[sssss.uuuuuu] " on every line: 15 characters, ']' at index 13. */
static void every_line_has_a_fixed_width_timestamp(struct ktest *t)
{
	printk("console_test: line one\nconsole_test: ");
	printk("line two\n");
	printk_log_tail(tail, sizeof(tail));
	char *one = strstr(tail, "console_test: line one");
	char *two = strstr(tail, "console_test: line two");
	ASSERT_TRUE(t, one && two && one - tail >= 15 && two - tail >= 15);
	EXPECT_EQ(t, one[-15], '[');
	EXPECT_EQ(t, one[-2], ']');
	EXPECT_EQ(t, two[-15], '[');
	EXPECT_EQ(t, two[-2], ']');
	EXPECT_EQ(t, one[-9], '.');
}

static void clock_runs_forward(struct ktest *t)
{
	u64 a = ktime_ns();
	udelay(1000);
	u64 b = ktime_ns();

	EXPECT_GT(t, tsc_khz, 1000);                    /* faster than 1 MHz */
	EXPECT_GE(t, b - a, 1000 * 1000);               /* udelay(1000) lasted >= 1 ms */
}

/* Draw a glyph and read every pixel back: ink where the font has bits. */
static void framebuffer_shows_the_glyph(struct ktest *t)
{
	struct fbcon_info fi;

	fbcon_get_info(&fi);
	if (!fi.active)
		KTEST_SKIP(t, "no framebuffer console");
	if (fi.text_mode)
		KTEST_SKIP(t, "VGA text mode: no pixels to check");
	u32 col = fi.cols - 1, row = 0;
	fbcon_draw_cell(col, row, '@');
	u32 wrong = fbcon_cell_mismatches(col, row, '@');
	fbcon_draw_cell(col, row, ' ');
	EXPECT_EQ(t, wrong, 0);
	EXPECT_NE(t, fi.fg, fi.bg);
}

static void uefi_boot_has_a_framebuffer(struct ktest *t)
{
	struct fbcon_info fi;

	if (!boot_info.efi)
		KTEST_SKIP(t, "BIOS boot");
	fbcon_get_info(&fi);
	EXPECT_TRUE(t, boot_info.has_fb);
	EXPECT_TRUE(t, fi.active);
	EXPECT_FALSE(t, fi.text_mode);
}

static void snprintf_in_the_kernel(struct ktest *t)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%5d|%-4s|%#x|%p", -42, "ab", 255, (void *)0x1000);
	EXPECT_STREQ(t, buf, "  -42|ab  |0xff|0x0000000000001000");
}

static char whole_log[LOG_BUF_SIZE];

/*
 * dmesg's source holds the whole boot, from the banner on, and every line
 * printed since, shown on the consoles or not: 200 numbered debug lines
 * (below the console log level) are all there, in order.
 */
static void the_log_keeps_every_line_printed(struct ktest *t)
{
	u64 kept, total, dropped;
	char want[48];

	for (int i = 0; i < 200; i++)
		pr_debug("console_test: kept line %d of 200\n", i);
	size_t n = printk_log_copy(whole_log, sizeof(whole_log) - 1);
	whole_log[n] = '\0';
	printk_log_stats(&kept, &total, &dropped);
	EXPECT_EQ(t, dropped, 0);               /* a test boot logs far less than the ring */
	EXPECT_EQ(t, kept, total);
	EXPECT_TRUE(t, strstr(whole_log, "======== testbed ") != NULL);
	const char *at = whole_log;
	for (int i = 0; i < 200 && at; i++) {
		snprintf(want, sizeof(want), "console_test: kept line %d of 200\n", i);
		at = strstr(at, want);
		if (!at)
			ktest_log(t, "missing: %s", want);
	}
	EXPECT_TRUE(t, at != NULL);
}

/* The same ring code on a small ring: the oldest lines go, counted; the newest stay. */
static void a_wrapped_log_counts_what_it_dropped(struct ktest *t)
{
	static char small[64];
	struct logring r = { .buf = small, .size = sizeof(small) };
	char line[32], out[80];

	for (int i = 0; i < 20; i++) {
		int len = snprintf(line, sizeof(line), "line %02d\n", i);      /* 8 bytes */
		logring_put(&r, line, (size_t)len);
	}
	size_t n = logring_copy(&r, 0, r.total, out, sizeof(out) - 1, NULL);
	out[n] = '\0';
	EXPECT_EQ(t, r.dropped_lines, 12);      /* 160 bytes through 64: 8 whole lines stay */
	EXPECT_STREQ(t, out, "line 12\nline 13\nline 14\nline 15\nline 16\nline 17\n"
			     "line 18\nline 19\n");
}

/* Page Up puts the log's view on the screen, with its status line; live again after. */
static void scroll_back_shows_the_log_view(struct ktest *t)
{
	struct fbcon_info fi;
	u32 wrong = 0;

	fbcon_get_info(&fi);
	if (!fi.active)
		KTEST_SKIP(t, "no framebuffer console");
	if (fi.text_mode)
		KTEST_SKIP(t, "VGA text mode: no pixels to check");
	fbcon_view_scroll((int)fi.rows);
	EXPECT_TRUE(t, fbcon_viewing());
	/* The status line "-- log: rows ..." starts the bottom row. */
	wrong = fbcon_cell_mismatches(0, fi.rows - 1, '-');
	fbcon_view_scroll(-(int)fi.rows * 100);  /* past the bottom: live */
	EXPECT_FALSE(t, fbcon_viewing());
	EXPECT_EQ(t, wrong, 0);
}

/* A progress line is drawn on the cursor's empty row, and never logged. */
static void progress_line_is_shown_not_logged(struct ktest *t)
{
	struct fbcon_info fi;
	u32 wrong = 0;

	fbcon_get_info(&fi);
	if (!fi.active)
		KTEST_SKIP(t, "no framebuffer console");
	if (fi.text_mode)
		KTEST_SKIP(t, "VGA text mode: no pixels to check");
	printk("console_test: before the progress line\n");     /* the cursor at a row start */
	fbcon_get_info(&fi);
	printk_progress("@progress %d", 77);
	wrong = fbcon_cell_mismatches(0, fi.row, '@');
	printk("console_test: after the progress line\n");      /* takes its place */
	printk_log_tail(tail, sizeof(tail));
	EXPECT_EQ(t, wrong, 0);
	EXPECT_TRUE(t, strstr(tail, "progress 77") == NULL);
	EXPECT_TRUE(t, strstr(tail, "console_test: after the progress line") != NULL);
}

/* Draw-or-not of one cell: does cell (col, row) show glyph c? */
static bool cell_shows(u32 col, u32 row, char c)
{
	return fbcon_cell_mismatches(col, row, c) == 0;
}

/* A line longer than the screen goes on at a word, indented past the timestamp. */
static void long_lines_wrap_at_a_word(struct ktest *t)
{
	static char line[MAX_LINE_TEST];
	struct fbcon_info fi;
	size_t n = 0;

	fbcon_get_info(&fi);
	if (!fi.active)
		KTEST_SKIP(t, "no framebuffer console");
	if (fi.text_mode || fi.cols <= 40 || fi.cols + 40 > MAX_LINE_TEST)
		KTEST_SKIP(t, "VGA text mode or an odd width");
	while (n < fi.cols)                     /* "@@@@@@@ " words: more than a row */
		n += (size_t)snprintf(line + n, sizeof(line) - n, "@@@@@@@ ");
	printk("console_test: %s\n", line);
	fbcon_get_info(&fi);
	u32 row = fi.row - 1;                   /* the wrapped part's row */
	EXPECT_TRUE(t, cell_shows(0, row, ' '));
	EXPECT_TRUE(t, cell_shows(16, row, ' '));
	EXPECT_TRUE(t, cell_shows(17, row, '@'));
	/* A whole word was carried: seven '@' then a blank. */
	for (u32 col = 17; col < 24; col++)
		EXPECT_TRUE(t, cell_shows(col, row, '@'));
	EXPECT_TRUE(t, cell_shows(24, row, ' '));
}

/*
 * The screen shows the grid, every cell: the boot's text drawn in one pass
 * once the CPUs were up, then lines enough for a scroll, which draws only
 * the cells that change.
 */
static void the_screen_shows_every_cell_of_the_grid(struct ktest *t)
{
	struct fbcon_info fi;
	u32 wrong_cells = 0, first_col = 0, first_row = 0;

	fbcon_get_info(&fi);
	if (!fi.active)
		KTEST_SKIP(t, "no framebuffer console");
	if (fi.text_mode)
		KTEST_SKIP(t, "VGA text mode: no pixels to check");
	for (u32 i = 0; i < fi.rows / 4 + 2; i++)
		printk("console_test: scroll line %u%s\n", i, i % 2 ? " and a longer tail" : "");
	for (u32 row = 0; row < fi.rows; row++) {
		for (u32 col = 0; col < fi.cols; col++) {
			if (fbcon_cell_mismatches(col, row, fbcon_cell(col, row)) && !wrong_cells++) {
				first_col = col;
				first_row = row;
			}
		}
	}
	if (wrong_cells)
		ktest_log(t, "%u cells differ from the grid, the first at column %u row %u",
			  wrong_cells, first_col, first_row);
	EXPECT_EQ(t, wrong_cells, 0);
}

/*
 * The serial console waits for THRE once per FIFO load: with a 16550A's
 * FIFO (QEMU's UART is one) at most one LSR read per 8 bytes written (16
 * per load, halved for the line's start and end), without one a read per
 * byte. Other CPUs printing meanwhile add bytes and reads alike.
 */
static void serial_waits_once_per_fifo_load(struct ktest *t)
{
	struct serial_stats before, after;
	u64 bytes, reads;

	serial_get_stats(&before);
	if (!before.tx_burst)
		KTEST_SKIP(t, "no serial console");
	pr_info("console: a line of 100 characters to count LSR reads by: "
		"0123456789012345678901234567890123456789012\n");
	serial_get_stats(&after);
	bytes = after.bytes - before.bytes;
	reads = after.lsr_reads - before.lsr_reads;
	ktest_log(t, "%llu bytes, %llu LSR reads, %u bytes per wait", bytes, reads,
		  before.tx_burst);
	EXPECT_TRUE(t, bytes >= 100);
	if (fw_cfg_present())
		EXPECT_EQ(t, before.tx_burst, 16);      /* QEMU's UART is a 16550A */
	if (before.tx_burst == 16)
		EXPECT_TRUE(t, reads * 8 <= bytes);
	else
		EXPECT_TRUE(t, reads >= bytes);
}

static const struct ktest_case console_cases[] = {
	KTEST(the_screen_shows_every_cell_of_the_grid),        /* first: before any full redraw */
	KTEST(log_keeps_what_printk_said),
	KTEST(console_time_counts_each_line_written),
	KTEST(every_line_has_a_fixed_width_timestamp),
	KTEST(clock_runs_forward),
	KTEST(framebuffer_shows_the_glyph),
	KTEST(uefi_boot_has_a_framebuffer),
	KTEST(snprintf_in_the_kernel),
	KTEST(the_log_keeps_every_line_printed),
	KTEST(a_wrapped_log_counts_what_it_dropped),
	KTEST(scroll_back_shows_the_log_view),
	KTEST(progress_line_is_shown_not_logged),
	KTEST(long_lines_wrap_at_a_word),
	KTEST(serial_waits_once_per_fifo_load),
	{},
};
KTEST_SUITE(console, console_cases);
