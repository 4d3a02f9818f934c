/* SPDX-License-Identifier: MIT */
/*
 * sched.h - kernel threads and the preemptive scheduler.
 *
 * Each CPU has a run queue: a FIFO of runnable threads. The running thread
 * keeps its CPU until it blocks, yields, or its time slice (SCHED_SLICE_MS,
 * 100 ms, counted in ticks of the hz= timer) runs out; then schedule()
 * switches to the head of the queue and puts the old thread at the tail
 * (round robin). Preemption happens on the way out of an interrupt (the
 * tick sets need_resched) and at cond_resched(), never while
 * preempt_count > 0 (spinlocks, rcu_read_lock, softirqs). When its queue
 * is empty a CPU runs its idle thread, which first tries to pull a thread
 * from the busiest CPU, then halts.
 *
 * One priority below the rest: a thread made by thread_create_lowest()
 * (ksoftirqd) gets SCHED_MIN_SLICE_MS slices, and waking it never
 * preempts anyone but the idle thread. Under load it runs once per round
 * of the queue, as a nice 19 thread ran once the others had used their
 * slices in 2.6.14's O(1) scheduler. One above: thread_create_highest()
 * (the storms' hog) gets SCHED_MAX_SLICE_MS slices, 2.6.14's nice -20
 * (task_timeslice(): "[800ms ... 100ms ... 5ms]" for nice -20 ... 19), and
 * is otherwise one of the rest (a simplification: no other levels, and
 * the highest preempts nobody).
 *
 * Thread states:
 *
 *   RUNNABLE --schedule()--> RUNNING --block--> BLOCKED --wake--> RUNNABLE
 *                               |
 *                               +--thread_exit()--> DEAD --join--> freed
 *
 * RCU (kernel/rcu.c) hooks in at two places: every pass through schedule() is a
 * quiescent state for the CPU, even when the same thread keeps running, and
 * so is every tick that lands in the idle thread or in user mode.
 */
#ifndef SCHED_H
#define SCHED_H

#include "cpumask.h"
#include "list.h"
#include "spinlock.h"
#include "types.h"

enum thread_state { THREAD_RUNNABLE, THREAD_RUNNING, THREAD_BLOCKED, THREAD_DEAD };

struct user_task;

struct thread {
	u64 rsp;                        /* saved stack pointer: switch_to() */
	u64 stack_top;                  /* vm_alloc_stack(); 0 for the boot thread */
	u32 tid;
	char name[24];
	u32 state;                      /* an enum thread_state; a u32 to load atomically, as Linux's __state */
	bool on_cpu;                    /* some CPU is running it, or still switching away */
	u32 cpu;                        /* run queue it belongs to */
	struct cpumask affinity;        /* CPUs it may run on */
	struct list_head rq_link;       /* on its run queue while RUNNABLE */
	struct list_head wait_link;     /* on a wait queue while BLOCKED */
	void (*fn)(void *arg);
	void *arg;
	u32 slice;                      /* ticks left in its time slice */
	bool lowest_priority;           /* thread_create_lowest(): short slices, never preempts */
	bool highest_priority;          /* thread_create_highest(): long slices */
	bool is_idle;
	struct thread *joiner;          /* waiting in thread_join() */
	u64 switches;                   /* times switched in */
	u64 ticks;                      /* ticks it was running for */
	u64 user_ticks;                 /* ...of which in user mode */
	u64 kstack_user;                /* in user mode: its kernel stack's top for traps (user.c) */
	struct user_task *user;         /* the user program it runs, if any */
	struct fault_catcher *catcher;  /* innermost fault_catch() it is in (trap.c) */
};

/* Start the scheduler on the boot CPU; the caller becomes its first thread. */
void sched_init(void);

/*
 * Create a thread running fn(arg), runnable on cpu (or the least loaded
 * allowed CPU with SCHED_ANY_CPU). Returns NULL if memory runs out.
 */
#define SCHED_ANY_CPU (~0u)
struct thread *thread_create(const char *name, void (*fn)(void *), void *arg, u32 cpu);

/* The same at the lowest priority (ksoftirqd's, 2.6.14's nice 19). */
struct thread *thread_create_lowest(const char *name, void (*fn)(void *), void *arg, u32 cpu);

/* The same at the highest priority (2.6.14's nice -20): SCHED_MAX_SLICE_MS slices. */
struct thread *thread_create_highest(const char *name, void (*fn)(void *), void *arg, u32 cpu);

/* End the calling thread. fn returning does the same. */
void thread_exit(void) __noreturn;

/* Wait for t to end, then free it. Only one thread may join a given thread. */
void thread_join(struct thread *t);

/* Restrict t to the CPUs in mask and move it if it is elsewhere. */
void thread_set_affinity(struct thread *t, const struct cpumask *mask);

static inline struct thread *current_thread(void);

