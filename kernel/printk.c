// SPDX-License-Identifier: MIT
/*
 * printk.c - format a message, stamp each line with the time, keep it in
 * the log ring and hand it to every enabled console.
 *
 * The picture:
 *
 *   printk(fmt, ...) --vsnprintf--> line[] --stamp--> log (ring, LOG_BUF_SIZE)
 *                                                 \-> con_buf (FIFO) --owner--> serial, fb, ...
 *
 *   dmesg (printk_dump_log) --- log ---> consoles, not logged again
 *   fbcon's scroll-back (printk_log_copy) <--- log
 *
 * Two locks, as 2.6.14's kernel/printk.c had logbuf_lock and console_sem:
 *   - printk_lock, a spinlock taken with interrupts off and held only to
 *     copy bytes: into the log and con_buf (printk), out of con_buf (the
 *     owner);
 *   - console_owner, the CPU that writes to the consoles, taken by trying.
 *     printk() queues its text in con_buf and then tries to become the
 *     owner; if it does, it writes everything queued (its own text and
 *     whatever other CPUs queue meanwhile) and lets go; if another CPU or
 *     an interrupted printk on this one owns the consoles, that owner
 *     writes the text before it lets go (2.6.14: down_trylock(&console_sem)
 *     in printk, the loop of release_console_sem()).
 *
 * Where testbed departs from 2.6: the owner writes with interrupts as the
 * caller had them, on in thread context. From Ingo Molnar's
 * smp_processor_id() debugging patch (LKML, 17 September 2004) on,
 * release_console_sem() dropped logbuf_lock with spin_unlock() and restored
 * interrupts only after call_console_drivers(), so a 60-byte line at 115200
 * baud kept interrupts off 5 ms (docs/boot.md says what was read);
 * PREEMPT_RT's "printk: Make rt aware" (Thomas Gleixner, 19 September 2012)
 * stopped disabling interrupts while printing to a serial console, and
 * mainline wrote consoles from threads only with Linux 6.12's nbcon
 * printers. Preemption stays off while a CPU owns the consoles, so
 * no other thread of this CPU can come in half-way through a console's
 * write; an interrupt can, and its printk only queues.
 *
 * Invariants:
 *   - a timestamp is inserted exactly at the start of each line, whatever
 *     pieces the line was printed in (printk_at_line_start tracks this);
 *   - the log (kernel/logring.c) holds the last LOG_BUF_SIZE bytes ever
 *     logged, every level, shown or not; when it wraps, the oldest lines
 *     go and are counted (log.dropped_lines); readers start at a whole line;
 *   - con_buf holds the shown bytes not yet written, in the order printk
 *     queued them: [con_tail, con_head), both counted from boot; a printk's
 *     text goes in whole or not at all, under printk_lock, so lines from
 *     different CPUs never interleave within a line. A printk that finds
 *     no room waits for the owner (or becomes it); inside the owner's own
 *     write it cannot, and with interrupts off it waits ROOM_WAIT_NS at
 *     most (the owner may wait, in an interrupt, for a lock its caller
 *     holds): then its text is dropped and counted, and the consoles say
 *     so where it would have been;
 *   - no owner writes others' text for ever: a printing thread that finds
 *     more than HANDOVER_BACKLOG queued under another owner waits, and the
 *     owner hands it the consoles after its current chunk (Steven Rostedt's
 *     console owner and waiter, LKML, November 2017, read in that thread;
 *     Linux's waiter spins whenever an owner prints, testbed's only above
 *     the backlog, so a short line is never held up by another CPU's write);
 *   - only the owner calls a console's write(), so console drivers need no
 *     lock of their own. A console registered late takes con_buf's bytes
 *     from its registration on (console->from): it got the older ones in
 *     its replay of the log.
 */
#include "printk.h"
#include "cmdline.h"
#include "format.h"
#include "kstring.h"
#include "logring.h"
#include "param.h"
#include "percpu.h"
#include "spinlock.h"
#include "time.h"
#include "x86.h"

#define LINE_MAX 1024           /* one printk call's formatted text */
#define CON_BUF_SIZE (64 * 1024) /* text queued for the consoles */
#define CON_CHUNK 256           /* bytes written per trip out of con_buf */
#define STAMP_MAX 32            /* "[sssss.uuuuuu] ", longer after 99999 s: at most this */
#define HANDOVER_BACKLOG 4096   /* queued bytes above which a printing thread takes over */
#define ROOM_WAIT_NS (20ULL * 1000 * 1000)      /* interrupts off: wait this long for room */
#define NO_OWNER (~0u)

