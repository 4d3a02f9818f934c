/* SPDX-License-Identifier: MIT */
/*
 * keyseq.h - the escape sequences of the keys that are not characters,
 * decoded a byte at a time: what the shell's line editor reads after ESC.
 *
 * Every keyboard driver (kbd.c, usb_kbd.c) and a serial terminal send
 * these keys as VT100/VT220 sequences (kbd.h's KBD_SEQ_*). After the ESC,
 * a sequence is '[', decimal digits, and one final byte:
 *
 *   ESC [ A   ESC [ B     up, down (the digits, if any, do not matter)
 *   ESC [ 5 ~ ESC [ 6 ~   Page Up, Page Down
 *
 * Anything else is read to its end and gives no key: a byte other than
 * '[' right after the ESC ends it at once, any byte but a digit after the
 * '[' ends it (and is swallowed with it).
 *
 * The number is bounded: a sequence with more than KEYSEQ_DIGITS_MAX
 * digits (from a serial line or a lying USB keyboard) is still read to
 * its final byte, so none of it lands on the line, and is dropped as a
 * whole. No digit is added past the bound, so no run of digits, however
 * long, overflows the number or wraps around to a key's.
 *
 * Pure logic; host-tested (tests/host/keyseq_test.c).
 */
#ifndef KEYSEQ_H
#define KEYSEQ_H

#include "types.h"

enum keyseq_key {
	KEYSEQ_MORE,            /* the sequence goes on: feed the next byte */
	KEYSEQ_NONE,            /* it ended as no key the shell uses */
	KEYSEQ_UP,
	KEYSEQ_DOWN,
	KEYSEQ_PGUP,
	KEYSEQ_PGDN,
};

#define KEYSEQ_DIGITS_MAX 4     /* VT220's keys need 2 ("ESC [ 24 ~", F12) */

struct keyseq {
	bool in_brackets;       /* the '[' came */
	bool too_long;          /* more than KEYSEQ_DIGITS_MAX digits: no key */
	u32 digits;             /* at most KEYSEQ_DIGITS_MAX */
	u32 number;             /* the digits so far: below 10^KEYSEQ_DIGITS_MAX */
};

/* An ESC was read: a new sequence starts. */
void keyseq_start(struct keyseq *seq);

/* The next byte (or kbd.h KEY_ code) of the sequence; KEYSEQ_MORE until it ends. */
enum keyseq_key keyseq_feed(struct keyseq *seq, int c);

#endif
