/* SPDX-License-Identifier: MIT */
/*
 * mm.h - bringing up memory management at boot (kernel/mm.c).
 *
 *   memory map (sanitized) + NUMA layout
 *     -> boot allocator: RAM per node, minus the kernel image, the first MiB
 *        (one page of it kept for the AP trampoline), the multiboot2 info
 *        and GRUB modules
 *     -> [boot-time users: the swiotlb pool, later]
 *     -> page allocator (buddy, per node and zone) -> kmalloc/kmem_cache
 */
#ifndef MM_H
#define MM_H

#include "bootmem.h"
#include "mb2.h"
#include "memmap.h"
#include "types.h"

extern struct bootmem bootmem;

/* The boot allocator as it was just before the page allocator took over. */
extern struct bootmem bootmem_at_handoff;

/* Physical address of the page below 1 MiB kept for the AP trampoline (0: none). */
extern u64 ap_trampoline_phys;

/* Fill the boot allocator from the memory map and the NUMA layout. */
void bootmem_setup(const struct memmap *map, const struct boot_info *bi);

/*
 * Hand all remaining memory to the page allocator (the first MM_EAGER_PAGES
 * of each zone initialised now, the rest deferred unless mm.deferred=off),
 * give the boot CPU its per-CPU page lists, start kmalloc.
 */
void mm_init(void);

/* Once the CPUs are online: a pgdatinit thread per node with deferred pages. */
void mm_start_deferred_init(void);

/* Sleep until every pgdatinit thread is done (at once if none runs). */
void mm_wait_deferred_init(void);

/* Every online CPU gives its per-CPU page lists back to the zones (waits). */
void mm_drain_pcp_all(void);

#endif