static char log_buf[LOG_BUF_SIZE];
static struct logring log = { .buf = log_buf, .size = LOG_BUF_SIZE };
static bool printk_at_line_start = true;
static struct console *consoles;
static struct spinlock printk_lock = SPINLOCK_INIT("printk");
static bool panic_mode;

static char con_buf[CON_BUF_SIZE];
static u64 con_head, con_tail;          /* bytes ever queued, ever taken out (printk_lock) */
static u64 con_dropped;                 /* bytes of console text dropped, not yet said */
static u64 con_dropped_at;              /* con_buf position where the drop happened */
static u32 console_owner = NO_OWNER;    /* the CPU writing to the consoles */
static u32 console_waiter = NO_OWNER;   /* a printing CPU waiting to take them over */

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

/* TSC cycles spent in consoles' write(), by whichever CPU owned them: printk_console_cycles(). */
static u64 console_cycles;

static u64 con_room(void)
{
	return CON_BUF_SIZE - (con_head - con_tail);
}

/* Queue s[0..n) for the consoles; vprintk() made sure it fits. printk_lock held. */
static void con_put(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		con_buf[(con_head + i) % CON_BUF_SIZE] = s[i];
	__atomic_store_n(&con_head, con_head + n, __ATOMIC_SEQ_CST);
}

/* Count n bytes of console text dropped here, said when the queue gets to this point. */
static void con_drop(u64 n)
{
	if (!con_dropped)
		con_dropped_at = con_head;
	__atomic_store_n(&con_dropped, con_dropped + n, __ATOMIC_SEQ_CST);
}

static void emit(const char *s, size_t n, bool to_consoles)
{
	logring_put(&log, s, n);
	if (to_consoles)
		con_put(s, n);
}

/*
 * Take the printk lock; false if panic mode gave up waiting for it. Either
 * way the caller is in the lock's section until unlock(): sparse counts it
 * held from here to there, the lockless panic path too.
 */
static bool lock(u64 *flags) __acquires(&printk_lock)
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
	__acquire(&printk_lock);        /* not taken: unlock() is told so */
	return false;
}

static void unlock(u64 flags, bool locked) __releases(&printk_lock)
{
	if (locked)
		spin_unlock(&printk_lock);
	else
		__release(&printk_lock);
	irq_restore(flags);
}

/* --- the consoles' owner ---------------------------------------------------------- */

