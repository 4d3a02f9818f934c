// SPDX-License-Identifier: MIT
/*
 * slab.c - object caches and kmalloc, on top of the page allocator.
 *
 * A slab is one buddy block of 2^order pages cut into objects of
 * cache->size bytes, from the block's first byte on. Its bookkeeping lives
 * in the head page's struct page (inuse, freelist, list); every page of the
 * slab has PG_SLAB and points to the cache, and the head is found from any
 * of them by rounding the address down to the slab size (buddy blocks are
 * naturally aligned). A free object's first word points to the next free
 * object of its slab (NULL ends the list).
 *
 * Invariants (each cache, under its lock):
 *   - partial holds the slabs with a free object, full those without;
 *   - a slab whose last object is freed goes straight back to the page
 *     allocator. No empty slab is kept: the cost is a buddy allocation
 *     when one object is allocated and freed over and over on an empty
 *     cache, and the gain is that every page comes back, which the tests
 *     check exactly;
 *   - active is the sum of the slabs' inuse: the objects out of the slabs,
 *     whether handed out or sitting in a CPU's magazine.
 *
 * Per-CPU magazines: SLAB's array_cache, as 2.6.14's mm/slab.c has it
 * (Manfred Spraul's per-CPU arrays, 2000, made unconditional in 2002, by
 * the file's own header): avail, limit, batchcount, and the limits of its
 * enable_cpucache(). Each CPU has, per cache, a stack of free
 * objects, entry[0..avail). kmem_cache_alloc() pops the top and
 * kmem_cache_free() pushes onto it, with interrupts off on the own CPU and
 * no lock: the last object freed here is the next handed out here (warm in
 * this CPU's cache). An empty magazine is refilled with batchcount objects
 * from the slabs, a full one gives its batchcount oldest (the bottom) back,
 * each under the cache lock, once per batchcount calls. A refill takes each
 * slab's free objects as one run (take_objects(): the slab's count, the
 * cache's active and the slab's list touched once a run, every freelist
 * link checked as a single allocation checks it), as SLAB's
 * cache_alloc_refill() did a slab at a time; the lock is held
 * only to move objects (a new slab is made, an empty one given back, and
 * a flushed object's slab looked up, with the lock dropped; a new slab
 * with interrupts as the allocation's caller had them, as SLAB's
 * cache_grow() enabled them around kmem_getpages() for a caller that may
 * wait (mm/slab.c, read in copies from before and after 2.6.14's per-node
 * lists), so writing a fresh slab's free list is no interrupts-off window
 * for a caller in a thread), and a batch
 * takes it by trying, with interrupts on while it waits, as 2.6.14's x86
 * spin_lock_irqsave() did (lock_for_batch() says why). An object goes to
 * the magazine of the CPU that frees it, whichever CPU took it (RCU
 * callbacks run on the CPU that queued them, so a closed file comes back
 * to the CPU that closed it); 2.6.14 sent objects of another node's slabs
 * to "alien" caches, testbed does not (its slabs come from any node).
 *
 * The shared array: behind the magazines, each cache whose objects fit in
 * a page has, on a machine of more than one CPU, one array of
 * SHARED_BATCHES batches (480 objects up to 256 bytes), 2.6.14's
 * l3->shared ("shared = 8" in enable_cpucache() under CONFIG_SMP, "The
 * array replaces Bonwick's magazine layer"; on one CPU it "is functionally
 * equivalent (but less efficient) to a larger limit"), under the cache
 * lock. A full magazine's flush copies as much of its oldest batch there
 * as the array has room for (then nothing goes to the slabs), and an empty
 * magazine's refill takes the array's newest batch before any slab:
 * objects freed on one CPU reach another, or come back to the same one
 * after a burst of frees, without a slab list touched. 2.6.14 had one per
 * node, as its slab lists were; testbed's one list per cache has one
 * array. It lives in the slack of the magazines' block if it fits, else in
 * a page of its own. A drain empties it too.
 *
 * What the magazines change:
 *   - an object in a magazine keeps its slab out of the page allocator, so
 *     the counts of pages and of slabs are exact only after a drain
 *     (slab_drain_all(): every CPU, by IPI, empties its magazines; the leak
 *     checks do that first). 2.6.14 had the same, and kept empty slabs
 *     too while its free objects stayed within free_limit (a few hundred
 *     for filp), for cache_reap() to free later; testbed has no reaper;
 *   - kmem_cache_get_stats() tells handed-out objects (in_use) from those
 *     waiting in magazines or the shared array (cached): exact when no CPU
 *     allocates or frees meanwhile, since other CPUs' magazines are read
 *     without their lock;
 *   - SLAB_POISON caches have no magazine: every alloc and free takes the
 *     lock and goes to the slab, so the poison check on every hand-out and
 *     the freelist walk for double frees stay as they were. Without
 *     SLAB_POISON, a free checks (no lock) that obj is an object of this
 *     cache and not the one on top of the magazine (freed twice in a row);
 *     any other double free is caught only when a flush or a drain takes
 *     it to its slab, as in 2.6.14 without CONFIG_DEBUG_SLAB. With the
 *     shared array taking flushes first, that may be only at the next drain
 *     (no reaper runs): until then both copies can be handed out.
 *
 * A bulk free (kmem_cache_free_bulk(), for a burst such as one RCU pass's
 * closed files) fills the magazine's room, then the shared array's, and
 * sends the rest straight to the slabs, FLUSH_CHUNK objects per lock
 * hold, without passing through the magazine: a burst larger than the
 * magazine costs no flush and no object is checked twice. Every object
 * gets the checks a single free would give it at the same place (the
 * magazine's and the shared array's without a lock, with the object before
 * it in the array standing for the magazine's top; the slab's under the
 * lock), so the invariants above hold as they do for kmem_cache_free().
 * 2.6.14 had no bulk free: Linux's came in 2015 (kernel/slab.c's
 * kmem_cache_free_bulk() says whose).
 *
 * The order of a slab is the smallest that holds at least SLAB_MIN_OBJECTS
 * objects with at most 1/SLAB_WASTE_FRACTION of it left over, up to
 * SLAB_MAX_ORDER; small objects get order 0, 2048-byte objects order 2.
 *
 * SLAB_POISON fills a free object with POISON_FREE, except its first word,
 * which holds the freelist link, and checks the fill when the object is
 * handed out again: a difference means someone wrote after free. Such a
 * cache also looks for double frees by walking the slab's freelist; every
 * cache catches an object freed twice in a row (at the slab, or on top of
 * a magazine) and a freelist link that points outside its slab (the rest
 * of that freelist is then dropped).
 *
 * Interface (slab.h): kmem_cache_create/destroy, kmem_cache_alloc/free,
 * kmem_cache_free_bulk, kmalloc/kfree; slab_drain_all() and kmem_cache_drain() empty the
 * magazines and the shared arrays; kmem_cache_get_stats() and slab_print()
 * count.
 *
 * kmem_cache structs come from a cache themselves, kmem_cache_cache, which
 * is a static struct set up by slab_init() so it needs nothing to exist.
 * kmalloc uses caches kmalloc-8 ... kmalloc-2048 and whole pages above
 * (and for ALLOC_DMA32, which a cache cannot promise: its slabs may lie
 * anywhere); kfree tells them apart by the page: PG_SLAB, or the head of
 * a block.
 */