/* Give up the CPU if need_resched is set (and preemption is allowed). */
void cond_resched(void);

/* Give up the CPU to the next runnable thread, if any. */
void yield(void);

/* The scheduler proper. Preemption must be allowed (preempt_count 0). */
void schedule(void);

/* Timer tick on this CPU (interrupts off): slices, idle accounting, RCU; user: it landed in user mode. */
void sched_tick(bool user);

/* Called on interrupt exit: switch if the interrupted code may be preempted. */
void sched_preempt_irq(void);

/*
 * A new thread's first C code, called from thread_entry in kernel/switch.asm:
 * it still holds its CPU's run-queue lock, taken by the schedule() that
 * switched to it, and lets go of it first, as Linux's schedule_tail().
 */
void sched_thread_start(void) __releases(rq->lock);

/*
 * Blocking, the base of wait queues: with interrupts off, set the current
 * thread's state to THREAD_BLOCKED, make it findable by a waker, then call
 * schedule(). (Interrupts off, so no preemption can come in between and
 * put a blocked thread to sleep before it had a chance to recheck.)
 * wake_up_thread() makes a BLOCKED thread runnable; otherwise it does nothing.
 */
void wake_up_thread(struct thread *t);

/* preempt_disable() and preempt_enable() are inline, below (after percpu.h). */

/* --- wait queues, completions, mutexes ------------------------------------ */

struct waitqueue {
	struct spinlock lock;
	struct list_head waiters;
};

void waitqueue_init(struct waitqueue *wq);
/* Sleep until cond(arg) is true; cond is checked with the queue locked. */
void wait_event(struct waitqueue *wq, bool (*cond)(void *arg), void *arg);

/* wait_event() for at most timeout_ns; false if cond never held in time. */
bool wait_event_timeout(struct waitqueue *wq, bool (*cond)(void *arg), void *arg, u64 timeout_ns);
void wake_up_all(struct waitqueue *wq);
void wake_up_one(struct waitqueue *wq);

struct completion {
	struct waitqueue wq;
	u32 done;
};

void completion_init(struct completion *c);
void complete(struct completion *c);
void wait_for_completion(struct completion *c);

/* ...for at most timeout_ns; false (and nothing taken) on timeout. */
bool wait_for_completion_timeout(struct completion *c, u64 timeout_ns);

/* Sleep at least ms milliseconds (a timer on this CPU's tick, then a wakeup). */
void msleep(u64 ms);

struct mutex {
	struct spinlock lock;           /* protects owner and waiters */
	struct thread *owner;
	struct list_head waiters;
	const char *name;
};

/* A mutex defined statically, ready before any code runs: static struct mutex m = MUTEX_INIT(m, "m"). */
#define MUTEX_INIT(m, name_) \
	{ .lock = SPINLOCK_INIT("mutex"), .owner = NULL, .waiters = LIST_HEAD_INIT((m).waiters), \
	  .name = (name_) }

void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

#include "percpu.h"
#include "rcu.h"
#include "x86.h"

/*
 * One load on %gs, as Linux's x86 get_current() reads
 * pcpu_hot.current_task (arch/x86/include/asm/current.h): the same on
 * whichever CPU it runs. Through raw_this_cpu() it would be two loads,
 * and a thread moved between them would find the thread now running on
 * the CPU it left.
 */
static inline struct thread *current_thread(void)
{
	struct thread *t;

	__asm__ volatile("mov %%gs:%c1, %0" : "=r"(t) : "i"(offsetof(struct percpu, current)));
	return t;
}

/*
 * No switch on this CPU until the matching preempt_enable(), which
 * switches then if one was asked for meanwhile (and interrupts are on).
 * Inline: one instruction on %gs each way (percpu.h), since RCU readers and
 * cond_resched()'s quiescent state (rcu_all_qs()) take them on every pass.
 */
#ifndef HOST_TEST
static inline void preempt_disable(void)
{
	preempt_count_inc();
}

static inline void preempt_enable(void)
{
	if (preempt_count_dec_and_test() && this_cpu_need_resched() &&
	    (read_rflags() & RFLAGS_IF))
		schedule();
}
#else
/* Host tests (drivers/virtio_blk.c's): one thread, nothing to preempt. */
static inline void preempt_disable(void) { }
static inline void preempt_enable(void) { }
#endif

/*
 * Asked from an interrupt handler (the tick, RCU's notice IPI): is this CPU
 * in its idle thread with no reader possible (rcu_tick_quiescent(), rcu.h)?
 * A call another CPU's spin loop runs from this CPU's queue outside any
 * handler has irq_depth 0 and does not count.
 */
static inline bool idle_and_outside_readers(const struct percpu *pc)
{
	return rcu_tick_quiescent(false, pc->current && pc->current->is_idle, pc->preempt_count,
				  pc->irq_depth);
}

#endif
