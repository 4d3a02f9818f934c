/*
 * printk.c - format a message, stamp each line with the time, keep it in
 * the log ring and write it to every enabled console.
 *
 * The picture:
 *
 *   printk(fmt, ...) --vsnprintf--> line[] --stamp--> log (ring, LOG_BUF_SIZE)
 *                                                 \-> serial, framebuffer, ...
 *
 *   dmesg (printk_dump_log) --- log ---> consoles, not logged again
 *   fbcon's scroll-back (printk_log_copy) <--- log
 *
 * Invariants:
 *   - a timestamp is inserted exactly at the start of each line, whatever
 *     pieces the line was printed in (printk_at_line_start tracks this);
 *   - the log (kernel/logring.c) holds the last LOG_BUF_SIZE bytes ever
 *     logged, every level, shown or not; when it wraps, the oldest lines
 *     go and are counted (log.dropped_lines); readers start at a whole line;
 *   - consoles are called with printk_lock held and interrupts off, so
 *     lines from different CPUs never interleave within a line.
 */
#include "printk.h"
#include "cmdline.h"
#include "format.h"
#include "kstring.h"
#include "logring.h"
#include "param.h"
#include "spinlock.h"
#include "time.h"
#include "x86.h"

#define LINE_MAX 1024           /* one printk call's formatted text */

static char log_buf[LOG_BUF_SIZE];
static struct logring log = { .buf = log_buf, .size = LOG_BUF_SIZE };
static bool printk_at_line_start = true;
static struct console *consoles;
static struct spinlock printk_lock = SPINLOCK_INIT("printk");
static bool panic_mode;

/* loglevel=N: consoles show messages more urgent than N (Linux's meaning). */
static u64 console_loglevel = CONSOLE_LOGLEVEL;
PARAM_U64("loglevel", console_loglevel, 0, 8);

/* console=both|serial|fb: which consoles print (the log keeps everything). */
static int console_mode;
PARAM_CHOICE("console", console_mode, "both", "serial", "fb");
static const char *const console_mode_names[] = { NULL, "serial", "fb" };

static bool console_wanted(const struct console *c)
{
	return console_mode == 0 || !strcmp(c->name, console_mode_names[console_mode]);
}

/* TSC cycles spent in consoles' write(), under the printk lock: printk_console_cycles(). */
static u64 console_cycles;

static void emit(const char *s, size_t n, bool to_consoles)
{
	logring_put(&log, s, n);
	if (!to_consoles)
		return;
	u64 t0 = rdtsc();
	for (struct console *c = consoles; c; c = c->next)
		if (c->enabled)
			c->write(c, s, n);
	console_cycles += rdtsc() - t0;
}

bool printk_console_shows(int level)
{
	return (u64)level < console_loglevel && consoles;
}

u64 printk_console_cycles(void)
{
	return __atomic_load_n(&console_cycles, __ATOMIC_RELAXED);
}

/* "[    1.234567] ": seconds right-aligned in 5 columns, then microseconds. */
static void emit_stamp(bool to_consoles)
{
	u64 ns = ktime_ns();
	char stamp[32];
	int n = snprintf(stamp, sizeof(stamp), "[%5llu.%06llu] ", (ns / 1000000000),
			 (ns % 1000000000 / 1000));
	emit(stamp, (size_t)n, to_consoles);
}

/* Take the printk lock; false if panic mode gave up waiting for it. */
static bool lock(u64 *flags)
{
	*flags = irq_save();
	if (!panic_mode) {
		spin_lock(&printk_lock);
		return true;
	}
	/* Panic: the holder may never release it; wait a little, then go on. */
	for (int i = 0; i < 1000000; i++) {
		if (spin_trylock(&printk_lock))
			return true;
		cpu_relax();
	}
	return false;
}

static void unlock(u64 flags, bool locked)
{
	if (locked)
		spin_unlock(&printk_lock);
	irq_restore(flags);
}

