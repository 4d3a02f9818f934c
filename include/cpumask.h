/* SPDX-License-Identifier: MIT */
/*
 * cpumask.h - sets of logical CPU numbers, and the "0-3,6" notation.
 *
 * A cpumask is a bitmap of MAX_CPUS bits. Logical CPU numbers are indexes
 * into the MADT's enabled CPUs, in table order (the numbering every
 * printed CPU list uses, docs/interface.md), not APIC IDs, which may be sparse (0,1,2,4,5,6 on two sockets of three).
 */
#ifndef CPUMASK_H
#define CPUMASK_H

#include "param.h"
#include "types.h"

struct cpumask {
	u64 bits[MAX_CPUS / 64];
};

static inline void cpumask_set(struct cpumask *m, u32 cpu)
{
	if (cpu < MAX_CPUS)
		m->bits[cpu / 64] |= 1UL << (cpu % 64);
}

static inline bool cpumask_test(const struct cpumask *m, u32 cpu)
{
	return cpu < MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	for (u32 i = 0; i < MAX_CPUS / 64; i++)
		if (m->bits[i])
			return false;
	return true;
}

/* dst = a & ~b: the CPUs of a that are not in b (dst may be a or b). */
static inline void cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
				  const struct cpumask *b)
{
	for (u32 i = 0; i < MAX_CPUS / 64; i++)
		dst->bits[i] = a->bits[i] & ~b->bits[i];
}

u32 cpumask_weight(const struct cpumask *m);

/* Write m as "0-3,6" (or "none" if empty) into buf; returns buf. */
char *cpumask_format(const struct cpumask *m, char *buf, size_t size);

/*
 * Parse "0-3,6" or "all" (the CPUs 0..ncpus-1) into *m. Every CPU must be
 * below ncpus. On failure returns false and sets *why.
 */
bool cpumask_parse(const char *s, u32 ncpus, struct cpumask *m, const char **why);

#endif
