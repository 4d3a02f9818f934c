// SPDX-License-Identifier: MIT
/*
 * dma_debug.c - recording and checking every DMA mapping (see dma_debug.h).
 *
 * Two tables under one lock: live[] holds the mappings handed out and not
 * yet unmapped (a slot with dev NULL is free); gone[] is a ring of the last
 * DMA_DEBUG_GONE unmaps, with the code that unmapped them, searched newest
 * first. A lookup is a linear scan: this is a debugging aid, slow on
 * purpose, off by default.
 *
 * A mapping that finds live[] full cannot be checked later: its unmap would
 * look like one of a handle never mapped, and be refused (a bounce slot
 * leaked, data from the device lost). So the first one turns checking off
 * for the rest of the boot, in one line, and every call is let through
 * from then on, as Linux's dma-debug does when it runs out of entries
 * ("DMA-API: debugging out of memory - disabling", lib/dma-debug.c, Joerg
 * Roedel, merged for 2.6.30 in 2009; kernel/dma/debug.c today grows its
 * pool first). docs/dma.md says where testbed departs from it.
 */
#include "dma_debug.h"
#include "cmdline.h"
#include "format.h"
#include "kstring.h"
#include "ksyms.h"
#include "printk.h"
#include "spinlock.h"

static int debug_on;
PARAM_CHOICE("dma.debug", debug_on, "off", "on");

struct entry {
	const struct device *dev;       /* NULL: a free slot */
	dma_addr_t addr;
	u64 size;
	enum dma_data_direction dir;
	const void *mapped_by, *unmapped_by;
};

static struct {
	struct spinlock lock;
	struct entry live[DMA_DEBUG_ENTRIES];
	struct entry gone[DMA_DEBUG_GONE];
	u32 gone_next;
	u64 errors;
	bool out_of_entries;    /* live[] was full once: checking is off for good */
} dbg = { .lock = SPINLOCK_INIT("dma-debug") };

static const char *const dir_names[] = { "BIDIRECTIONAL", "TO_DEVICE", "FROM_DEVICE" };

/* A direction's name; a driver's garbage is named, never used as an index. */
static const char *dir_name(enum dma_data_direction dir)
{
	return (u32)dir < ARRAY_SIZE(dir_names) ? dir_names[dir] : "an invalid direction";
}

bool dma_debug_enabled(void)
{
	return debug_on && !__atomic_load_n(&dbg.out_of_entries, __ATOMIC_RELAXED);
}

u64 dma_debug_errors(void)
{
	return __atomic_load_n(&dbg.errors, __ATOMIC_RELAXED);
}

/* "name+0x12" for a code address, into buf. */
static const char *where(const void *code, char *buf, size_t len)
{
	u64 off, size;
	const char *name = code ? ksym_lookup((u64)code, &off, &size) : NULL;

	if (name)
		snprintf(buf, len, "%s+0x%llx", name, off);
	else
		snprintf(buf, len, "%p", code);
	return buf;
}

static struct entry *find(struct entry *table, u32 n, const struct device *dev, dma_addr_t addr)
{
	for (u32 i = 0; i < n; i++)
		if (table[i].dev == dev && table[i].addr == addr)
			return &table[i];
	return NULL;
}

/* The most recent unmap of (dev, addr) that gone[] still holds. */
static struct entry *find_gone(const struct device *dev, dma_addr_t addr)
{
	for (u32 back = 1; back <= DMA_DEBUG_GONE; back++) {
		struct entry *e = &dbg.gone[(dbg.gone_next - back) % DMA_DEBUG_GONE];
		if (e->dev == dev && e->addr == addr)
			return e;
	}
	return NULL;
}

/* Report one problem, with every call site known, in one line; dbg.lock held. */
static void report(const struct device *dev, const char *what, dma_addr_t addr,
		   const struct entry *e, const void *caller)
{
	char line[320], here[64], mapped[64], unmapped[64];
	size_t used = snprintf(line, sizeof(line), "dma-debug: %s: %s 0x%llx", dev->name, what, addr);

	if (caller)
		used += snprintf(line + used, sizeof(line) - used, " at %s",
				 where(caller, here, sizeof(here)));
	if (e && used < sizeof(line))
		used += snprintf(line + used, sizeof(line) - used, "; mapped %llu bytes %s at %s",
				 e->size, dir_name(e->dir), where(e->mapped_by, mapped, sizeof(mapped)));
	if (e && e->unmapped_by && used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, ", unmapped at %s",
			 where(e->unmapped_by, unmapped, sizeof(unmapped)));
	dbg.errors++;
	pr_err("%s\n", line);
}

