// SPDX-License-Identifier: MIT
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
#include "percpu.h"
#include "printk.h"
#include "sched.h"
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


/*
 * A console of the tests' own, "probe": it keeps what it is given and, per
 * write(), the CPU and whether interrupts were on, and on request prints a
 * line from inside a write (as an interrupt handler may while this CPU
 * writes to the consoles) or holds a write until released.
 */
#define PROBE_WRITES 64

static struct {
	char out[16384];
	u32 n;                          /* bytes in out[] */
	u32 writes;
	u32 write_start[PROBE_WRITES];  /* where each write's bytes begin in out[] */
	u32 write_cpu[PROBE_WRITES];
	bool write_irqs_on[PROBE_WRITES];
	const char *nest_after;         /* a write with this text prints nest_line */
	const char *nest_line;
	const char *hold_at;            /* a write with this text waits for release */
	bool hold_for_waiter;           /* ... or for a CPU waiting to take the consoles over */
	volatile bool holding, released, saw_release, saw_waiter;
} probe;

static bool contains(const char *s, size_t n, const char *what)
{
	size_t w = strlen(what);

	for (size_t i = 0; i + w <= n; i++)
		if (!memcmp(s + i, what, w))
			return true;
	return false;
}

static void probe_write(struct console *con, const char *s, size_t n)
{
	(void)con;
	if (probe.writes < PROBE_WRITES) {
		probe.write_start[probe.writes] = probe.n;
		probe.write_cpu[probe.writes] = smp_processor_id();
		probe.write_irqs_on[probe.writes] = read_rflags() & RFLAGS_IF;
		probe.writes++;
	}
	for (size_t i = 0; i < n && probe.n + 1 < sizeof(probe.out); i++)
		probe.out[probe.n++] = s[i];
	probe.out[probe.n] = '\0';
	if (probe.nest_after && contains(s, n, probe.nest_after)) {
		probe.nest_after = NULL;
		printk("%s", probe.nest_line);
	}
	if (probe.hold_at && contains(s, n, probe.hold_at)) {
		u64 until = ktime_ns() + 2000000000ULL; /* a bound, not a measure */

		probe.hold_at = NULL;
		probe.holding = true;
		while (!probe.released && ktime_ns() < until &&
		       !(probe.hold_for_waiter && printk_console_waiter() != ~0u))
			cpu_relax();
		probe.saw_release = probe.released;
		probe.saw_waiter = printk_console_waiter() != ~0u;
		probe.holding = false;
	}
}

static struct console probe_console = { .name = "probe", .write = probe_write };

static void probe_start(void)
{
	memset(&probe, 0, sizeof(probe));
	console_register(&probe_console, false);
	probe_console.enabled = true;   /* whatever console= chose */
}

/* The write that wrote out[at]: its index, or -1. */
static int probe_write_at(const char *at)
{
	u32 off = (u32)(at - probe.out);
	int w = -1;

	for (u32 i = 0; i < probe.writes && i < PROBE_WRITES; i++)
		if (probe.write_start[i] <= off)
			w = (int)i;
	return w;
}

/*
 * The consoles are written with interrupts as printk()'s caller had them:
 * on in a thread, off where the caller had turned them off. 2.6.14 kept
 * them off for every write (a 60-byte line at 115200 baud is 5 ms).
 */
static void consoles_write_with_interrupts_as_the_caller_had_them(struct ktest *t)
{
	if (!printk_console_shows(6))
		KTEST_SKIP(t, "loglevel= hides info lines from the consoles");
	probe_start();
	pr_info("console_test: written with interrupts on\n");
	u64 flags = irq_save();
	pr_info("console_test: written with interrupts off\n");
	irq_restore(flags);
	console_unregister(&probe_console);

	const char *on = strstr(probe.out, "with interrupts on");
	const char *off = strstr(probe.out, "with interrupts off");
	ASSERT_TRUE(t, on && off);
	int w_on = probe_write_at(on), w_off = probe_write_at(off);
	ASSERT_TRUE(t, w_on >= 0 && w_off >= 0);
	EXPECT_EQ(t, probe.write_cpu[w_on], smp_processor_id());       /* nobody else printed it */
	EXPECT_TRUE(t, probe.write_irqs_on[w_on]);
	EXPECT_FALSE(t, probe.write_irqs_on[w_off]);
}

