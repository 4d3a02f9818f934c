/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what every fuzz target shares.
 *
 * A target is one function, LLVMFuzzerTestOneInput(data, size), that feeds
 * bytes from outside (firmware tables, a boot loader's tags, a command line,
 * a device's rings) to one parser or state machine of testbed, and checks
 * what came out. libFuzzer drives it (make fuzz: clang
 * -fsanitize=fuzzer,address,undefined); replay.c drives it over the saved
 * corpus in make test, built with gcc and the same sanitizers.
 *
 * FUZZ_CHECK() aborts with a message: a crash for libFuzzer, a failure for
 * the replay.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "types.h"

#define FUZZ_CHECK(cond)                                                             \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                     \
		}                                                                    \
	} while (0)

/* Take the next n bytes of the input as a number (little-endian); 0 past its end. */
struct fuzz_input {
	const u8 *data;
	size_t size, at;
};

static inline u64 fuzz_take(struct fuzz_input *in, unsigned n)
{
	u64 v = 0;

	for (unsigned i = 0; i < n; i++, in->at++)
		v |= (u64)(in->at < in->size ? in->data[in->at] : 0) << (8 * i);
	return v;
}

static inline bool fuzz_more(const struct fuzz_input *in)
{
	return in->at < in->size;
}

/* Silence printk (it still captures): fuzzing prints nothing per input. */
static inline void fuzz_quiet(void)
{
	host_quiet = true;
	host_log_clear();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

#endif
