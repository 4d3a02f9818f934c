// SPDX-License-Identifier: MIT
/*
 * cpumask.c - count, print and parse CPU sets. Pure code, host-tested.
 */
#include "cpumask.h"
#include "cmdline.h"
#include "format.h"
#include "kstring.h"

u32 cpumask_weight(const struct cpumask *m)
{
	u32 n = 0;

	/* x &= x - 1 clears the lowest set bit (no popcnt: it needs libgcc or -mpopcnt). */
	for (u32 i = 0; i < MAX_CPUS / 64; i++)
		for (u64 x = m->bits[i]; x; x &= x - 1)
			n++;
	return n;
}

char *cpumask_format(const struct cpumask *m, char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++) {
		u32 last = cpu;

		if (!cpumask_test(m, cpu))
			continue;
		while (last + 1 < MAX_CPUS && cpumask_test(m, last + 1))
			last++;
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used, used ? ",%u" : "%u", cpu);
		if (last > cpu && used < size)
			used += (size_t)snprintf(buf + used, size - used, "-%u", last);
		cpu = last;
	}
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

/* One "a" or "a-b" item of s[0..len). */
static bool parse_item(const char *s, size_t len, u32 ncpus, struct cpumask *m, const char **why)
{
	const char *dash = memchr(s, '-', len);
	u64 first, last;

	if (!parse_u64(s, dash ? (size_t)(dash - s) : len, false, &first, why))
		return false;
	last = first;
	if (dash && !parse_u64(dash + 1, len - (size_t)(dash - s) - 1, false, &last, why))
		return false;
	if (last < first) {
		*why = "range runs backwards";
		return false;
	}
	if (last >= ncpus) {
		*why = "no such CPU";
		return false;
	}
	for (u64 cpu = first; cpu <= last; cpu++)
		cpumask_set(m, (u32)cpu);
	return true;
}

bool cpumask_parse(const char *s, u32 ncpus, struct cpumask *m, const char **why)
{
	struct cpumask tmp = { { 0 } };

	if (!strcmp(s, "all")) {
		for (u32 cpu = 0; cpu < ncpus && cpu < MAX_CPUS; cpu++)
			cpumask_set(&tmp, cpu);
		*m = tmp;
		return true;
	}
	if (!*s) {
		*why = "empty CPU list";
		return false;
	}
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (!parse_item(s, len, ncpus, &tmp, why))
			return false;
		s += len + (comma ? 1 : 0);
		if (comma && !*s) {
			*why = "trailing comma";
			return false;
		}
	}
	*m = tmp;
	return true;
}
