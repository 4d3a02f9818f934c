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
	u32 align;
	u32 flags;              /* SLAB_* */
	u32 order;              /* each slab is 2^order pages */
	u32 objs_per_slab;
	struct spinlock lock;
	struct list_head partial, full;
	u64 nr_slabs;
	u64 inuse;              /* objects handed out now */
	u64 total_allocs, total_frees;
	u64 poison_errors;      /* SLAB_POISON: corrupted free objects found */
	struct list_head caches;        /* all caches, for statistics */
};

void slab_init(void);

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align, unsigned flags);
/* Give back a cache with no object in use; false (said) if some still are. */
bool kmem_cache_destroy(struct kmem_cache *cache);
void *kmem_cache_alloc(struct kmem_cache *cache, unsigned alloc_flags);  /* ALLOC_* */
void kmem_cache_free(struct kmem_cache *cache, void *obj);

void *kmalloc(size_t size, unsigned alloc_flags);
void kfree(const void *p);

/* Up to max caches into out[], oldest first; returns how many there are in all. */
u32 slab_caches(struct kmem_cache **out, u32 max);

/* Print one line per cache: name, object size, in use, slabs. */
void slab_print(void);

#endif
