// SPDX-License-Identifier: MIT
/*
 * wait.c - sleeping until something happens: wait queues, completions,
 * mutexes. All three rest on one rule from sched.h: mark yourself BLOCKED
 * (interrupts off) where a waker can find you, then schedule(); a waker
 * takes you off its list and calls wake_up_thread().
 *
 *   waitqueue:  lock + list of sleeping threads; wait_event() sleeps until
 *               a condition, checked under the lock, holds
 *   completion: a count of "done" events on a waitqueue
 *   mutex:      an owner, and a FIFO of waiters; unlock hands the mutex
 *               straight to the first waiter, so nobody can barge in and
 *               starve it
 */
#include "sched.h"
#include "panic.h"
#include "time.h"
#include "x86.h"

void waitqueue_init(struct waitqueue *wq)
{
	spin_lock_init(&wq->lock, "waitqueue");
	list_init(&wq->waiters);
}

void wait_event(struct waitqueue *wq, bool (*cond)(void *arg), void *arg)
{
	struct thread *self = current_thread();

	for (;;) {
		u64 flags = spin_lock_irqsave(&wq->lock);
		if (cond(arg)) {
			if (!list_empty(&self->wait_link))
				list_del(&self->wait_link);
			self->state = THREAD_RUNNING;
			spin_unlock_irqrestore(&wq->lock, flags);
			return;
		}
		if (list_empty(&self->wait_link))
			list_add_tail(&self->wait_link, &wq->waiters);
		self->state = THREAD_BLOCKED;
		spin_unlock(&wq->lock);         /* interrupts stay off until schedule() */
		schedule();
		irq_restore(flags);
	}
}

/* A timed wait: the condition, or the timer having fired. */
struct timed_wait {
	bool (*cond)(void *arg);
	void *arg;
	struct waitqueue *wq;
	bool expired;
	bool met;
};

static bool timed_cond(void *arg)
{
	struct timed_wait *w = arg;

	w->met = w->cond(w->arg);
	return w->met || __atomic_load_n(&w->expired, __ATOMIC_ACQUIRE);
}

static void timed_wait_expired(struct ktimer *t)
{
	struct timed_wait *w = t->data;

	__atomic_store_n(&w->expired, true, __ATOMIC_RELEASE);
	wake_up_all(w->wq);
}

/*
 * The timer lives on this stack: timer_cancel_sync() makes sure its fn has
 * finished before the frame goes. The condition is checked once more under
 * the queue's lock by wait_event(), so a wakeup and the timer racing end the
 * same way: met if the condition held.
 */
bool wait_event_timeout(struct waitqueue *wq, bool (*cond)(void *arg), void *arg, u64 timeout_ns)
{
	struct timed_wait w = { .cond = cond, .arg = arg, .wq = wq };
	struct ktimer timer = { 0 };

	/* The timer may fire on any CPU: this one, or the one this thread left. */
	timer_add(&timer, timeout_ns, raw_smp_processor_id(), timed_wait_expired, &w);
	wait_event(wq, timed_cond, &w);
	timer_cancel_sync(&timer);
	return w.met;
}

/* Wake the first waiter, or all of them; wq->lock held. */
static void wake_locked(struct waitqueue *wq, bool all)
{
	while (!list_empty(&wq->waiters)) {
		struct thread *t = list_first_entry(&wq->waiters, struct thread, wait_link);
		list_del(&t->wait_link);
		wake_up_thread(t);
		if (!all)
			break;
	}
}

static void wake(struct waitqueue *wq, bool all)
{
	u64 flags = spin_lock_irqsave(&wq->lock);

	wake_locked(wq, all);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up_all(struct waitqueue *wq)
{
	wake(wq, true);
}

void wake_up_one(struct waitqueue *wq)
{
	wake(wq, false);
}

void completion_init(struct completion *c)
{
	waitqueue_init(&c->wq);
	c->done = 0;
}

/*
 * One lock hold for the count and the wakeup: once the lock is released,
 * the waiter may take the count and return, and a completion on its stack
 * is gone. (Releasing the lock between the two was a use-after-return the
 * virtio-blk test found: the wakeup then wrote into a dead stack frame.)
 */
void complete(struct completion *c)
{
	u64 flags = spin_lock_irqsave(&c->wq.lock);

	c->done++;
	wake_locked(&c->wq, false);
	spin_unlock_irqrestore(&c->wq.lock, flags);
}

/* Consume one "done", under the queue lock (wait_event checks conditions there). */
static bool take_done(void *arg)
{
	struct completion *c = arg;

	if (!c->done)
		return false;
	c->done--;
	return true;
}

void wait_for_completion(struct completion *c)
{
	wait_event(&c->wq, take_done, c);
}

bool wait_for_completion_timeout(struct completion *c, u64 timeout_ns)
{
	return wait_event_timeout(&c->wq, take_done, c, timeout_ns);
}

void mutex_init(struct mutex *m, const char *name)
{
	spin_lock_init(&m->lock, "mutex");
	m->owner = NULL;
	list_init(&m->waiters);
	m->name = name;
}

void mutex_lock(struct mutex *m)
{
	struct thread *self = current_thread();
	u64 flags = spin_lock_irqsave(&m->lock);

	if (m->owner == self)
		panic("mutex %s: recursive lock by %s", m->name, self->name);
	if (!m->owner) {
		m->owner = self;
		spin_unlock_irqrestore(&m->lock, flags);
		return;
	}
	list_add_tail(&self->wait_link, &m->waiters);
	while (m->owner != self) {
		self->state = THREAD_BLOCKED;
		spin_unlock(&m->lock);          /* interrupts stay off until schedule() */
		schedule();
		spin_lock(&m->lock);
	}
	self->state = THREAD_RUNNING;
	spin_unlock_irqrestore(&m->lock, flags);
}

void mutex_unlock(struct mutex *m)
{
	u64 flags = spin_lock_irqsave(&m->lock);

	if (m->owner != current_thread())
		panic("mutex %s: unlocked by %s, not its owner", m->name, current_thread()->name);
	m->owner = NULL;
	if (!list_empty(&m->waiters)) {
		struct thread *next = list_first_entry(&m->waiters, struct thread, wait_link);
		list_del(&next->wait_link);
		m->owner = next;                /* hand-off: nobody can take it in between */
		wake_up_thread(next);
	}
	spin_unlock_irqrestore(&m->lock, flags);
}

static void msleep_timeout(struct ktimer *t)
{
	complete(t->data);
}

void msleep(u64 ms)
{
	struct ktimer timer = { 0 };
	struct completion done;

	completion_init(&done);
	timer_add(&timer, ms * 1000000, raw_smp_processor_id(), msleep_timeout, &done); /* any CPU */
	wait_for_completion(&done);     /* the timer is off its list before its fn runs */
}