/*
 * A printk from inside a console's write (an interrupt's, while this CPU
 * writes) is queued, not written half-way through: it comes whole after
 * the line being written, before the outer printk() returns.
 */
static void a_printk_inside_a_console_write_comes_after_it(struct ktest *t)
{
	if (!printk_console_shows(6))
		KTEST_SKIP(t, "loglevel= hides info lines from the consoles");
	probe_start();
	probe.nest_after = "console_test: the outer line";
	probe.nest_line = "console_test: the line printed inside the write\n";
	pr_info("console_test: the outer line, being written\n");
	static char seen[sizeof(probe.out)];
	memcpy(seen, probe.out, sizeof(seen));  /* as the outer printk() left it */
	console_unregister(&probe_console);

	const char *outer = strstr(seen, "console_test: the outer line, being written\n");
	const char *inner = strstr(seen, "console_test: the line printed inside the write\n");
	ASSERT_TRUE(t, outer != NULL);
	ASSERT_TRUE(t, inner != NULL);
	EXPECT_TRUE(t, inner > outer);
	EXPECT_EQ(t, inner[-2], ']');           /* a line of its own, stamped */
}

static void print_line(void *line)
{
	pr_info("%s", (const char *)line);
}

/*
 * Another online CPU prints line and so owns the consoles; the probe holds
 * that write (at hold_at) until released. Returns its thread once the
 * write is held, or NULL (the thread could not be made, or it never held
 * within 5 s); *cpu is the other CPU, MAX_CPUS if there is none.
 */
static struct thread *start_held_owner(const char *line, const char *hold_at, u32 *cpu)
{
	*cpu = MAX_CPUS;
	for (u32 c = 0; c < nr_cpus && *cpu == MAX_CPUS; c++)
		if (c != smp_processor_id() && percpu[c].online)
			*cpu = c;
	if (*cpu == MAX_CPUS)
		return NULL;
	probe.hold_at = hold_at;
	struct thread *th = thread_create("console_owner", print_line, (void *)line, *cpu);
	u64 until = ktime_ns() + 5000000000ULL;

	while (th && !probe.holding && ktime_ns() < until)
		msleep(1);
	return th;
}

/*
 * While another CPU owns the consoles (its write held here), this CPU's
 * printk() queues its line and returns: the owner writes it after its own.
 * With one lock held across the writes, it would wait for the owner's
 * write, and the owner would never see it return.
 */
static void a_printk_does_not_wait_for_another_cpus_console_write(struct ktest *t)
{
	u32 other;

	if (!printk_console_shows(6))
		KTEST_SKIP(t, "loglevel= hides info lines from the consoles");
	probe_start();
	struct thread *th = start_held_owner("console_test: a line another CPU is slow to write\n",
					     "another CPU is slow to write", &other);
	if (other == MAX_CPUS) {
		console_unregister(&probe_console);
		KTEST_SKIP(t, "one CPU");
	}
	ASSERT_TRUE(t, th != NULL);
	bool held = probe.holding;

	pr_info("console_test: a line printed meanwhile\n");
	probe.released = true;
	thread_join(th);
	console_unregister(&probe_console);

	ASSERT_TRUE(t, held);
	EXPECT_TRUE(t, probe.saw_release);      /* printk() came back while the write went on */
	const char *slow = strstr(probe.out, "another CPU is slow to write");
	const char *mine = strstr(probe.out, "a line printed meanwhile");
	ASSERT_TRUE(t, slow && mine);
	EXPECT_TRUE(t, mine > slow);
	int w = probe_write_at(mine);
	ASSERT_TRUE(t, w >= 0);
	EXPECT_EQ(t, probe.write_cpu[w], other);        /* the owner wrote it */
}

/*
 * A printing thread that finds more than 4 KiB queued under another CPU's
 * ownership waits and is handed the consoles after the owner's current
 * chunk (Steven Rostedt's console owner and waiter): the owner does not write
 * everyone's text for ever. Here the owner's write is held until this
 * CPU waits; then this CPU writes its own lines.
 */
