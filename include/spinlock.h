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
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "types.h"
#include "x86.h"

struct spinlock {
	volatile u16 owner;
	volatile u16 next;
	const char *name;       /* for messages about this lock */
};

#define SPINLOCK_INIT(n) { .owner = 0, .next = 0, .name = (n) }

static inline void spin_lock(struct spinlock *l)
{
	u16 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
}

/* Take the lock only if nobody holds or waits for it. */
static inline bool spin_trylock(struct spinlock *l)
{
	u16 owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	u16 expected = owner;

	return __atomic_compare_exchange_n(&l->next, &expected, (u16)(owner + 1), false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->owner, (u16)(l->owner + 1), __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

static inline u64 spin_lock_irqsave(struct spinlock *l)
{
	u64 flags = irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, u64 flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

#endif
