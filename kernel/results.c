// SPDX-License-Identifier: MIT
/*
 * results.c - the results a user takes home (see results.h).
 *
 *   results_begin("tests") --> text[] = "testbed VERSION tests\ncpus=.. nodes=.. ..."
 *   results_add(...)       --> one more line, if it fits in RESULTS_MAX
 *   results_show()         --> "qr: begin" / "qr: LINE"... / "qr: end" on the consoles,
 *                              qr_encode(text) --> fbcon_draw_qr()
 *
 * Invariant: text[0..len) is whole lines separated by '\n', len < RESULTS_MAX,
 * and always fits a QR code (RESULTS_MAX is below the capacity of version
 * QR_MAX_VERSION at level M).
 */
#include "results.h"
#include "fbcon.h"
#include "format.h"
#include "kstring.h"
#include "ktest.h"
#include "memmap.h"
#include "numa.h"
#include "percpu.h"
#include "printk.h"
#include "qr.h"
#include "time.h"

#ifndef TESTBED_VERSION
#define TESTBED_VERSION "unknown"
#endif

static char text[RESULTS_MAX];
static size_t len;
static int dropped;             /* lines that did not fit */
static struct qr_code qr;       /* 10 KiB: not on the stack */

static void vadd(const char *fmt, va_list ap)
{
	char line[128];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n < 0 || len + (len > 0) + (size_t)MIN(n, (int)sizeof(line) - 1) >= sizeof(text)) {
		dropped++;
		return;
	}
	len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", len ? "\n" : "", line);
}

void results_add(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(fmt, ap);
	va_end(ap);
}

void results_begin(const char *what)
{
	len = 0;
	dropped = 0;
	text[0] = '\0';
	results_add("testbed %s %s", TESTBED_VERSION, what);
	results_add("cpus=%u nodes=%u mem=%lluM tsc=%lluMHz(%s)", nr_cpus_online, numa.nr_nodes,
		    memmap_usable_bytes(&boot_memmap) >> 20, tsc_khz / 1000, tsc_source);
}

void results_add_ktest(void)
{
	const struct ktest_summary *sum = ktest_last_summary();

	results_add("ktap: %d passed %d failed %d skipped", sum->pass, sum->fail + sum->unknown,
		    sum->skip);
	for (int i = 0; i < sum->nr_failed_names; i++)
		results_add("fail: %s", sum->failed[i]);
	if (sum->fail > sum->nr_failed_names)
		results_add("fail: +%d more", sum->fail - sum->nr_failed_names);
	if (sum->unknown)
		results_add("fail: %d selection words picked nothing", sum->unknown);
}

const char *results_text(void)
{
	return text;
}

/* Draw it owning the consoles: no console write draws meanwhile. */
static bool draw_qr_owning_consoles(const struct qr_code *code)
{
	console_lock();
	bool drawn = fbcon_draw_qr(code);
	console_unlock();
	return drawn;
}

void results_show(void)
{
	const char *line = text;

	if (dropped)
		pr_warn("qr: %d result lines did not fit in %d bytes\n", dropped, RESULTS_MAX);
	printk("qr: begin\n");
	while (*line) {
		const char *nl = strchr(line, '\n');
		int n = nl ? (int)(nl - line) : (int)strlen(line);

		printk("qr: %.*s\n", n, line);
		line += n + (nl != NULL);
	}
	printk("qr: end\n");
	if (qr_encode((const u8 *)text, len, QR_ECC_M, -1, &qr))
		pr_warn("qr: %zu bytes do not fit in a QR code\n", len);      /* cannot happen */
	else if (!draw_qr_owning_consoles(&qr))
		pr_info("qr: no pixel framebuffer here: the results are on the consoles only\n");
}