#include "slab.h"
#include "kstring.h"
#include "page_alloc.h"
#include "printk.h"
#include "vm.h"
#include "x86.h"
#ifndef HOST_TEST
#include "percpu.h"
#include "smp.h"
#endif

#define SLAB_MIN_OBJECTS    8   /* a slab should hold at least this many objects */
#define SLAB_MAX_ORDER      3   /* ...in at most 8 pages, as SLUB's default */
#define SLAB_WASTE_FRACTION 8   /* at most 1/8 of a slab left over */
#define SLAB_MIN_ALIGN      sizeof(void *)      /* the freelist link must be aligned */
#define KMALLOC_MIN_SHIFT   3   /* smallest class: 8 bytes */
#define KMALLOC_MAX_SHIFT   11  /* largest class: 2048 bytes; above, whole pages */
#define KMALLOC_CLASSES     (KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1)
#define MAGAZINE_ALIGN      64  /* a CPU's magazine starts on its own cache line */
#define SHARED_BATCHES      8   /* the shared array holds this many batches (2.6.14's shared) */
#define RECIPROCAL_MAX_SLAB 65536       /* is_object_of() multiplies up to this slab size */

/*
 * One CPU's magazine of one cache: SLAB's struct array_cache. Only its CPU
 * touches it, with interrupts off (and a drain IPI runs there too).
 */
struct kmem_magazine {
	u32 avail;              /* free objects in entry[0..avail); the top is entry[avail - 1] */
	u32 limit;              /* at most this many */
	u32 batchcount;         /* moved to or from the slabs at a time */
	u32 unused;
	u64 allocs, frees;      /* kmem_cache_alloc()s and frees on this CPU */
	void *entry[];
};

static u32 slab_nr_cpus = 1;   /* CPUs with magazines: slab_init()'s count */

#ifndef HOST_TEST
static u32 slab_this_cpu(void)
{
	return smp_processor_id();
}
#else
u32 slab_host_cpu;              /* the CPU a host test pretends to run on */
void (*slab_host_while_growing)(struct kmem_cache *cache);

static u32 slab_this_cpu(void)
{
	return slab_host_cpu;
}
#endif

static struct kmem_cache kmem_cache_cache;
static struct kmem_cache *kmalloc_caches[KMALLOC_CLASSES];
static const char *const kmalloc_names[KMALLOC_CLASSES] = {
	"kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-128",
	"kmalloc-256", "kmalloc-512", "kmalloc-1024", "kmalloc-2048",
};

static struct list_head all_caches = LIST_HEAD_INIT(all_caches);
static struct spinlock all_caches_lock = SPINLOCK_INIT("slab caches");

/* --- objects and slabs ---------------------------------------------------------- */

static void *next_free(const void *obj)
{
	return *(void *const *)obj;
}

static void set_next_free(void *obj, void *next)
{
	*(void **)obj = next;
}

static u64 slab_bytes(const struct kmem_cache *c)
{
	return PAGE_SIZE << c->order;
}

/*
 * Whether p is the start of one of slab's objects. The object's index is
 * the offset times size_reciprocal (ceil(2^32 / size)), shifted down by 32,
 * as Linux's obj_to_index() does with reciprocal_divide() (Eric Dumazet,
 * 2.6.21): exact while offset * (reciprocal * size - 2^32) stays below
 * 2^32, so for slabs up to 64 KiB (offsets and sizes below 2^16); bigger
 * slabs (pick_order() gives them to some objects from 9368 bytes up) divide.
 * A division is a helper call under TCG, and this runs on every free.
 */
static bool is_object_of(const struct kmem_cache *c, const struct page *slab, const void *p)
{
	uintptr_t base = (uintptr_t)page_address(slab), at = (uintptr_t)p;
	u64 off = at - base;

	if (at < base || off >= (u64)c->objs_per_slab * c->size)
		return false;
	if (!c->size_reciprocal)                /* a slab above 64 KiB: divide */
		return off % c->size == 0;
	return ((off * c->size_reciprocal) >> 32) * c->size == off;
}

/* The same test with the slab's terms read beforehand (off: p - base, which may wrap). */
static __always_inline bool is_object_at(u32 size, u32 reciprocal, u64 span, uintptr_t base,
					 const void *p)
{
	uintptr_t at = (uintptr_t)p;
	u64 off = at - base;

	if (at < base || off >= span)
		return false;
	if (!reciprocal)
		return off % size == 0;
	return ((off * reciprocal) >> 32) * size == off;
}

/* The head page of the slab holding p, or NULL if p is in no slab. */
static __always_inline struct page *slab_of(const void *p)
{
	u64 pa = virt_to_phys(p);
	struct page *page = phys_to_page(pa);

	if (!page || !(page->flags & PG_SLAB) || !page->cache)
		return NULL;
	/* A slab is one buddy block: its struct pages are consecutive, in one zone. */
	return page - ((pa & (slab_bytes(page->cache) - 1)) >> PAGE_SHIFT);
}

static void move_to(struct page *slab, struct list_head *list)
{
	list_del(&slab->list);
	list_add(&slab->list, list);
}

/* A new slab of c on no list, all objects free (and poisoned), or NULL. No lock needed. */
static struct page *new_slab(struct kmem_cache *c)
{
	struct page *slab = alloc_pages(c->order, NODE_ANY, 0);

