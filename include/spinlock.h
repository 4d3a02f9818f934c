/* SPDX-License-Identifier: MIT */
/*
 * spinlock.h - ticket spinlocks.
 *
 * A lock is two counters: next (the ticket the next arrival takes) and owner
 * (the ticket being served). Taking the lock draws a ticket with an atomic
 * fetch-and-add and spins until owner reaches it; releasing increments
 * owner. CPUs get the lock in arrival order, which a plain test-and-set lock
 * does not promise.
 *
 * spin_lock_irqsave() also disables interrupts on this CPU, so an interrupt
 * handler that takes the same lock cannot deadlock against the code it
 * interrupted. Use it for any lock an interrupt handler may take.
 *
 * Holding a spinlock disables preemption (preempt_count > 0): the scheduler
 * refuses to switch away from a thread that holds one, and says so
 * ("scheduling while atomic"). With SPINLOCK_DEBUG (param.h) each lock
 * also remembers its holder's CPU, and taking a lock this CPU already holds
 * is reported at once instead of spinning forever.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "param.h"
#include "types.h"
#include "x86.h"
#ifndef HOST_TEST
#include "percpu.h"
#endif

struct spinlock {
	volatile u16 owner;
	volatile u16 next;
	s32 holder;             /* SPINLOCK_DEBUG: CPU holding it, -1 if none */
	const char *name;       /* for messages about this lock */
};

#define SPINLOCK_INIT(n) { .owner = 0, .next = 0, .holder = -1, .name = (n) }

static inline void spin_lock_init(struct spinlock *l, const char *name)
{
	*l = (struct spinlock)SPINLOCK_INIT(name);
}

/* Reports a lock taken twice by one CPU, then panics (kernel/panic.c). */
void spinlock_recursion(struct spinlock *l) __noreturn;

#ifndef HOST_TEST
static inline void lock_preempt_off(void) { preempt_count_inc(); }
static inline void lock_preempt_on(void) { preempt_count_dec_and_test(); }
static inline s32 lock_cpu(void) { return (s32)raw_this_cpu()->cpu; }   /* preemption off */
#else
/* Host unit tests: one thread, no preemption to count. */
static inline void lock_preempt_off(void) { }
static inline void lock_preempt_on(void) { }
static inline s32 lock_cpu(void) { return 0; }
#endif

static inline void spin_lock(struct spinlock *l) __acquires(l)
{
	lock_preempt_off();
	if (SPINLOCK_DEBUG && l->holder == lock_cpu() && l->owner != l->next)
		spinlock_recursion(l);
	u16 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	l->holder = lock_cpu();
	__acquire(l);
}

/*
 * Take the lock only if nobody holds or waits for it: true if taken.
 * spin_trylock() wraps it in __cond_lock() (include/types.h), as 2.6.14's
 * did around _spin_trylock(), so that sparse counts the lock held where the
 * caller's test is true and only there.
 */
static inline bool _spin_trylock(struct spinlock *l)
{
	u16 owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	u16 expected = owner;

	lock_preempt_off();
	if (!__atomic_compare_exchange_n(&l->next, &expected, (u16)(owner + 1), false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		lock_preempt_on();
		return false;
	}
	l->holder = lock_cpu();
	return true;
}
#define spin_trylock(l) __cond_lock(l, _spin_trylock(l))

static inline void spin_unlock(struct spinlock *l) __releases(l)
{
	__release(l);
	l->holder = -1;
	__atomic_store_n(&l->owner, (u16)(l->owner + 1), __ATOMIC_RELEASE);
	lock_preempt_on();
}

static inline bool spin_is_locked(struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

static inline u64 spin_lock_irqsave(struct spinlock *l) __acquires(l)
{
	u64 flags = irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, u64 flags) __releases(l)
{
	spin_unlock(l);
	irq_restore(flags);
}

#endif