int vprintk(const char *fmt, va_list ap)
{
	char line[LINE_MAX];
	int level = 6;          /* KERN_INFO */
	const char *p;
	u64 flags;
	int n;

	if (fmt[0] == KERN_SOH[0] && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= (int)sizeof(line)) {   /* truncated: keep the line ending */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}

	bool locked = lock(&flags);
	bool show = (u64)level < console_loglevel;
	p = line;
	while (p < line + n) {
		const char *nl = memchr(p, '\n', (size_t)(line + n - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(line + n - p);

		if (printk_at_line_start)
			emit_stamp(show);
		emit(p, len, show);
		printk_at_line_start = nl != NULL;
		p += len;
	}
	unlock(flags, locked);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void printk_progress(const char *fmt, ...)
{
	char line[160];
	va_list ap;
	u64 flags;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	bool locked = lock(&flags);
	for (struct console *c = consoles; c; c = c->next)
		if (c->enabled && c->progress)
			c->progress(c, line);
	unlock(flags, locked);
}

void console_register(struct console *con, bool replay)
{
	u64 flags;

	bool locked = lock(&flags);
	con->enabled = console_wanted(con);
	if (replay && con->enabled) {
		char chunk[256];
		u64 pos = 0;
		size_t n;

		u64 t0 = rdtsc();

		while ((n = logring_copy(&log, pos, log.total, chunk, sizeof(chunk), &pos)))
			con->write(con, chunk, n);
		console_cycles += rdtsc() - t0;         /* a replay is console time too */
	}
	con->next = consoles;
	consoles = con;
	unlock(flags, locked);
}

void console_select(void)
{
	struct console *c;
	bool any = false;
	u64 flags;

	bool locked = lock(&flags);
	for (c = consoles; c; c = c->next)
		any |= c->enabled = console_wanted(c);
	if (!any)       /* e.g. console=fb on a machine without a framebuffer */
		for (c = consoles; c; c = c->next)
			c->enabled = true;
	unlock(flags, locked);
	if (!any)
		pr_warn("console: no console matches console=%s; keeping all consoles on\n",
			console_mode_names[console_mode]);
}

void printk_panic_mode(void)
{
	panic_mode = true;
}

size_t printk_log_tail(char *buf, size_t len)
{
	u64 flags, start;
	size_t n;

	if (len == 0)
		return 0;
	bool locked = lock(&flags);
	n = (size_t)MIN((u64)len - 1, MIN(log.total, (u64)LOG_BUF_SIZE));
	start = log.total - n;
	n = logring_copy(&log, start, log.total, buf, n, NULL);
	buf[n] = '\0';
	unlock(flags, locked);
	return n;
}

size_t printk_log_copy(char *buf, size_t len)
{
	u64 flags, from;
	size_t n;

	bool locked = lock(&flags);
	from = logring_first(&log);
	if (log.total - from > len) {   /* keep the newest, from a line start */
		from = log.total - len;
		while (from < log.total && log.buf[(from - 1) % log.size] != '\n')
			from++;
	}
	n = logring_copy(&log, from, log.total, buf, len, NULL);
	unlock(flags, locked);
	return n;
}

void printk_log_stats(u64 *kept, u64 *total, u64 *dropped_lines)
{
	u64 flags;

	bool locked = lock(&flags);
	*kept = log.total - logring_first(&log);
	*total = log.total;
	*dropped_lines = log.dropped_lines;
	unlock(flags, locked);
}

void printk_dump_log(u64 last_lines)
{
	u64 flags, pos, end, kept, total, dropped;
	char chunk[256];
	size_t n;

	bool locked = lock(&flags);
	end = log.total;
	pos = last_lines ? logring_last_lines(&log, last_lines) : 0;
	unlock(flags, locked);
	do {    /* chunk by chunk, so other CPUs' lines can get in between */
		locked = lock(&flags);
		n = logring_copy(&log, pos, end, chunk, sizeof(chunk), &pos);
		for (struct console *c = consoles; c; c = c->next)
			if (c->enabled && n)
				c->write(c, chunk, n);
		unlock(flags, locked);
	} while (n);
	printk_log_stats(&kept, &total, &dropped);
	printk("dmesg: %llu bytes kept of %llu logged; %llu older lines dropped (the log keeps %u KiB)\n",
	       kept, total, dropped, LOG_BUF_SIZE / 1024);
}