	if (!slab)
		return NULL;
	if (!(read_rflags() & RFLAGS_IF))
		__atomic_add_fetch(&c->grown_irqs_off, 1, __ATOMIC_RELAXED);
	u8 *base = page_address(slab);

	for (u32 i = 0; i < 1u << c->order; i++) {
		slab[i].flags |= PG_SLAB;
		slab[i].cache = c;
	}
	/*
	 * The free list in address order, built from the last object down in
	 * locals: a refill that finds no partial slab makes one, so under the
	 * storms this loop runs for most objects handed out.
	 */
	u32 size = c->size;
	u8 *obj = base + (u64)c->objs_per_slab * size;
	void *next = NULL;

	if (c->flags & SLAB_POISON)
		memset(base, POISON_FREE, (u64)c->objs_per_slab * size);
	while (obj != base) {
		obj -= size;
		set_next_free(obj, next);
		next = obj;
	}
	slab->inuse = 0;
	slab->freelist = next;
	return slab;
}

/* A new slab on the partial list, or NULL. c->lock held. */
static struct page *grow(struct kmem_cache *c)
{
	struct page *slab = new_slab(c);

	if (slab) {
		list_add(&slab->list, &c->partial);
		c->nr_slabs++;
	}
	return slab;
}

/* Give an empty slab, off its list and no longer counted, back to the page allocator. */
static void release_slab(struct kmem_cache *c, struct page *slab)
{
	for (u32 i = 0; i < 1u << c->order; i++) {
		slab[i].flags &= ~PG_SLAB;
		slab[i].cache = NULL;
	}
	slab->freelist = NULL;
	free_pages(slab, c->order);
}

/* SLAB_POISON: report if obj's bytes after the link word are not all POISON_FREE. */
static void check_poison(struct kmem_cache *c, u8 *obj)
{
	for (u32 i = sizeof(void *); i < c->size; i++) {
		if (obj[i] != POISON_FREE) {
			c->poison_errors++;
			pr_err("slab: %s: object 0x%lx modified after free (byte %u is 0x%02x)\n",
			       c->name, (uintptr_t)obj, i, obj[i]);
			return;
		}
	}
}

/* Take the first free object of slab (which has one). */
static __noinline void *take_object(struct kmem_cache *c, struct page *slab)
{
	void *obj = slab->freelist, *next = next_free(obj);

	if (next && !is_object_of(c, slab, next)) {
		c->poison_errors++;
		pr_err("slab: %s: free object 0x%lx links to 0x%lx, outside its slab; "
		       "the slab's other free objects are dropped\n", c->name,
		       (uintptr_t)obj, (uintptr_t)next);
		next = NULL;
	}
	slab->freelist = next;
	slab->inuse++;
	if (!next)
		move_to(slab, &c->full);
	if (c->flags & SLAB_POISON) {
		check_poison(c, obj);
		memset(obj, POISON_FREE, sizeof(void *));
	}
	c->active++;
	return obj;
}

/*
 * obj's link, next, leaves its slab: said, and the rest of the freelist
 * dropped (NULL, the link to use). Out of line: the refill's loop keeps its
 * registers.
 */
__attribute__((cold, noinline)) static void *bad_link(struct kmem_cache *c, void *obj, void *next)
{
	c->poison_errors++;
	pr_err("slab: %s: free object 0x%lx links to 0x%lx, outside its slab; "
	       "the slab's other free objects are dropped\n", c->name, (uintptr_t)obj,
	       (uintptr_t)next);
	return NULL;
}

/*
 * Up to n of slab's free objects (it has one) into objs, from the front of
 * its freelist; how many. What n take_object()s would do, with the slab's
 * count, the cache's and the slab's list each touched once for the run:
 * SLAB's cache_alloc_refill() took a batch this way, a slab at a time
 * (2.6.14: "while (slabp->inuse < cachep->num && batchcount--)", then the
 * slab's list once). Every link is checked as take_object() checks it, so
 * a link outside the slab drops the rest of its freelist here too.
 */
static u32 take_objects(struct kmem_cache *c, struct page *slab, void **objs, u32 n)
{
	/* is_object_of()'s terms, read once: the stores to objs could alias them. */
	u32 size = c->size, reciprocal = c->size_reciprocal;
	u64 span = (u64)c->objs_per_slab * size;
	uintptr_t base = (uintptr_t)page_address(slab);
	void *obj = slab->freelist;
	u32 k = 0;

	while (obj && k < n) {
		void *next = next_free(obj);

		if (next && !is_object_at(size, reciprocal, span, base, next))
			next = bad_link(c, obj, next);
		objs[k++] = obj;
		obj = next;
	}
	slab->freelist = obj;
	slab->inuse += k;
	c->active += k;
	if (!obj)
		move_to(slab, &c->full);
	if (c->flags & SLAB_POISON) {
		for (u32 i = 0; i < k; i++) {
			check_poison(c, objs[i]);
			memset(objs[i], POISON_FREE, sizeof(void *));
		}
	}
	return k;
}

/*
 * Whether obj is already on slab's freelist. The walk stops at a link that
 * leaves the slab and after objs_per_slab steps, so a corrupted list can
 * neither fault nor loop here.
 */
static bool on_freelist(const struct kmem_cache *c, const struct page *slab, const void *obj)
{
	const void *p = slab->freelist;

	for (u32 n = 0; p && n < c->objs_per_slab && is_object_of(c, slab, p); n++, p = next_free(p))
		if (p == obj)
			return true;
	return false;
}

/* Why obj cannot be freed into c, or NULL if it can (cache lock held). */
static const char *bad_free_reason(const struct kmem_cache *c, const struct page *slab,
				   const void *obj)
{
	if (!slab || slab->cache != c)
		return "not an object of this cache";
	if (!is_object_of(c, slab, obj))
		return "not the start of an object";
	if (slab->inuse == 0 || obj == slab->freelist ||
	    ((c->flags & SLAB_POISON) && on_freelist(c, slab, obj)))
		return "already free (double free)";
	return NULL;
}

/*
 * Put obj back on its slab's freelist. A slab left empty leaves its list
 * and the count; it is given back to the page allocator at once, or, if
 * empty is not NULL, put on that list for the caller to give back after
 * dropping the lock. c->lock held.
 */
