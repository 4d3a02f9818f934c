/* SPDX-License-Identifier: MIT */
/*
 * printk.h - the kernel's log: printk() and the consoles it writes to.
 *
 * Every message goes into a ring buffer (log_buf) and, through a FIFO
 * written out by whichever CPU owns the consoles (kernel/printk.c), to every
 * enabled console. Each line starts with a fixed-width timestamp, "[    1.234567] ",
 * seconds since the TSC was calibrated: the same width on every line, which
 * tools like Linux's kunit.py rely on to strip it.
 *
 * A message may start with a level (KERN_ERR "..."): lines above the console
 * log level are kept in the ring but not printed. A console registered late
 * (the framebuffer, after paging is set up) can replay the ring so it shows
 * the whole boot.
 */
#ifndef PRINTK_H
#define PRINTK_H

#include <stdarg.h>
#include "types.h"

#define KERN_SOH     "\001"
#define KERN_EMERG   KERN_SOH "0"   /* system is unusable */
#define KERN_ALERT   KERN_SOH "1"
#define KERN_CRIT    KERN_SOH "2"
#define KERN_ERR     KERN_SOH "3"   /* error conditions */
#define KERN_WARNING KERN_SOH "4"   /* something is off; we carry on */
#define KERN_NOTICE  KERN_SOH "5"
#define KERN_INFO    KERN_SOH "6"   /* the default */
#define KERN_DEBUG   KERN_SOH "7"   /* hidden unless the log level allows */

int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);

#define pr_emerg(fmt, ...) printk(KERN_EMERG fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)   printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)  printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) printk(KERN_DEBUG fmt, ##__VA_ARGS__)

struct console {
	const char *name;       /* "serial" or "fb": what console= selects */
	/*
	 * Write n bytes; '\n' ends a line. Called only by the CPU that owns the
	 * consoles, preemption off, interrupts as that CPU's printk() caller had
	 * them (on in thread context): an interrupt's printk meanwhile is queued.
	 */
	void (*write)(struct console *con, const char *s, size_t n);
	/* Optional: show s in place of a progress line (see printk_progress()). */
	void (*progress)(struct console *con, const char *s);
	bool enabled;           /* set by console_register()/console_select() */
	u64 from;               /* printk's queue position at registration: older text came by replay */
	struct console *next;
};

/* Add a console; with replay, first write it everything logged so far. */
void console_register(struct console *con, bool replay);
/* Take a console off the list, after it got what was queued; false if it was not on it. */
bool console_unregister(struct console *con);
/*
 * Own the consoles (waiting for the CPU that does), for code that draws on
 * one outside printk (the shell's scroll-back, the QR code); the unlock
 * writes out what was queued meanwhile. Not from interrupts, and not on a
 * CPU that owns them already.
 */
void console_lock(void);
void console_unlock(void);
/*
 * Wait until everything queued has been written (bounded): before QEMU is
 * left through isa-debug-exit, so no line is lost on the way out.
 */
void printk_flush(void);
/* Tests: the CPU waiting to take the consoles over from their owner, or ~0u. */
u32 printk_console_waiter(void);

/*
 * Enable exactly the consoles console= asks for (both, serial or fb); call
 * after the command line is parsed. A console registered later is checked
 * when it registers. If none would be left, all stay on, with a warning.
 */
void console_select(void);

/*
 * Panic mode: printk stops waiting for its lock (the CPU that held it may
 * be the one that crashed), so the last words always get out.
 */
void printk_panic_mode(void);

/*
 * A progress line for people: shown in place (each call replaces the last)
 * on the consoles that can (the framebuffer), never logged and never on
 * serial, so it changes nothing a script reads; the next printed text
 * takes its place. For a storm that runs longer than a second.
 */
void printk_progress(const char *fmt, ...) __printf(1, 2);

/* Copy the last len bytes of the log into buf (NUL-terminated); for tests. */
size_t printk_log_tail(char *buf, size_t len);

/*
 * The log kept, whole lines, the newest that fit in len bytes (not
 * NUL-terminated); returns the bytes copied. For the scroll-back.
 */
size_t printk_log_copy(char *buf, size_t len);

/*
 * TSC cycles the consoles' write() took since boot, every line printed
 * and every replay to a console registered late (not dmesg's): what a
 * slow console costs the printing CPUs.
 */
u64 printk_console_cycles(void);
/* Would a message of this level (0 emergency ... 7 debug) reach some console? */
bool printk_console_shows(int level);

/* Bytes kept (from the oldest whole line), bytes ever logged, lines dropped. */
void printk_log_stats(u64 *kept, u64 *total, u64 *dropped_lines);

/*
 * dmesg: write the log kept (its last last_lines lines; 0: all of it) to
 * the enabled consoles, every level, without logging it again; then log
 * one line "dmesg: N bytes kept of N logged; N older lines dropped (the
 * log keeps N KiB)".
 */
void printk_dump_log(u64 last_lines);

#endif
