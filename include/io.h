/* SPDX-License-Identifier: MIT */
/*
 * io.h - device registers in memory space (MMIO), read and written with
 * Linux's accessors: readb(), readw(), readl(), readq() and writeb(),
 * writew(), writel(), writeq(), the value first (writel(v, addr)).
 *
 * ioremap() (vm.h) gives a device's registers as a `void __iomem *`, a
 * pointer sparse (make C=1) refuses to see dereferenced: a register is
 * not memory. A read may have an effect (a status register that clears
 * when read), and a write must reach the device once and at its width (a
 * 64-bit register written as two dwords takes two writes). Each accessor
 * is one volatile access of its width: the compiler neither splits,
 * merges, repeats nor drops it, nor moves it across another volatile
 * access. Against plain memory (the descriptors a doorbell tells the
 * device about) the order is the caller's, with a barrier, as
 * drivers/xhci.c's ring_doorbell() has it.
 *
 * Firmware tables are memory, not registers: memremap() (vm.h) maps them
 * and gives a plain pointer.
 */
#ifndef IO_H
#define IO_H

#include "types.h"

#ifdef HOST_TEST
/*
 * Host tests (tests/host/host.c): every access goes through
 * host_mmio_read() and host_mmio_write(), plain memory unless a test's
 * device model claims the address (host_mmio_hook, tests/host/host.h),
 * so a fake device can answer a write as hardware would.
 */
u64 host_mmio_read(const volatile void *addr, u32 size);
void host_mmio_write(volatile void *addr, u32 size, u64 v);
static inline u8 readb(const volatile void *a) { return (u8)host_mmio_read(a, 1); }
static inline u16 readw(const volatile void *a) { return (u16)host_mmio_read(a, 2); }
static inline u32 readl(const volatile void *a) { return (u32)host_mmio_read(a, 4); }
static inline u64 readq(const volatile void *a) { return host_mmio_read(a, 8); }
static inline void writeb(u8 v, volatile void *a) { host_mmio_write(a, 1, v); }
static inline void writew(u16 v, volatile void *a) { host_mmio_write(a, 2, v); }
static inline void writel(u32 v, volatile void *a) { host_mmio_write(a, 4, v); }
static inline void writeq(u64 v, volatile void *a) { host_mmio_write(a, 8, v); }
#else
static inline u8 readb(const volatile void __iomem *addr)
{
	return *(const volatile u8 __force *)addr;
}

static inline u16 readw(const volatile void __iomem *addr)
{
	return *(const volatile u16 __force *)addr;
}

static inline u32 readl(const volatile void __iomem *addr)
{
	return *(const volatile u32 __force *)addr;
}

static inline u64 readq(const volatile void __iomem *addr)
{
	return *(const volatile u64 __force *)addr;
}

static inline void writeb(u8 v, volatile void __iomem *addr)
{
	*(volatile u8 __force *)addr = v;
}

static inline void writew(u16 v, volatile void __iomem *addr)
{
	*(volatile u16 __force *)addr = v;
}

static inline void writel(u32 v, volatile void __iomem *addr)
{
	*(volatile u32 __force *)addr = v;
}

static inline void writeq(u64 v, volatile void __iomem *addr)
{
	*(volatile u64 __force *)addr = v;
}

#endif /* HOST_TEST */

#endif
