/* SPDX-License-Identifier: MIT */
/*
 * slab.h - object caches (kmem_cache) and kmalloc.
 *
 * A kmem_cache hands out objects of one size. It takes whole pages (slabs)
 * from the page allocator and cuts each into objects; a slab's free objects
 * form a list threaded through the objects themselves (page->freelist).
 * Slabs move between three lists as they fill and empty:
 *
 *   partial (some free) --alloc--> full (none free) --free--> partial
 *   partial --free of the last object--> freed back to the page allocator
 *
 * kfree() finds an object's cache from its page (phys_to_page()->cache),
 * so kmalloc needs no header in front of each block. kmalloc sizes are
 * powers of two from 8 to 2048 bytes; larger requests get whole pages.
 *
 * With SLAB_POISON, a freed object is filled with POISON_FREE and checked
 * when it is handed out again: a write after free is reported.
 *
 * In front of the slabs, each CPU has a magazine per cache (SLAB's per-CPU
 * array_cache, 2.6.14): a stack of free objects it allocates from and frees
 * to without a lock, refilled from and flushed to the slabs in batches.
 * Objects in magazines are free but out of their slabs, so they keep slabs
 * (and pages) from the page allocator until a drain: slab_drain_all()
 * empties every CPU's magazines, and the leak checks call it first.
 * SLAB_POISON caches have no magazines (kernel/slab.c says why).
 */
#ifndef SLAB_H
#define SLAB_H

#include "list.h"
#include "spinlock.h"
#include "types.h"

#define SLAB_POISON   (1u << 0)
#define POISON_FREE   0x6b      /* Linux's byte for freed objects */

struct kmem_cache {
	const char *name;
	u32 object_size;        /* as asked */
	u32 size;               /* per object in the slab: rounded up to align */
	u32 size_reciprocal;    /* ceil(2^32 / size): an object's index without a division */
	u32 align;
	u32 flags;              /* SLAB_* */
	u32 order;              /* each slab is 2^order pages */
	u32 objs_per_slab;
	struct spinlock lock;
	struct list_head partial, full;
	u64 nr_slabs;
	u64 active;             /* objects out of the slabs: handed out, or in a magazine */
	u64 unmagazined_allocs, unmagazined_frees;      /* under the lock, no magazine */
	u64 grown_irqs_off;     /* slabs made with interrupts off: the allocation's caller had them off */
	u64 poison_errors;      /* SLAB_POISON: corrupted free objects found */
	void *magazines;        /* nr_magazines of them, magazine_stride bytes apart; or NULL */
	u32 nr_magazines, magazine_stride, magazine_order;
	void **shared;          /* the shared array (2.6.14's l3->shared): shared[0..shared_avail), */
	u32 shared_avail, shared_limit; /* under the lock; in the magazines' block's slack, */
	u32 shared_order;               /* or in 2^shared_order pages of its own */
	bool shared_own_pages;
	u64 shared_refills, shared_flushes;     /* batches taken from it, given to it */
	struct list_head caches;        /* all caches, for statistics */
};

/* Set up kmem_cache and kmalloc's caches, with magazines for ncpus CPUs. */
void slab_init(u32 ncpus);

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align, unsigned flags);
/* Give back a cache with no object in use; false (said) if some still are. */
bool kmem_cache_destroy(struct kmem_cache *cache);
void *kmem_cache_alloc(struct kmem_cache *cache, unsigned alloc_flags);  /* ALLOC_* */
void kmem_cache_free(struct kmem_cache *cache, void *obj);
/* Free objs[0..n) of cache at once (NULLs skipped): kernel/slab.c says how. */
void kmem_cache_free_bulk(struct kmem_cache *cache, size_t n, void **objs);

void *kmalloc(size_t size, unsigned alloc_flags);
void kfree(const void *p);

/*
 * A cache's counts. Other CPUs' magazines are read without a lock: exact
 * when no CPU allocates or frees meanwhile, else a moment's picture.
 */
struct kmem_cache_stats {
	u64 in_use;             /* handed out and not freed */
	u64 cached;             /* free, waiting in the CPUs' magazines or the shared array */
	u64 shared;             /* of those, in the shared array */
	u64 shared_refills, shared_flushes;     /* batches taken from it, given to it */
	u64 active;             /* out of the slabs: in_use + cached */
	u64 slabs, objects;     /* slabs, and the objects they hold (used or not) */
	u64 allocs, frees;      /* kmem_cache_alloc()s and frees since the cache was made */
	u64 grown_irqs_off;     /* slabs made with interrupts off (a caller that had them off) */
};
void kmem_cache_get_stats(const struct kmem_cache *cache, struct kmem_cache_stats *st);
u64 kmem_cache_in_use(const struct kmem_cache *cache);  /* kmem_cache_get_stats()'s in_use */

/*
 * Empty magazines, and the shared arrays behind them, back into their
 * slabs: every CPU's of every cache (slab_drain_all), every CPU's of one
 * cache (kmem_cache_drain), both by a function call on each CPU that waits
 * for all of them, so never with interrupts off or a lock held.
 */
void slab_drain_all(void);
void kmem_cache_drain(struct kmem_cache *cache);

/* Up to max caches into out[], oldest first; returns how many there are in all. */
u32 slab_caches(struct kmem_cache **out, u32 max);

/* Print one line per cache: name, object size, in use, cached in magazines, slabs. */
void slab_print(void);

#ifdef HOST_TEST
extern u32 slab_host_cpu;       /* host tests: the CPU kernel/slab.c thinks it runs on */
/* host tests: called where a refill has made a slab with the lock dropped, as an interrupt would come */
extern void (*slab_host_while_growing)(struct kmem_cache *cache);
#endif

#endif
