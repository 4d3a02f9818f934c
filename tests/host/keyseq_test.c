// SPDX-License-Identifier: MIT
/*
 * keyseq_test.c - kernel/keyseq.c on the host: the sequences after ESC
 * that the shell's line editor turns into keys, and the ones it drops,
 * each fed a byte at a time as the keyboards and a serial terminal send
 * them.
 */
#include <string.h>

#include "kbd.h"
#include "keyseq.h"
#include "ktest.h"

/*
 * Feed the bytes after an ESC; the key they end as, KEYSEQ_MORE if they
 * did not end. A sequence that ends before its last byte fails the case.
 */
static enum keyseq_key feed(struct ktest *t, const char *after_esc)
{
	struct keyseq seq;
	size_t n = strlen(after_esc);

	keyseq_start(&seq);
	for (size_t i = 0; i < n; i++) {
		enum keyseq_key key = keyseq_feed(&seq, (u8)after_esc[i]);
		if (key != KEYSEQ_MORE) {       /* it ends at its last byte, not before */
			ktest_check(t, i == n - 1, __FILE__, __LINE__, after_esc);
			return key;
		}
	}
	return KEYSEQ_MORE;
}

static void the_keyboards_sequences_give_their_keys(struct ktest *t)
{
	EXPECT_EQ(t, feed(t, KBD_SEQ_UP + 1), KEYSEQ_UP);
	EXPECT_EQ(t, feed(t, KBD_SEQ_DOWN + 1), KEYSEQ_DOWN);
	EXPECT_EQ(t, feed(t, KBD_SEQ_PGUP + 1), KEYSEQ_PGUP);
	EXPECT_EQ(t, feed(t, KBD_SEQ_PGDN + 1), KEYSEQ_PGDN);
	EXPECT_EQ(t, feed(t, "[1A"), KEYSEQ_UP);            /* a count before an arrow */
	EXPECT_EQ(t, feed(t, "[05~"), KEYSEQ_PGUP);
}

static void other_sequences_end_as_no_key(struct ktest *t)
{
	EXPECT_EQ(t, feed(t, KBD_SEQ_LEFT + 1), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, KBD_SEQ_RIGHT + 1), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, KBD_SEQ_HOME + 1), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, KBD_SEQ_DELETE + 1), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, "[7~"), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, "O"), KEYSEQ_NONE);           /* no '[': over at once */
	EXPECT_EQ(t, feed(t, "[5"), KEYSEQ_MORE);           /* digits wait for the final byte */
}

/*
 * A serial terminal or a lying USB keyboard may send any number of
 * digits. 4294967301 is 2^32 + 5: wrapped in 32 bits it is Page Up's 5.
 * Too many digits drop the sequence as a whole (read to its final byte,
 * so nothing of it lands on the line); at the bound it still counts.
 */
static void a_sequence_with_too_many_digits_gives_no_key(struct ktest *t)
{
	char many[200];

	EXPECT_EQ(t, feed(t, "[4294967301~"), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, "[4294967302~"), KEYSEQ_NONE);    /* 6: Page Down */
	EXPECT_EQ(t, feed(t, "[18446744073709551621~"), KEYSEQ_NONE);   /* 2^64 + 5 */
	memset(many, '9', sizeof(many));
	many[0] = '[';
	many[sizeof(many) - 2] = 'A';           /* even an arrow, whose number does not matter */
	many[sizeof(many) - 1] = 0;
	EXPECT_EQ(t, feed(t, many), KEYSEQ_NONE);
	EXPECT_EQ(t, feed(t, "[0005~"), KEYSEQ_PGUP);           /* KEYSEQ_DIGITS_MAX digits */
	EXPECT_EQ(t, feed(t, "[00005~"), KEYSEQ_NONE);          /* one more */
	EXPECT_EQ(t, feed(t, "[00055~"), KEYSEQ_NONE);          /* cut to its first 4: 5 again */
	EXPECT_EQ(t, feed(t, KBD_SEQ_PGUP + 1), KEYSEQ_PGUP);  /* and the next one is whole again */
}

/* A KEY_ code (the i8042's Page Up) inside a sequence ends it as no key. */
static void a_key_code_inside_a_sequence_ends_it(struct ktest *t)
{
	struct keyseq seq;

	keyseq_start(&seq);
	EXPECT_EQ(t, keyseq_feed(&seq, KEY_PGUP), KEYSEQ_NONE);
	keyseq_start(&seq);
	EXPECT_EQ(t, keyseq_feed(&seq, '['), KEYSEQ_MORE);
	EXPECT_EQ(t, keyseq_feed(&seq, KEY_PGUP | KEY_SHIFT), KEYSEQ_NONE);
}

static const struct ktest_case keyseq_cases[] = {
	KTEST(the_keyboards_sequences_give_their_keys),
	KTEST(other_sequences_end_as_no_key),
	KTEST(a_key_code_inside_a_sequence_ends_it),
	KTEST(a_sequence_with_too_many_digits_gives_no_key),
	{},
};
KTEST_SUITE(keyseq, keyseq_cases);
