/* SPDX-License-Identifier: MIT */
/*
 * types.h - fixed-width integer types and the small macros every file uses.
 *
 * Only compiler-provided freestanding headers are included, so this header
 * builds the same way for the kernel and for the host unit tests.
 */
#ifndef TYPES_H
#define TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * As Linux's int-ll64.h: u64 is unsigned long long on every architecture,
 * so printk("%llu", x) fits a u64 without a cast, in the kernel and on the
 * host alike.
 */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Round x up/down to a multiple of a, which must be a power of two. */
#define ALIGN_UP(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __used __attribute__((used))
#define __weak __attribute__((weak))
#define __section(s) __attribute__((section(s)))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __noreturn __attribute__((noreturn))
/*
 * One load or one store that the compiler may neither split, merge, repeat
 * nor drop, for data another CPU or an interrupt may change under it
 * (Linux's READ_ONCE and WRITE_ONCE). The ordering is the CPU's own; x86
 * keeps loads with loads and stores with stores.
 */
#ifndef HOST_TEST
#define READ_ONCE(x)     __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
/*
 * On the host each one is also a step a model may stop at: host_step() is
 * called if a program defines it (make check-rcu's does: there
 * an interrupt may land, or the thread move to another CPU, at any
 * READ_ONCE or WRITE_ONCE of kernel/rcu.c and kernel/softirq.c).
 */
void host_step(void) __attribute__((weak));       /* NULL unless a program defines it */
#define HOST_STEP()      (host_step ? host_step() : (void)0)
#define READ_ONCE(x)     (HOST_STEP(), __atomic_load_n(&(x), __ATOMIC_RELAXED))
#define WRITE_ONCE(x, v) do {                                                   \
	__typeof__(x) once_v_ = (v);    /* the value first: a step lies between its reads and the store */ \
	HOST_STEP();                                                            \
	__atomic_store_n(&(x), once_v_, __ATOMIC_RELAXED);                      \
} while (0)
#endif

/*
 * A load that later loads may not pass, a store that earlier stores may
 * not pass (Linux's smp_load_acquire/smp_store_release): for a value that
 * says another CPU's data is ready. One step each, as READ_ONCE.
 */
#ifndef HOST_TEST
#define smp_load_acquire(p)     __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
#define smp_load_acquire(p)     (HOST_STEP(), __atomic_load_n((p), __ATOMIC_ACQUIRE))
#define smp_store_release(p, v) do {                                            \
	__typeof__(*(p)) once_v_ = (v);                                         \
	HOST_STEP();                                                            \
	__atomic_store_n((p), once_v_, __ATOMIC_RELEASE);                       \
} while (0)
#endif

/* One read-modify-write that no interrupt can split (one step on the host). */
#ifndef HOST_TEST
#define atomic_add(p, n) __atomic_add_fetch((p), (n), __ATOMIC_RELAXED)
#define atomic_sub(p, n) __atomic_sub_fetch((p), (n), __ATOMIC_RELAXED)
#else
#define atomic_add(p, n) (HOST_STEP(), __atomic_add_fetch((p), (n), __ATOMIC_RELAXED))
#define atomic_sub(p, n) (HOST_STEP(), __atomic_sub_fetch((p), (n), __ATOMIC_RELAXED))
#endif

/*
 * What sparse (make C=1) checks, and nothing to the compiler: pointers into
 * another address space, which code must not dereference directly (__rcu:
 * through rcu_dereference(); __iomem: through readl() and its kind), and
 * the locks a function takes, drops or needs held (__acquires,
 * __releases, __must_hold). __force marks a cast that leaves one on purpose.
 * __cond_lock(x, c) is a trylock's result c, with x held where it is true
 * (Linux's spin_trylock() is one): its two constants let sparse follow each
 * branch of the caller's test with the right count.
 */
#ifdef __CHECKER__
#define __rcu           __attribute__((noderef, address_space(__rcu)))
#define __iomem         __attribute__((noderef, address_space(__iomem)))
#define __force         __attribute__((force))
#define __acquires(x)   __attribute__((context(x, 0, 1)))
#define __releases(x)   __attribute__((context(x, 1, 0)))
#define __must_hold(x)  __attribute__((context(x, 1, 1)))
#define __acquire(x)    __context__(x, 1)       /* in a lock's own code: now held */
#define __release(x)    __context__(x, -1)
#define __cond_lock(x, c) ((c) ? ({ __acquire(x); 1; }) : 0)
#else
#define __rcu
#define __iomem
#define __force
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __acquire(x)    (void)0
#define __release(x)    (void)0
#define __cond_lock(x, c) (c)
#endif

/*
 * The storm's and the benchmarks' per-iteration path (__hot: .text.hot,
 * first in the kernel's text) and its per-batch slow paths (__hot_batch:
 * out of line, right after it). linker.ld says why.
 */
#define __hot __attribute__((hot))
#define __hot_batch __attribute__((hot, noinline, section(".text.hot.batch")))

/* Inlined whatever the compiler's estimate (Linux's __always_inline): a fast path's helper with a second caller. */
#ifndef __always_inline                         /* the host's libc may have it */
#define __always_inline inline __attribute__((always_inline))
#endif

/* Never inlined (Linux's noinline): a slow path kept out of its fast caller's code. */
#define __noinline __attribute__((noinline))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Fail the build when cond is true: BUILD_BUG_ON(sizeof(x) != 8). */
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

BUILD_BUG_ON(sizeof(u16) != 2 || sizeof(u32) != 4 || sizeof(u64) != 8);

#endif