static void a_printing_thread_takes_over_a_long_queue(struct ktest *t)
{
	struct thread *me = current_thread();
	struct cpumask was = me->affinity, here = { { 0 } };
	u32 self, other;

	if (!printk_console_shows(6))
		KTEST_SKIP(t, "loglevel= hides info lines from the consoles");
	/*
	 * This thread stays on this CPU: start_held_owner() sleeps, and a
	 * wakeup may put it on a less loaded CPU, which would then write
	 * the queue (docs/performance.md).
	 */
	cpumask_set(&here, smp_processor_id());
	thread_set_affinity(me, &here);
	self = smp_processor_id();
	probe_start();
	probe.hold_for_waiter = true;
	struct thread *th = start_held_owner("console_test: the owner's held line\n",
					     "the owner's held line", &other);
	if (other == MAX_CPUS || !th) {
		console_unregister(&probe_console);
		thread_set_affinity(me, &was);
		if (other == MAX_CPUS)
			KTEST_SKIP(t, "one CPU");
		ASSERT_TRUE(t, th != NULL);
	}
	bool held = probe.holding;

	for (int i = 0; i < 80; i++)    /* about 7 KiB */
		pr_info("console_test: queued line %02d of 80, long enough to fill the queue soon\n", i);
	probe.released = true;
	thread_join(th);
	console_unregister(&probe_console);
	thread_set_affinity(me, &was);

	ASSERT_TRUE(t, held);
	EXPECT_TRUE(t, probe.saw_waiter);       /* this CPU waited to take over */
	const char *first = strstr(probe.out, "queued line 00 of 80");
	const char *last = strstr(probe.out, "queued line 79 of 80");
	ASSERT_TRUE(t, first && last);
	EXPECT_TRUE(t, first < last);
	/* Queued while the owner's write was held, after its chunk: handed over, written here. */
	int w = probe_write_at(first);
	ASSERT_TRUE(t, w >= 0);
	EXPECT_EQ(t, probe.write_cpu[w], self);
	w = probe_write_at(last);
	ASSERT_TRUE(t, w >= 0);
	EXPECT_EQ(t, probe.write_cpu[w], self);
}

/*
 * A UART that stops taking bytes (THRE never set, faked here) costs one
 * full wait, then a single LSR read per load until it takes bytes again:
 * two lines and the warning cost at most TX_SPIN_MAX (100000) reads plus
 * one per byte, where every load waiting the whole bound would cost about
 * eight times that. Then it recovers, and says so.
 */
static void a_stalled_uart_costs_one_wait(struct ktest *t)
{
	struct serial_stats before, stalled, after;

	serial_get_stats(&before);
	if (!before.tx_burst)
		KTEST_SKIP(t, "no serial console");
	if (!printk_console_shows(6))
		KTEST_SKIP(t, "loglevel= hides info lines from the consoles");
	serial_fake_stall(true);
	pr_info("console_test: a line the stalled UART is given, long enough for several "
		"loads of its FIFO\n");
	pr_info("console_test: and a second one, written without waiting for it\n");
	serial_get_stats(&stalled);
	serial_fake_stall(false);
	pr_info("console_test: a line after the UART takes bytes again\n");
	serial_get_stats(&after);
	printk_log_tail(tail, sizeof(tail));

	u64 bytes = stalled.bytes - before.bytes, reads = stalled.lsr_reads - before.lsr_reads;

	ktest_log(t, "stalled: %llu bytes, %llu LSR reads", bytes, reads);
	EXPECT_EQ(t, stalled.stalls, before.stalls + 1);
	EXPECT_TRUE(t, bytes >= 130);
	EXPECT_LE(t, reads, 100000 + bytes);
	EXPECT_EQ(t, after.recoveries, before.recoveries + 1);
	EXPECT_TRUE(t, strstr(tail, "takes bytes again") != NULL);
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
	KTEST(consoles_write_with_interrupts_as_the_caller_had_them),
	KTEST(a_printk_inside_a_console_write_comes_after_it),
	KTEST(a_printk_does_not_wait_for_another_cpus_console_write),
	KTEST(a_printing_thread_takes_over_a_long_queue),
	KTEST(a_stalled_uart_costs_one_wait),
	{},
};
KTEST_SUITE(console, console_cases);