void dma_debug_map(const struct device *dev, dma_addr_t addr, u64 size,
		   enum dma_data_direction dir, const void *caller)
{
	if (!dma_debug_enabled())
		return;
	u64 flags = spin_lock_irqsave(&dbg.lock);
	struct entry *slot = find(dbg.live, DMA_DEBUG_ENTRIES, NULL, 0);
	if (dbg.out_of_entries) {
		/* turned off while we waited for the lock */
	} else if (slot) {
		*slot = (struct entry){ dev, addr, size, dir, caller, NULL };
	} else {
		__atomic_store_n(&dbg.out_of_entries, true, __ATOMIC_RELAXED);
		pr_err("dma-debug: %s: more than %u mappings live: out of entries, checking "
		       "turned off for this boot\n", dev->name, DMA_DEBUG_ENTRIES);
	}
	spin_unlock_irqrestore(&dbg.lock, flags);
}

bool dma_debug_unmap(const struct device *dev, dma_addr_t addr, u64 *size,
		     enum dma_data_direction *dir, const void *caller)
{
	if (!dma_debug_enabled())
		return true;
	u64 flags = spin_lock_irqsave(&dbg.lock);
	struct entry *e = find(dbg.live, DMA_DEBUG_ENTRIES, dev, addr);
	bool ok = e != NULL || dbg.out_of_entries;

	if (dbg.out_of_entries) {
		/* turned off while we waited for the lock: let it through */
	} else if (!e) {
		struct entry *old = find_gone(dev, addr);
		report(dev, old ? "double unmap of" : "unmap of a handle never mapped,", addr, old,
		       caller);
	} else {
		if (e->size != *size) {
			char what[80];
			snprintf(what, sizeof(what), "unmap with size %llu (not the mapping's) of", *size);
			report(dev, what, addr, e, caller);
		}
		if (e->dir != *dir) {
			char what[80];
			snprintf(what, sizeof(what), "unmap with direction %s (not the mapping's) of",
				 dir_name(*dir));
			report(dev, what, addr, e, caller);
		}
		*size = e->size;
		*dir = e->dir;
		e->unmapped_by = caller;
		dbg.gone[dbg.gone_next++ % DMA_DEBUG_GONE] = *e;
		e->dev = NULL;
	}
	spin_unlock_irqrestore(&dbg.lock, flags);
	return ok;
}

bool dma_debug_sync(const struct device *dev, dma_addr_t addr, u64 size,
		    enum dma_data_direction *dir, const void *caller)
{
	if (!dma_debug_enabled())
		return true;
	u64 flags = spin_lock_irqsave(&dbg.lock);
	struct entry *e = find(dbg.live, DMA_DEBUG_ENTRIES, dev, addr);
	bool ok = dbg.out_of_entries || (e && size <= e->size);

	if (dbg.out_of_entries) {
		/* turned off while we waited for the lock: let it through */
	} else if (!e) {
		report(dev, "sync of a handle not mapped,", addr, find_gone(dev, addr), caller);
	} else if (!ok) {
		report(dev, "sync past the end of its mapping,", addr, e, caller);
	} else if (e->dir != DMA_BIDIRECTIONAL && *dir != e->dir) {
		char what[80];
		snprintf(what, sizeof(what), "sync with direction %s (not the mapping's) of",
			 dir_name(*dir));
		report(dev, what, addr, e, caller);
		*dir = e->dir;
	}
	spin_unlock_irqrestore(&dbg.lock, flags);
	return ok;
}

u32 dma_debug_device_done(const struct device *dev)
{
	u32 live = 0;

	if (!dma_debug_enabled())
		return 0;
	u64 flags = spin_lock_irqsave(&dbg.lock);
	for (u32 i = 0; i < DMA_DEBUG_ENTRIES && !dbg.out_of_entries; i++) {
		if (dbg.live[i].dev != dev)
			continue;
		report(dev, "still mapped when its driver let go:", dbg.live[i].addr, &dbg.live[i], NULL);
		live++;
	}
	spin_unlock_irqrestore(&dbg.lock, flags);
	return live;
}

#ifdef HOST_TEST
/* The host tests' fresh start: dma.debug on, both tables empty, checking on. */
void dma_debug_host_reset(void)
{
	memset(dbg.live, 0, sizeof(dbg.live));
	memset(dbg.gone, 0, sizeof(dbg.gone));
	dbg.gone_next = 0;
	dbg.errors = 0;
	dbg.out_of_entries = false;
	debug_on = 1;
}
#endif