static void put_object(struct kmem_cache *c, struct page *slab, void *obj, struct list_head *empty)
{
	bool was_full = slab->freelist == NULL;

	if (c->flags & SLAB_POISON)
		memset(obj, POISON_FREE, c->size);
	set_next_free(obj, slab->freelist);
	slab->freelist = obj;
	slab->inuse--;
	c->active--;
	if (slab->inuse == 0) {
		list_del(&slab->list);
		c->nr_slabs--;
		if (empty)
			list_add(&slab->list, empty);
		else
			release_slab(c, slab);
	} else if (was_full) {
		move_to(slab, &c->partial);
	}
}

/* --- caches ----------------------------------------------------------------------- */

/* The slab order for objects of size bytes (see the top of the file). */
static u32 pick_order(u32 size)
{
	u32 order;

	for (order = 0; order <= SLAB_MAX_ORDER; order++) {
		u64 bytes = PAGE_SIZE << order;

		if (bytes / size >= SLAB_MIN_OBJECTS && bytes % size <= bytes / SLAB_WASTE_FRACTION)
			return order;
	}
	/* Big objects: fewer per slab, but still little waste if possible. */
	for (order = 0; order <= MAX_ORDER; order++) {
		u64 bytes = PAGE_SIZE << order;

		if (bytes >= size && bytes % size <= bytes / SLAB_WASTE_FRACTION)
			return order;
	}
	for (order = 0; (PAGE_SIZE << order) < size; order++)
		;
	return order;
}

/*
 * The cache lock, for a magazine's batch, as 2.6.14's x86 spin_lock_irqsave()
 * took a lock: by trying until it is free, not by queueing for a ticket
 * (its byte lock: "We make no fairness assumptions. They have a cost."),
 * and with interrupts on while waiting if the caller had them on (irq: its
 * irq_save() flags; __raw_spin_lock_string_flags did sti, spin, cli). Both
 * matter with more busy virtual CPUs than host cores: a ticket waiter the
 * host deschedules blocks every CPU behind it even after the lock is free
 * (lock-waiter preemption, why Linux's guests later got paravirtualized
 * ticket locks, 3.12, 2013), and a wait behind a descheduled holder is
 * not an interrupts-off window. Ticket locks came to x86 in 2.6.25 (Nick
 * Piggin, 2008); the rest of testbed keeps them. Preemption stays off, as
 * 2.6.14's spin_lock_irqsave() had it. Returns with interrupts off and the
 * lock held (callers spin_unlock() it); while it waited, an interrupt
 * may have used this CPU's magazine, so callers look at the magazine again
 * after it.
 */
static void lock_for_batch(struct kmem_cache *c, u64 irq) __acquires(&c->lock)
{
	while (!spin_trylock(&c->lock)) {
		lock_preempt_off();     /* the magazine is this CPU's: no switch while waiting */
		irq_restore(irq);
		while (spin_is_locked(&c->lock))
			cpu_relax();
		irq_save();
		lock_preempt_on();
	}
}

/* --- magazines -------------------------------------------------------------------- */

/*
 * A magazine's limit for objects of size bytes: 2.6.14's enable_cpucache()
 * (batchcount is half of it, rounded up). SLAB_POISON caches get none.
 */
static u32 magazine_limit(const struct kmem_cache *c)
{
	if (c->flags & SLAB_POISON)
		return 0;
	if (c->size > 131072)
		return 1;
	if (c->size > PAGE_SIZE)
		return 8;
	if (c->size > 1024)
		return 24;
	if (c->size > 256)
		return 54;
	return 120;
}

static struct kmem_magazine *magazine_of(const struct kmem_cache *c, u32 cpu)
{
	return (struct kmem_magazine *)((u8 *)c->magazines + (u64)cpu * c->magazine_stride);
}

/* This CPU's magazine of c, or NULL if c has none here. Interrupts off. */
static struct kmem_magazine *this_magazine(const struct kmem_cache *c)
{
	u32 cpu = slab_this_cpu();

	return c->magazines && cpu < c->nr_magazines ? magazine_of(c, cpu) : NULL;
}

/*
 * Give c one magazine per CPU, in a block of whole pages (a magazine
 * cannot come from a cache: kmem_cache_cache needs one too), and its
 * shared array in the block's slack or, if that is too small, in pages of
 * its own. Without the block, c works without magazines; without the
 * shared array's pages, without a shared array.
 */
static void magazines_setup(struct kmem_cache *c)
{
	u32 limit = magazine_limit(c);
	u32 shared_limit = c->size <= PAGE_SIZE && slab_nr_cpus > 1 ?
			   SHARED_BATCHES * ((limit + 1) / 2) : 0;

	if (!limit)
		return;
	c->magazine_stride = (u32)ALIGN_UP(sizeof(struct kmem_magazine) + limit * sizeof(void *),
					   MAGAZINE_ALIGN);
	u64 magazine_bytes = (u64)slab_nr_cpus * c->magazine_stride;

	c->magazine_order = page_order(magazine_bytes);
	struct page *block = c->magazine_order <= MAX_ORDER ?
			     alloc_pages(c->magazine_order, NODE_ANY, ALLOC_ZERO) : NULL;
	if (!block) {
		pr_warn("slab: %s: no memory for %u per-CPU magazines; the slabs serve alone\n",
			c->name, slab_nr_cpus);
		return;
	}
	c->magazines = page_address(block);
	c->nr_magazines = slab_nr_cpus;
	for (u32 cpu = 0; cpu < c->nr_magazines; cpu++) {
		struct kmem_magazine *m = magazine_of(c, cpu);

		m->limit = limit;
		m->batchcount = (limit + 1) / 2;
	}
	if (!shared_limit)
		return;
	if ((PAGE_SIZE << c->magazine_order) - magazine_bytes >= shared_limit * sizeof(void *)) {
		c->shared = (void **)((u8 *)c->magazines + magazine_bytes);
	} else {
		c->shared_order = page_order(shared_limit * sizeof(void *));
		struct page *own = alloc_pages(c->shared_order, NODE_ANY, 0);

		if (!own) {
			pr_warn("slab: %s: no memory for a shared array; the magazines go to the slabs\n",
				c->name);
			return;
		}
		c->shared = page_address(own);
		c->shared_own_pages = true;
	}
	c->shared_limit = shared_limit;
}

