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

/* Hand all remaining memory to the page allocator, start kmalloc. */
void mm_init(void);

#endif
