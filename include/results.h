/* SPDX-License-Identifier: MIT */
/*
 * results.h - the results a user takes home: a few lines of compact text
 * (the machine, the test totals, the failed cases, the story's verdicts),
 * shown at the end of a test run and of the story as a QR code on the
 * framebuffer and, the same text, framed on every console:
 *
 *   qr: begin
 *   qr: testbed v1-23-gabcdef tests
 *   qr: cpus=2 nodes=1 mem=1023M tsc=2596MHz(hpet)
 *   qr: ktap: 120 passed 0 failed 3 skipped
 *   qr: end
 *
 * The QR code's text is those lines without "qr: ", joined by newlines.
 * One writer at a time (the boot thread, at the end of its work).
 */
#ifndef RESULTS_H
#define RESULTS_H

#include "types.h"

#define RESULTS_MAX 600         /* bytes of text: below 666, version 20 at level M */

/* Start a new text: "testbed VERSION WHAT" and the machine's line. */
void results_begin(const char *what);

/* Add one line (no '\n'); a line that does not fit is dropped, and counted. */
void results_add(const char *fmt, ...) __printf(1, 2);

/* The KTAP totals of the last test run and its first failed cases. */
void results_add_ktest(void);

/* Print the framed text and draw its QR code (framebuffer in pixel mode only). */
void results_show(void);

/* The text so far, for tests. */
const char *results_text(void);

#endif