static void magazines_release(struct kmem_cache *c)
{
	if (c->magazines)
		free_pages(phys_to_page(virt_to_phys(c->magazines)), c->magazine_order);
	if (c->shared && c->shared_own_pages)
		free_pages(phys_to_page(virt_to_phys(c->shared)), c->shared_order);
	c->magazines = NULL;
	c->nr_magazines = 0;
	c->shared = NULL;
	c->shared_limit = 0;
	c->shared_own_pages = false;
}

/*
 * Up to batchcount objects into the empty magazine m (an interrupt while
 * the lock is waited for may have put some there): the shared array's
 * newest if it holds any, else from the slabs; how many it holds then.
 * A new slab is made with the lock dropped: the lock is held only to
 * move objects, so a CPU that waits for it waits for little (under TCG, a
 * holder the host preempts stalls every CPU that spins on the lock). If an
 * interrupt filled the magazine meanwhile, the new slab goes straight back:
 * on the partial list it would be an empty slab, which no free returns.
 */
__hot_batch static u32 refill(struct kmem_cache *c, struct kmem_magazine *m, u64 irq)
{
	lock_for_batch(c, irq);
	if (c->shared_avail && m->avail < m->batchcount) {
		/* The shared array's newest first, as cache_alloc_refill() took them. */
		u32 k = MIN(m->batchcount - m->avail, c->shared_avail);

		c->shared_avail -= k;
		memcpy(&m->entry[m->avail], &c->shared[c->shared_avail], k * sizeof(void *));
		m->avail += k;
		c->shared_refills++;
		spin_unlock(&c->lock);
		return m->avail;
	}
	while (m->avail < m->batchcount) {
		if (list_empty(&c->partial)) {
			spin_unlock(&c->lock);
			/*
			 * Interrupts as the caller had them while the slab is
			 * made, as SLAB's cache_grow() enabled them around
			 * kmem_getpages() for a caller that may wait: its
			 * pages are written for the first time here (under
			 * QEMU, a host fault each). Preemption stays off: the
			 * magazine is this CPU's.
			 */
			lock_preempt_off();
			irq_restore(irq);
			struct page *slab = new_slab(c);
#ifdef HOST_TEST
			if (slab_host_while_growing)
				slab_host_while_growing(c);
#endif
			irq_save();
			lock_preempt_on();
			lock_for_batch(c, irq);
			if (!slab)
				break;
			if (m->avail >= m->batchcount) {
				/*
				 * An interrupt filled the magazine meanwhile (RCU
				 * callbacks freeing files, say): the new slab is not
				 * needed, and kept it would be an empty slab, which
				 * nothing gives back (the story's leak check finds it
				 * one page short: docs/memory.md).
				 */
				spin_unlock(&c->lock);
				release_slab(c, slab);
				return m->avail;
			}
			list_add(&slab->list, &c->partial);
			c->nr_slabs++;
			continue;       /* an interrupt may have filled part of the magazine */
		}
		struct page *slab = list_first_entry(&c->partial, struct page, list);

		m->avail += take_objects(c, slab, &m->entry[m->avail], m->batchcount - m->avail);
	}
	spin_unlock(&c->lock);
	return m->avail;
}

#define FLUSH_CHUNK 32          /* objects given back per lock hold */

/*
 * Whether obj lies in prev_slab, a slab of c holding prev: true when both
 * sit in one naturally aligned block of c's slab size. Objects freed in a
 * batch are mostly neighbours (RCU runs callbacks in the order they were
 * queued, and a slab hands its objects out in address order), so this
 * saves most of a flush's struct page lookups.
 */
static bool same_slab(const struct kmem_cache *c, const struct page *prev_slab, const void *prev,
		      const void *obj)
{
	return prev_slab && prev_slab->cache == c &&
	       (virt_to_phys(prev) ^ virt_to_phys(obj)) < slab_bytes(c);
}

/*
 * objs[0..n) back to their slabs: their slabs are looked up before the
 * lock and the slabs they empty given back after it; how many were taken
 * (the others are reported). Interrupts off.
 */
static u32 free_chunk(struct kmem_cache *c, void *const *objs, u32 n, u64 irq)
{
	u32 freed = 0;
	struct page *slabs[FLUSH_CHUNK];
	const char *why[FLUSH_CHUNK];
	struct list_head empty = LIST_HEAD_INIT(empty);

	for (u32 i = 0; i < n; i++)
		slabs[i] = i && same_slab(c, slabs[i - 1], objs[i - 1], objs[i]) ? slabs[i - 1]
										 : slab_of(objs[i]);
	lock_for_batch(c, irq);
	for (u32 i = 0; i < n; i++) {
		why[i] = bad_free_reason(c, slabs[i], objs[i]);
		if (!why[i]) {
			put_object(c, slabs[i], objs[i], &empty);
			freed++;
		}
	}
	spin_unlock(&c->lock);
	while (!list_empty(&empty)) {
		struct page *slab = list_first_entry(&empty, struct page, list);

		list_del(&slab->list);
		release_slab(c, slab);
	}
	for (u32 i = 0; i < n; i++)
		if (why[i])
			pr_err("slab: %s: bad free of 0x%lx: %s\n", c->name, (uintptr_t)objs[i], why[i]);
	return freed;
}

/*
 * Up to n of m's oldest objects into the shared array, as many as it has
 * room for; how many. Interrupts off: the magazine cannot change between
 * the copy, made under the lock, and the move down after it.
 */
static u32 flush_to_shared(struct kmem_cache *c, struct kmem_magazine *m, u32 n, u64 irq)
{
	u32 k;

	lock_for_batch(c, irq);
	k = MIN(MIN(n, m->avail), c->shared_limit - c->shared_avail);
	memcpy(&c->shared[c->shared_avail], m->entry, k * sizeof(void *));
	c->shared_avail += k;
	if (k)
		c->shared_flushes++;
	spin_unlock(&c->lock);
	m->avail -= k;
	memmove(&m->entry[0], &m->entry[k], m->avail * sizeof(void *));
	return k;
}

