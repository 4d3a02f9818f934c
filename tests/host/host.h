/* SPDX-License-Identifier: MIT */
/*
 * host.h - what tests/host/host.c offers the host unit tests.
 *
 * Everything printk() prints goes to stdout and into a capture buffer that
 * keeps the most recent HOST_LOG_SIZE - 1 bytes, level prefixes removed.
 * A test clears it, runs the code under test, then looks at what was said.
 */
#ifndef HOST_H
#define HOST_H

#include "types.h"

#define HOST_LOG_SIZE (64 * 1024)

/*
 * "Physical memory" for the allocator tests: main() maps this much address
 * space at host_phys_base (include/vm.h), lazily backed, so a made-up
 * layout may use any physical address below it; untouched pages read 0.
 */
#define HOST_PHYS_SIZE (16UL << 30)

/* Map the made-up physical memory (main() does, before any test). */
void host_map_phys(void);

/* True: printk() only captures, it does not write to stdout (the fuzzers). */
extern bool host_quiet;

/* Forget everything captured so far. */
void host_log_clear(void);

/* The captured text since the last clear, NUL-terminated. */
const char *host_log(void);

/* Whether needle occurs in the captured text. */
bool host_log_has(const char *needle);

/* How many times needle occurs (non-overlapping) in the captured text. */
size_t host_log_count(const char *needle);

/*
 * Run fn in a forked child, for code that may crash or trip a sanitizer.
 * Returns the child's exit status (0 when fn returned), 128 + the signal
 * number if it was killed, or -1 if fork failed.
 */
int host_run_in_child(void (*fn)(void));

/*
 * A device model for io.h's readb() ... writeq() on the host: when set,
 * every register access is offered to it first; it returns true if the
 * address is one of its registers (and for a read, puts the value in *v).
 * Unclaimed accesses are plain memory.
 */
struct host_mmio_hook {
	bool (*read)(const volatile void *addr, u32 size, u64 *v);
	bool (*write)(volatile void *addr, u32 size, u64 v);
};
extern const struct host_mmio_hook *host_mmio_hook;

#endif
