/* SPDX-License-Identifier: MIT */
/*
 * param.h - testbed's limits and tunables, in one place (like xv6's param.h).
 *
 * Each constant says what it bounds and where its value comes from. Later
 * subsystems (RCU, swiotlb, the scheduler) add theirs here.
 */
#ifndef PARAM_H
#define PARAM_H

/* Memory layout (see docs/boot.md for the picture). */
#define KERNEL_PHYS      0x200000UL             /* where GRUB loads the image: 2 MiB */
#define KERNEL_VMA       0xffffffff80000000UL   /* kernel image: -2 GiB + physical address */
#define PAGE_OFFSET      0xffff800000000000UL   /* direct map: virt = PAGE_OFFSET + phys */
#define DIRECT_MAP_SIZE  (1UL << 46)            /* 64 TiB of physical address space */

/* Stacks: every kernel stack has an unmapped guard page below it. */
#define STACK_AREA       0xffffe00000000000UL   /* thread and IST stacks allocated at run time */
#define STACK_SLOT       (64 * 1024)            /* one stack per slot: guard page + up to 60 KiB */
#define MAX_STACKS       8192                   /* slots in the stack area (512 MiB of addresses): 3 per CPU + threads */
#define KSTACK_SIZE      (16 * 1024)            /* boot and thread stacks */
#define IST_STACK_SIZE   (8 * 1024)             /* double fault and NMI stacks */

/* Boot. */
#define MB2_INFO_MAX     (64 * 1024)            /* multiboot2 info we copy (OVMF's is ~8 KiB) */
#define CMDLINE_MAX      1024                   /* GRUB's line + fw_cfg's, joined */
#define MMAP_MAX         256                    /* memory map entries kept */
#define EARLY_PT_PAGES   256                    /* page-table pages before any allocator: 1 MiB */

/*
 * Machine facts (ACPI, NUMA). An entry past any of these limits is counted
 * and reported ("ACPI: MADT: 6 of 1030 CPU entries dropped ..."), never a
 * reason to drop the rest of its table. Static per-CPU state sized by
 * MAX_CPUS (percpu, call queues, idle threads, runqueues, RCU, softirq,
 * timers) grows .bss with every possible CPU: docs/memory.md says how much.
 */
#ifndef MAX_CPUS                                /* the host simulator builds with more */
#define MAX_CPUS         1024                   /* logical CPUs (2-socket EPYC: 512 threads); more are counted, not run */
#endif
#define MAX_NODES        64                     /* NUMA nodes (ACPI proximity domains) */
#define MAX_MEM_AFFINITY 128                    /* SRAT memory ranges kept */
#define MAX_IOAPICS      64                     /* 4-socket Xeon: one per IIO stack, ~6 a socket */
#define MAX_IRQ_OVERRIDES 32                    /* MADT interrupt source overrides */
#define MAX_LAPIC_NMIS   MAX_CPUS               /* MADT local APIC NMI entries (one per CPU, or one for all) */
#define MAX_DRHD         32                     /* DMAR remapping units (VT-d) described */
#define MAX_IVHD         32                     /* IVRS IOMMUs (AMD-Vi) described */
#define MAX_MCFG         16                     /* PCI segment groups (ECAM windows) */
#define ACPI_TABLE_MAX   (16UL << 20)           /* longer "tables" are corrupt */
#define ACPI_MAX_TABLES  64                     /* root-table entries looked at */
#define PHYS_ADDR_MAX    (1UL << 52)            /* x86-64 architectural limit */

/* Memory allocators. */
#define BOOTMEM_MAX_RANGES 256                  /* memory and reserved ranges of the boot allocator */
#define MAX_ORDER        10                     /* buddy blocks up to 2^10 pages = 4 MiB */
#define DMA32_LIMIT      (1UL << 32)            /* ZONE_DMA32: what a 32-bit device can reach */

/* SMP and scheduling. */
#define SPINLOCK_DEBUG   1                      /* locks remember their CPU: catch recursion */
#define SCHED_SLICE_MS   100                    /* time slice: 2.6.14's DEF_TIMESLICE */
#define SCHED_MIN_SLICE_MS 5                    /* the lowest priority's: 2.6.14's MIN_TIMESLICE */
#define SCHED_MAX_SLICE_MS 800                  /* the highest priority's: 2.6.14's nice -20 */
#define AP_ONLINE_TIMEOUT_MS   2000     /* STARTUP -> online; TCG with many CPUs is slow */
#define STOP_TIMEOUT_US        100000   /* how long a panic waits for the others to halt */
#define CALL_QUEUE_LEN         16       /* calls waiting per CPU; a full queue makes callers spin */

/* Consoles and printk. */
#define LOG_BUF_SIZE     (256 * 1024)           /* printk ring: dmesg, scroll-back, late consoles; a test=all boot logs ~45 KiB */
#define SERIAL_BAUD      115200
#define CONSOLE_LOGLEVEL 7                      /* loglevel=: show levels below 7 (not debug) */

#endif