/*
 * The n oldest objects of m (its bottom) out of the magazine: into the
 * shared array if it has room for any (then only those go, as 2.6.14's
 * cache_flusharray() did), else back to their slabs, a chunk at a time.
 * A drain (to_slabs) passes the shared array by. Each chunk leaves the
 * magazine before the lock is waited for, so an interrupt meanwhile finds
 * the magazine whole, and at most a chunk is neither in the magazine nor
 * in its slab (a drain IPI taken while the lock is waited for, interrupts
 * on, misses only those). Interrupts off.
 */
__hot_batch static void flush(struct kmem_cache *c, struct kmem_magazine *m, u32 n, u64 irq,
			      bool to_slabs)
{
	void *chunk[FLUSH_CHUNK];

	/* Looked at without the lock: a stale "full" only sends this batch to the slabs. */
	if (!to_slabs && __atomic_load_n(&c->shared_avail, __ATOMIC_RELAXED) < c->shared_limit &&
	    flush_to_shared(c, m, n, irq))
		return;
	for (n = MIN(n, m->avail); n; n = MIN(n, m->avail)) {
		u32 k = MIN(n, (u32)FLUSH_CHUNK);

		memcpy(chunk, m->entry, k * sizeof(void *));
		m->avail -= k;
		memmove(&m->entry[0], &m->entry[k], m->avail * sizeof(void *));
		free_chunk(c, chunk, k, irq);
		n -= k;
	}
}

/* The shared array's objects back to their slabs, a chunk per lock hold. Interrupts off. */
static void drain_shared(struct kmem_cache *c, u64 irq)
{
	void *chunk[FLUSH_CHUNK];
	u32 k;

	do {
		lock_for_batch(c, irq);
		k = MIN(c->shared_avail, (u32)FLUSH_CHUNK);
		c->shared_avail -= k;
		memcpy(chunk, &c->shared[c->shared_avail], k * sizeof(void *));
		spin_unlock(&c->lock);
		if (k)
			free_chunk(c, chunk, k, irq);
	} while (k);
}

/* Empty this CPU's magazine of c, and the shared array (whichever CPU comes first). */
static void drain_here(struct kmem_cache *c)
{
	u64 irq = irq_save();
	struct kmem_magazine *m = this_magazine(c);

	while (m && m->avail)
		flush(c, m, m->avail, irq, true);
	if (c->shared_limit)
		drain_shared(c, irq);
	irq_restore(irq);
}

static void drain_all_caches_here(void *unused)
{
	u64 irq = spin_lock_irqsave(&all_caches_lock);
	struct list_head *pos;

	(void)unused;
	list_for_each(pos, &all_caches)
		drain_here(list_entry(pos, struct kmem_cache, caches));
	spin_unlock_irqrestore(&all_caches_lock, irq);
}

static void drain_one_cache_here(void *cache)
{
	drain_here(cache);
}

/* Run fn(arg) on every CPU (the host: pretend to be each CPU in turn). */
static void on_every_cpu(void (*fn)(void *), void *arg)
{
#ifndef HOST_TEST
	smp_call_function_all(fn, arg, true);
#else
	u32 self = slab_host_cpu;

	for (slab_host_cpu = 0; slab_host_cpu < slab_nr_cpus; slab_host_cpu++)
		fn(arg);
	slab_host_cpu = self;
#endif
}

void slab_drain_all(void)
{
	on_every_cpu(drain_all_caches_here, NULL);
}

void kmem_cache_drain(struct kmem_cache *c)
{
	on_every_cpu(drain_one_cache_here, c);
}

/* --- caches ----------------------------------------------------------------------- */

static void cache_setup(struct kmem_cache *c, const char *name, u32 size, u32 align, u32 flags)
{
	u64 irq;

	*c = (struct kmem_cache){
		.name = name, .object_size = size, .align = align, .flags = flags,
		.size = ALIGN_UP(MAX(size, (u32)sizeof(void *)), align),
	};
	c->order = pick_order(c->size);
	if (slab_bytes(c) <= RECIPROCAL_MAX_SLAB)
		c->size_reciprocal = (u32)(((1ULL << 32) + c->size - 1) / c->size);
	c->objs_per_slab = (u32)MIN(slab_bytes(c) / c->size, 0xffffUL);  /* page->inuse is a u16 */
	c->lock = (struct spinlock)SPINLOCK_INIT(name);
	list_init(&c->partial);
	list_init(&c->full);
	magazines_setup(c);
	irq = spin_lock_irqsave(&all_caches_lock);
	list_add_tail(&c->caches, &all_caches);
	spin_unlock_irqrestore(&all_caches_lock, irq);
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size, size_t align, unsigned flags)
{
	struct kmem_cache *c;

	if (align == 0)
		align = SLAB_MIN_ALIGN;
	align = MAX(align, SLAB_MIN_ALIGN);
	if (size == 0 || size > (PAGE_SIZE << MAX_ORDER) || align > PAGE_SIZE ||
	    (align & (align - 1))) {
		pr_err("slab: cannot create %s: %zu-byte objects aligned to %zu\n", name, size,
		       align);
		return NULL;
	}
	c = kmem_cache_alloc(&kmem_cache_cache, 0);
	if (!c)
		return NULL;
	cache_setup(c, name, (u32)size, (u32)align, flags);
	return c;
}

bool kmem_cache_destroy(struct kmem_cache *c)
{
	u64 irq;

	if (!c)
		return true;
	kmem_cache_drain(c);
	irq = spin_lock_irqsave(&c->lock);
	u64 active = c->active;
	spin_unlock_irqrestore(&c->lock, irq);
	if (active) {
		pr_err("slab: cannot destroy %s: %llu objects still in use\n", c->name, active);
		return false;
	}
	irq = spin_lock_irqsave(&all_caches_lock);
	list_del(&c->caches);
	spin_unlock_irqrestore(&all_caches_lock, irq);
	magazines_release(c);
	kmem_cache_free(&kmem_cache_cache, c);  /* no slab is left: the last free returned it */
	return true;
}

u32 slab_caches(struct kmem_cache **out, u32 max)
{
	u64 irq = spin_lock_irqsave(&all_caches_lock);
	u32 n = 0;

	for (struct list_head *l = all_caches.next; l != &all_caches; l = l->next, n++)
		if (n < max)
			out[n] = container_of(l, struct kmem_cache, caches);
	spin_unlock_irqrestore(&all_caches_lock, irq);
	return n;
}

