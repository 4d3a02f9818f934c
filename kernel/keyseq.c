// SPDX-License-Identifier: MIT
/*
 * keyseq.c - the escape sequences of the keys that are not characters
 * (see keyseq.h).
 *
 * Two states: right after the ESC (in_brackets false), where only '[' goes
 * on; after the '[', where digits add to number and any other byte is the
 * final one, which with number says the key. Invariant: digits <=
 * KEYSEQ_DIGITS_MAX, so number < 10^KEYSEQ_DIGITS_MAX; a digit past the
 * bound only sets too_long.
 */
#include "keyseq.h"

void keyseq_start(struct keyseq *seq)
{
	*seq = (struct keyseq){ .in_brackets = false };
}

enum keyseq_key keyseq_feed(struct keyseq *seq, int c)
{
	if (!seq->in_brackets) {
		if (c != '[')
			return KEYSEQ_NONE;
		seq->in_brackets = true;
		return KEYSEQ_MORE;
	}
	if (c >= '0' && c <= '9') {
		if (seq->digits == KEYSEQ_DIGITS_MAX) {
			seq->too_long = true;
		} else {
			seq->number = seq->number * 10 + (u32)(c - '0');
			seq->digits++;
		}
		return KEYSEQ_MORE;
	}
	if (seq->too_long)
		return KEYSEQ_NONE;
	if (c == '~' && seq->number == 5)
		return KEYSEQ_PGUP;
	if (c == '~' && seq->number == 6)
		return KEYSEQ_PGDN;
	if (c == 'A')
		return KEYSEQ_UP;
	if (c == 'B')
		return KEYSEQ_DOWN;
	return KEYSEQ_NONE;
}
