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
 *   - inuse is the sum of the slabs' inuse.
 *
 * The order of a slab is the smallest that holds at least SLAB_MIN_OBJECTS
 * objects with at most 1/SLAB_WASTE_FRACTION of it left over, up to
 * SLAB_MAX_ORDER; small objects get order 0, 2048-byte objects order 2.
 *
 * SLAB_POISON fills a free object with POISON_FREE, except its first word,
 * which holds the freelist link, and checks the fill when the object is
 * handed out again: a difference means someone wrote after free. Such a
 * cache also looks for double frees by walking the slab's freelist; every
 * cache catches an object freed twice in a row and a freelist link that
 * points outside its slab (the rest of that freelist is then dropped).
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

#define SLAB_MIN_OBJECTS    8   /* a slab should hold at least this many objects */
#define SLAB_MAX_ORDER      3   /* ...in at most 8 pages, as SLUB's default */
#define SLAB_WASTE_FRACTION 8   /* at most 1/8 of a slab left over */
#define SLAB_MIN_ALIGN      sizeof(void *)      /* the freelist link must be aligned */
#define KMALLOC_MIN_SHIFT   3   /* smallest class: 8 bytes */
#define KMALLOC_MAX_SHIFT   11  /* largest class: 2048 bytes; above, whole pages */
#define KMALLOC_CLASSES     (KMALLOC_MAX_SHIFT - KMALLOC_MIN_SHIFT + 1)

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

/* Whether p is the start of one of slab's objects. */
static bool is_object_of(const struct kmem_cache *c, const struct page *slab, const void *p)
{
	uintptr_t base = (uintptr_t)page_address(slab), at = (uintptr_t)p;

	return at >= base && at - base < (u64)c->objs_per_slab * c->size &&
	       (at - base) % c->size == 0;
}

/* The head page of the slab holding p, or NULL if p is in no slab. */
static struct page *slab_of(const void *p)
{
	u64 pa = virt_to_phys(p);
	struct page *page = phys_to_page(pa);

	if (!page || !(page->flags & PG_SLAB) || !page->cache)
		return NULL;
	return phys_to_page(ALIGN_DOWN(pa, slab_bytes(page->cache)));
}

static void move_to(struct page *slab, struct list_head *list)
{
	list_del(&slab->list);
	list_add(&slab->list, list);
}

/* A new slab on the partial list, all objects free (and poisoned), or NULL. */
static struct page *grow(struct kmem_cache *c)
{
	struct page *slab = alloc_pages(c->order, NODE_ANY, 0);

	if (!slab)
		return NULL;
	u8 *base = page_address(slab);

	for (u32 i = 0; i < 1u << c->order; i++) {
		slab[i].flags |= PG_SLAB;
		slab[i].cache = c;
	}
	slab->inuse = 0;
	slab->freelist = NULL;
	for (u32 i = c->objs_per_slab; i-- > 0; ) {
		void *obj = base + (u64)i * c->size;

		if (c->flags & SLAB_POISON)
			memset(obj, POISON_FREE, c->size);
		set_next_free(obj, slab->freelist);
		slab->freelist = obj;
	}
	list_add(&slab->list, &c->partial);
	c->nr_slabs++;
	return slab;
}

/* Give an empty slab, already off its list, back to the page allocator. */
static void shrink(struct kmem_cache *c, struct page *slab)
{
	for (u32 i = 0; i < 1u << c->order; i++) {
		slab[i].flags &= ~PG_SLAB;
		slab[i].cache = NULL;
	}
	slab->freelist = NULL;
	free_pages(slab, c->order);
	c->nr_slabs--;
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
static void *take_object(struct kmem_cache *c, struct page *slab)
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
	c->inuse++;
	c->total_allocs++;
	return obj;
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

static void put_object(struct kmem_cache *c, struct page *slab, void *obj)
{
	bool was_full = slab->freelist == NULL;

	if (c->flags & SLAB_POISON)
		memset(obj, POISON_FREE, c->size);
	set_next_free(obj, slab->freelist);
	slab->freelist = obj;
	slab->inuse--;
	c->inuse--;
	c->total_frees++;
	if (slab->inuse == 0) {
		list_del(&slab->list);
		shrink(c, slab);
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

static void cache_setup(struct kmem_cache *c, const char *name, u32 size, u32 align, u32 flags)
{
	u64 irq;

	*c = (struct kmem_cache){
		.name = name, .object_size = size, .align = align, .flags = flags,
		.size = ALIGN_UP(MAX(size, (u32)sizeof(void *)), align),
	};
	c->order = pick_order(c->size);
	c->objs_per_slab = (u32)MIN(slab_bytes(c) / c->size, 0xffffUL);  /* page->inuse is a u16 */
	c->lock = (struct spinlock)SPINLOCK_INIT(name);
	list_init(&c->partial);
	list_init(&c->full);
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
	irq = spin_lock_irqsave(&c->lock);
	u64 inuse = c->inuse;
	spin_unlock_irqrestore(&c->lock, irq);
	if (inuse) {
		pr_err("slab: cannot destroy %s: %llu objects still in use\n", c->name, inuse);
		return false;
	}
	irq = spin_lock_irqsave(&all_caches_lock);
	list_del(&c->caches);
	spin_unlock_irqrestore(&all_caches_lock, irq);
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

void *kmem_cache_alloc(struct kmem_cache *c, unsigned alloc_flags)
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
	irq = spin_lock_irqsave(&c->lock);
	struct page *slab = list_empty(&c->partial) ? grow(c)
						    : list_first_entry(&c->partial, struct page, list);
	if (slab)
		obj = take_object(c, slab);
	spin_unlock_irqrestore(&c->lock, irq);
	if (obj && (alloc_flags & ALLOC_ZERO))
		memset(obj, 0, c->object_size);
	return obj;
}

void kmem_cache_free(struct kmem_cache *c, void *obj)
{
	const char *why;
	u64 irq;

	if (!obj)
		return;
	irq = spin_lock_irqsave(&c->lock);
	struct page *slab = slab_of(obj);

	why = bad_free_reason(c, slab, obj);
	if (!why)
		put_object(c, slab, obj);
	spin_unlock_irqrestore(&c->lock, irq);
	if (why)
		pr_err("slab: %s: bad free of 0x%lx: %s\n", c->name, (uintptr_t)obj, why);
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

void slab_init(void)
{
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

		printk("slab: %-16s %7u bytes %9llu in use %7llu slabs (order %u, %u per slab)",
		       c->name, c->object_size, c->inuse, c->nr_slabs, c->order,
		       c->objs_per_slab);
		if (c->poison_errors)
			printk(", %llu corrupted free objects", c->poison_errors);
		printk("\n");
	}
	spin_unlock_irqrestore(&all_caches_lock, irq);
}