void kmem_cache_get_stats(const struct kmem_cache *c, struct kmem_cache_stats *st)
{
	*st = (struct kmem_cache_stats){
		.active = __atomic_load_n(&c->active, __ATOMIC_RELAXED),
		.slabs = __atomic_load_n(&c->nr_slabs, __ATOMIC_RELAXED),
		.allocs = __atomic_load_n(&c->unmagazined_allocs, __ATOMIC_RELAXED),
		.grown_irqs_off = __atomic_load_n(&c->grown_irqs_off, __ATOMIC_RELAXED),
		.frees = __atomic_load_n(&c->unmagazined_frees, __ATOMIC_RELAXED),
		.shared = __atomic_load_n(&c->shared_avail, __ATOMIC_RELAXED),
		.shared_refills = __atomic_load_n(&c->shared_refills, __ATOMIC_RELAXED),
		.shared_flushes = __atomic_load_n(&c->shared_flushes, __ATOMIC_RELAXED),
	};
	st->cached = st->shared;
	for (u32 cpu = 0; cpu < c->nr_magazines; cpu++) {
		const struct kmem_magazine *m = magazine_of(c, cpu);

		st->cached += __atomic_load_n(&m->avail, __ATOMIC_RELAXED);
		st->allocs += __atomic_load_n(&m->allocs, __ATOMIC_RELAXED);
		st->frees += __atomic_load_n(&m->frees, __ATOMIC_RELAXED);
	}
	st->in_use = st->active >= st->cached ? st->active - st->cached : 0;
	st->objects = st->slabs * c->objs_per_slab;
}

u64 kmem_cache_in_use(const struct kmem_cache *c)
{
	struct kmem_cache_stats st;

	kmem_cache_get_stats(c, &st);
	return st.in_use;
}

/* No magazine here: one object straight from the slabs, under the lock. */
static void *alloc_from_slab(struct kmem_cache *c)
{
	void *obj = NULL;

	spin_lock(&c->lock);
	struct page *slab = list_empty(&c->partial) ? grow(c)
						    : list_first_entry(&c->partial, struct page, list);
	if (slab) {
		obj = take_object(c, slab);
		c->unmagazined_allocs++;
	}
	spin_unlock(&c->lock);
	return obj;
}

__hot void *kmem_cache_alloc(struct kmem_cache *c, unsigned alloc_flags)
{
	void *obj = NULL;
	u64 irq;

	if (!c || !c->objs_per_slab) {
		pr_err("slab: allocation from a cache that does not exist (slab_init not run?)\n");
		return NULL;
	}
	if (alloc_flags & ALLOC_DMA32) {
		pr_err("slab: %s: ALLOC_DMA32 cannot be honoured by a cache; use alloc_pages\n",
		       c->name);
		return NULL;
	}
	irq = irq_save();
	struct kmem_magazine *m = this_magazine(c);

	if (!m) {
		obj = alloc_from_slab(c);
	} else if (m->avail || refill(c, m, irq)) {
		obj = m->entry[--m->avail];     /* the fast path: the last one freed here */
		m->allocs++;
	}
	irq_restore(irq);
	if (obj && (alloc_flags & ALLOC_ZERO))
		memset(obj, 0, c->object_size);
	return obj;
}

/*
 * Why obj cannot go into magazine m, or NULL: the checks that need no
 * lock. Inlined into kmem_cache_free() although the bulk free calls it
 * too: out of line, every free of the storm's loop paid a call.
 */
static __always_inline const char *bad_magazine_free(const struct kmem_cache *c, const struct kmem_magazine *m,
				     const void *obj)
{
	const struct page *slab = slab_of(obj);

	if (!slab || slab->cache != c)
		return "not an object of this cache";
	if (!is_object_of(c, slab, obj))
		return "not the start of an object";
	if (m->avail && m->entry[m->avail - 1] == obj)
		return "already free (double free)";
	return NULL;
}

/* No magazine here: obj straight back to its slab, under the lock; why not, or NULL. */
__attribute__((noinline)) static const char *free_to_slab(struct kmem_cache *c, void *obj)
{
	const char *why;

	spin_lock(&c->lock);
	struct page *slab = slab_of(obj);

	why = bad_free_reason(c, slab, obj);
	if (!why) {
		put_object(c, slab, obj, NULL);
		c->unmagazined_frees++;
	}
	spin_unlock(&c->lock);
	return why;
}

__hot void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	const char *why = NULL;
	u64 irq;

	if (!obj)
		return;
	irq = irq_save();
	struct kmem_magazine *m = this_magazine(c);

	if (!m) {
		why = free_to_slab(c, obj);
	} else if (!(why = bad_magazine_free(c, m, obj))) {
		while (m->avail >= m->limit)
			flush(c, m, m->batchcount, irq, false);
		m->entry[m->avail++] = obj;     /* the fast path */
		m->frees++;
	}
	irq_restore(irq);
	if (why)
		pr_err("slab: %s: bad free of 0x%lx: %s\n", c->name, (uintptr_t)obj, why);
}

/*
 * Why obj, the object after prev in a bulk, cannot go into a magazine or
 * the shared array, or NULL: bad_magazine_free()'s checks, with the
 * object before it in the bulk standing for the magazine's top.
 */
static const char *bad_bulk_free(const struct kmem_cache *c, const struct kmem_magazine *m,
				 const void *prev, const void *obj)
{
	if (obj == prev)
		return "already free (double free)";
	return bad_magazine_free(c, m, obj);
}

/*
 * objs[0..n) into the shared array, as many as it has room for after the
 * checks; how many of objs were used (given or refused). Interrupts off.
 */
static u32 bulk_to_shared(struct kmem_cache *c, struct kmem_magazine *m, void **objs, u32 n,
			  const void **prev, u64 irq)
{
	void *ok[FLUSH_CHUNK];
	u32 used = 0, k = 0, room;

	room = c->shared_limit - __atomic_load_n(&c->shared_avail, __ATOMIC_RELAXED);
	while (used < n && k < MIN(room, (u32)FLUSH_CHUNK)) {
		void *obj = objs[used++];
		const char *why;

		if (!obj)
			continue;
		if ((why = bad_bulk_free(c, m, *prev, obj))) {
			pr_err("slab: %s: bad free of 0x%lx: %s\n", c->name, (uintptr_t)obj, why);
			continue;
		}
		ok[k++] = obj;
		*prev = obj;
	}
	if (!k)
		return used;
	lock_for_batch(c, irq);
	room = MIN(k, c->shared_limit - c->shared_avail);
	memcpy(&c->shared[c->shared_avail], ok, room * sizeof(void *));
	c->shared_avail += room;
	c->shared_flushes++;
	spin_unlock(&c->lock);
	m->frees += room;
	if (room < k)                   /* another CPU filled it meanwhile: the rest to the slabs */
		m->frees += free_chunk(c, &ok[room], k - room, irq);
	return used;
}