static bool console_trylock(void)
{
	u32 expected = NO_OWNER;

	lock_preempt_off();     /* no switch while this CPU owns the consoles */
	if (__atomic_compare_exchange_n(&console_owner, &expected, smp_processor_id(), false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return true;
	lock_preempt_on();
	return false;
}

static bool this_cpu_owns_consoles(void)
{
	return __atomic_load_n(&console_owner, __ATOMIC_RELAXED) == smp_processor_id();
}

/* Write c the chunk that starts at con_buf position pos, from its console->from on. */
static void write_chunk(struct console *c, const char *chunk, size_t n, u64 pos)
{
	size_t skip = c->from > pos ? (size_t)MIN(c->from - pos, (u64)n) : 0;

	if (c->enabled && n > skip)
		c->write(c, chunk + skip, n - skip);
}

/*
 * The owner writes out everything queued, a chunk at a time: the chunk
 * leaves con_buf under printk_lock, interrupts off; the write runs with
 * interrupts as the caller had them. Text queued meanwhile, on any CPU,
 * is written in the same loop, unless (may_hand_over) a printing thread
 * waits to take over: then it gets the consoles after this chunk, as
 * Steven Rostedt's console owner and waiter (LKML, November 2017) let a
 * waiting printk take over, so no CPU writes other CPUs' text for ever.
 * Returns false if it handed the consoles over (this CPU no longer owns
 * them), true when the queue is empty.
 */
static bool console_drain(bool may_hand_over)
{
	char chunk[CON_CHUNK];

	for (;;) {
		u64 flags;
		bool locked = lock(&flags);     /* in a panic, not forever */
		u64 pos = con_tail, dropped = 0;
		size_t n = (size_t)MIN(con_head - con_tail, (u64)sizeof(chunk));

		if (con_dropped && con_dropped_at == pos) {
			dropped = con_dropped;  /* said where it happened, in order */
			con_dropped = 0;
		} else if (con_dropped && con_dropped_at > pos) {
			n = (size_t)MIN((u64)n, con_dropped_at - pos);
		}
		for (size_t i = 0; i < n; i++)
			chunk[i] = con_buf[(pos + i) % CON_BUF_SIZE];
		con_tail += n;
		unlock(flags, locked);
		if (!n && !dropped)
			return true;
		u64 t0 = rdtsc();

		for (struct console *c = consoles; c; c = c->next) {
			if (dropped && c->enabled) {
				char note[64];
				int len = snprintf(note, sizeof(note),
						   "\n** %llu bytes for the consoles dropped **\n", dropped);

				c->write(c, note, (size_t)len);
			}
			write_chunk(c, chunk, n, pos);
		}
		__atomic_add_fetch(&console_cycles, rdtsc() - t0, __ATOMIC_RELAXED);
		u32 waiter = __atomic_load_n(&console_waiter, __ATOMIC_SEQ_CST);

		if (may_hand_over && waiter != NO_OWNER) {
			__atomic_store_n(&console_owner, waiter, __ATOMIC_SEQ_CST);
			lock_preempt_on();
			return false;
		}
	}
}

/*
 * Let go of the consoles. Text queued after the owner's last look is
 * written by whoever takes them next: here, if nobody else has (as
 * console_unlock() retries). The store and the load are sequentially
 * consistent, so a printk that queued text and failed to take the
 * consoles is seen by the owner that held them.
 */
static void console_release(void)
{
	__atomic_store_n(&console_owner, NO_OWNER, __ATOMIC_SEQ_CST);
	lock_preempt_on();
}

static bool con_pending(void)
{
	return __atomic_load_n(&con_head, __ATOMIC_SEQ_CST) !=
	       __atomic_load_n(&con_tail, __ATOMIC_SEQ_CST) ||
	       __atomic_load_n(&con_dropped, __ATOMIC_SEQ_CST);
}

static u64 con_backlog(void)
{
	return __atomic_load_n(&con_head, __ATOMIC_SEQ_CST) -
	       __atomic_load_n(&con_tail, __ATOMIC_SEQ_CST);
}

/*
 * A printing thread that found another owner with much queued waits to be
 * handed the consoles (preemption off, so it is still here when they come),
 * or takes them if they are let go. False if it may not wait here: another
 * CPU waits already, or this CPU owns them (a printk inside a write).
 */
static bool console_wait_for_handover(void)
{
	u32 none = NO_OWNER;

	lock_preempt_off();
	u32 cpu = smp_processor_id();

	if (__atomic_load_n(&console_owner, __ATOMIC_SEQ_CST) == cpu ||
	    !__atomic_compare_exchange_n(&console_waiter, &none, cpu, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED)) {
		lock_preempt_on();
		return false;
	}
	for (;;) {
		u32 owner = __atomic_load_n(&console_owner, __ATOMIC_SEQ_CST);

		if (owner == cpu)
			break;          /* handed over */
		none = NO_OWNER;
		if (owner == NO_OWNER &&
		    __atomic_compare_exchange_n(&console_owner, &none, cpu, false, __ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			break;          /* let go: taken */
		cpu_relax();
	}
	__atomic_store_n(&console_waiter, NO_OWNER, __ATOMIC_SEQ_CST);
	return true;            /* owner, preemption off once for it */
}

/*
 * Write what is queued if no CPU owns the consoles; otherwise their owner
 * will. A thread (may_wait) that finds more than HANDOVER_BACKLOG queued
 * under another owner waits to take over instead of leaving it all to it.
 */
static void console_print_pending(bool may_wait)
{
	while (con_pending()) {
		if (!console_trylock() &&
		    !(may_wait && con_backlog() > HANDOVER_BACKLOG && console_wait_for_handover()))
			return;
		if (!console_drain(true))
			return;         /* handed over: the new owner writes the rest */
		console_release();
	}
}

void console_lock(void)
{
	while (!console_trylock())
		cpu_relax();
}

void console_unlock(void)
{
	console_drain(false);
	console_release();
	console_print_pending(false);
}

static void console_take_over(void);

u32 printk_console_waiter(void)
{
	return __atomic_load_n(&console_waiter, __ATOMIC_SEQ_CST);
}

void printk_flush(void)
{
	if (panic_mode) {
		console_take_over();
		return;
	}
	lock_preempt_off();
	bool nested = this_cpu_owns_consoles();

	lock_preempt_on();
	if (nested)
		return;         /* inside a console write: the owner goes on after it */
	console_lock();         /* whoever wrote has finished its chunk and let go */
	console_unlock();
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


/* Bytes line[0..n) takes in con_buf, with a stamp for every line it starts. */
static u64 con_bytes_for(const char *line, int n)
{
	u64 stamps = printk_at_line_start ? 1 : 0;

	for (int i = 0; i + 1 < n; i++)
		stamps += line[i] == '\n';
	return (u64)n + stamps * STAMP_MAX;
}

/*
 * Panic: the consoles' owner may be a CPU that will never let go; this one
 * takes them over, as 2.6.14's printk re-initialised console_sem when
 * oops_in_progress was set.
 */
static void console_take_over(void)
{
	lock_preempt_off();
	__atomic_store_n(&console_owner, smp_processor_id(), __ATOMIC_SEQ_CST);
	console_drain(false);
	console_release();
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

	bool show = (u64)level < console_loglevel;
	bool may_wait = read_rflags() & RFLAGS_IF;      /* a thread, no lock an interrupt needs */
	u64 wait_until = 0;
	bool locked = lock(&flags);

	/*
	 * No room for it in con_buf: write some out, or wait for the owner to.
	 * Not on the CPU that owns the consoles (a printk inside a write), and
	 * with interrupts off only ROOM_WAIT_NS: the owner may be waiting, in
	 * an interrupt, for a lock this caller holds.
	 */
	while (show && locked && !panic_mode && con_bytes_for(line, n) > con_room() &&
	       !this_cpu_owns_consoles()) {
		unlock(flags, locked);
		if (!may_wait && !wait_until)
			wait_until = ktime_ns() + ROOM_WAIT_NS;
		if (!may_wait && ktime_ns() > wait_until) {
			locked = lock(&flags);
			break;
		}
		console_print_pending(false);
		cpu_relax();
		locked = lock(&flags);
	}
	if (show && con_bytes_for(line, n) > con_room()) {
		con_drop(con_bytes_for(line, n));       /* all of it or nothing: no half lines */
		show = false;
	}
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
	if (panic_mode)
		console_take_over();
	else
		console_print_pending(may_wait);
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

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!console_trylock())
		return;         /* someone is printing: their text takes the line's place anyway */
	console_drain(false);   /* the text queued before it goes first */
	for (struct console *c = consoles; c; c = c->next)
		if (c->enabled && c->progress)
			c->progress(c, line);
	console_release();
	console_print_pending(false);
}

void console_register(struct console *con, bool replay)
{
	u64 flags;

	console_lock();
	console_drain(false);   /* what is queued goes to the consoles there were */
	bool locked = lock(&flags);
	con->enabled = console_wanted(con);
	if (replay && con->enabled) {
		char chunk[256];
		u64 pos = 0;
		size_t n;

		u64 t0 = rdtsc();

		while ((n = logring_copy(&log, pos, log.total, chunk, sizeof(chunk), &pos)))
			con->write(con, chunk, n);
		__atomic_add_fetch(&console_cycles, rdtsc() - t0, __ATOMIC_RELAXED); /* a replay too */
	}
	con->from = con_head;   /* the replay had everything queued before now */
	con->next = consoles;
	consoles = con;
	unlock(flags, locked);
	console_unlock();
}

bool console_unregister(struct console *con)
{
	bool found = false;

	console_lock();
	console_drain(false);   /* it gets what was queued while it was there */
	for (struct console **pp = &consoles; *pp; pp = &(*pp)->next) {
		if (*pp == con) {
			*pp = con->next;
			found = true;
			break;
		}
	}
	console_unlock();
	return found;
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
	console_lock();
	do {    /* chunk by chunk, with other CPUs' lines written in between */
		console_drain(false);
		locked = lock(&flags);
		n = logring_copy(&log, pos, end, chunk, sizeof(chunk), &pos);
		unlock(flags, locked);
		for (struct console *c = consoles; c; c = c->next)
			if (c->enabled && n)
				c->write(c, chunk, n);
	} while (n);
	console_unlock();
	printk_log_stats(&kept, &total, &dropped);
	printk("dmesg: %llu bytes kept of %llu logged; %llu older lines dropped (the log keeps %u KiB)\n",
	       kept, total, dropped, LOG_BUF_SIZE / 1024);
}