/*
 * Free objs[0..n), all of c, as Linux's kmem_cache_free_bulk() does
 * (Christoph Lameter and Jesper Dangaard Brouer, 2015): interrupts go off
 * once for the whole array, the magazine's room is filled first, then the
 * shared array's, and the rest goes straight to the slabs, a chunk of
 * FLUSH_CHUNK per lock hold with its slabs looked up before the lock, as
 * SLUB's bulk free hands each slab its detached freelist at once. What
 * goes to the slabs never passes through the magazine, so a burst of
 * frees larger than the magazine costs no flush. NULL entries are
 * skipped. Every check of kmem_cache_free() is made: an object freed twice
 * in a row in the array is caught as on top of a magazine.
 */
__hot_batch void kmem_cache_free_bulk(struct kmem_cache *c, size_t n, void **objs)
{
	const void *prev = NULL;
	const char *why;
	size_t i = 0;
	u64 irq;

	if (!n)
		return;
	irq = irq_save();
	struct kmem_magazine *m = this_magazine(c);

	if (!m) {
		for (; i < n; i++) {
			if (objs[i] && (why = free_to_slab(c, objs[i])))
				pr_err("slab: %s: bad free of 0x%lx: %s\n", c->name,
				       (uintptr_t)objs[i], why);
		}
		irq_restore(irq);
		return;
	}
	for (; i < n && m->avail < m->limit; i++) {
		void *obj = objs[i];

		if (!obj)
			continue;
		if ((why = bad_bulk_free(c, m, prev, obj))) {
			pr_err("slab: %s: bad free of 0x%lx: %s\n", c->name, (uintptr_t)obj, why);
			continue;
		}
		m->entry[m->avail++] = obj;
		m->frees++;
		prev = obj;
	}
	while (i < n && c->shared_limit &&
	       __atomic_load_n(&c->shared_avail, __ATOMIC_RELAXED) < c->shared_limit)
		i += bulk_to_shared(c, m, &objs[i], (u32)MIN(n - i, (size_t)FLUSH_CHUNK), &prev, irq);
	while (i < n) {
		void *chunk[FLUSH_CHUNK];
		u32 k = 0;

		for (; i < n && k < FLUSH_CHUNK; i++) {
			if (!objs[i])
				continue;
			if (objs[i] == prev) {
				pr_err("slab: %s: bad free of 0x%lx: already free (double free)\n",
				       c->name, (uintptr_t)objs[i]);
				continue;
			}
			chunk[k++] = objs[i];
			prev = objs[i];
		}
		if (k)
			m->frees += free_chunk(c, chunk, k, irq);
	}
	irq_restore(irq);
}

/* --- kmalloc ------------------------------------------------------------------------ */

/* Sizes above the largest class, and ALLOC_DMA32 requests: a block of whole pages. */
static void *kmalloc_pages(size_t size, unsigned alloc_flags)
{
	unsigned order = page_order(size);

	if (order > MAX_ORDER) {
		pr_err("kmalloc: %zu bytes is more than the largest block (%lu KiB)\n", size,
		       (PAGE_SIZE << MAX_ORDER) >> 10);
		return NULL;
	}
	struct page *page = alloc_pages(order, NODE_ANY, alloc_flags);

	return page ? page_address(page) : NULL;
}

void *kmalloc(size_t size, unsigned alloc_flags)
{
	u32 shift = KMALLOC_MIN_SHIFT;

	if (size == 0)
		return NULL;
	if (size > (1UL << KMALLOC_MAX_SHIFT) || (alloc_flags & ALLOC_DMA32))
		return kmalloc_pages(size, alloc_flags);
	while ((1UL << shift) < size)
		shift++;
	return kmem_cache_alloc(kmalloc_caches[shift - KMALLOC_MIN_SHIFT], alloc_flags);
}

void kfree(const void *p)
{
	void *obj = (void *)p;
	struct page *page;

	if (!p)
		return;
	page = phys_to_page(virt_to_phys(p));
	if (page && (page->flags & PG_SLAB) && page->cache) {
		kmem_cache_free(page->cache, obj);
		return;
	}
	if (page && (page->flags & PG_HEAD) && page_address(page) == p) {
		free_pages(page, page->order);
		return;
	}
	pr_err("kfree: bad free of 0x%lx: not from kmalloc (no slab object or block there)\n",
	       (uintptr_t)p);
}

/* --- set-up and statistics ------------------------------------------------------------ */

void slab_init(u32 ncpus)
{
	slab_nr_cpus = MAX(ncpus, 1u);
	list_init(&all_caches);
	cache_setup(&kmem_cache_cache, "kmem_cache", sizeof(struct kmem_cache),
		    _Alignof(struct kmem_cache), 0);
	for (u32 i = 0; i < KMALLOC_CLASSES; i++) {
		u32 size = 1u << (KMALLOC_MIN_SHIFT + i);

		kmalloc_caches[i] = kmem_cache_create(kmalloc_names[i], size, size, 0);
	}
}

void slab_print(void)
{
	struct list_head *pos;
	u64 irq = spin_lock_irqsave(&all_caches_lock);

	list_for_each(pos, &all_caches) {
		const struct kmem_cache *c = list_entry(pos, struct kmem_cache, caches);
		struct kmem_cache_stats st;

		kmem_cache_get_stats(c, &st);
		printk("slab: %-16s %7u bytes %9llu in use %6llu cached %7llu slabs (order %u, %u per slab)",
		       c->name, c->object_size, st.in_use, st.cached, st.slabs, c->order,
		       c->objs_per_slab);
		if (c->poison_errors)
			printk(", %llu corrupted free objects", c->poison_errors);
		printk("\n");
	}
	spin_unlock_irqrestore(&all_caches_lock, irq);
}
