// SPDX-License-Identifier: MIT
/*
 * sched.c - kernel threads, per-CPU run queues, round robin with preemption.
 *
 * The picture (see sched.h for the states):
 *
 *   CPU 0: current = A    rq: B -> C       idle0 (runs when rq is empty)
 *   CPU 1: current = D    rq: (empty)      idle1
 *
 * schedule() on a CPU, with interrupts off and its run-queue lock held:
 *   1. prev = current: if it is still runnable it goes to the tail of the
 *      queue (of this CPU, or, if its affinity forbids this CPU, of another:
 *      that move waits until prev has fully left, see finish_switch());
 *   2. next = head of the queue, or the idle thread;
 *   3. switch_to() (kernel/switch.asm) saves prev's registers on its stack
 *      and resumes next, which returns from its own earlier switch_to() and
 *      runs finish_switch(): the lock is released there, by the new thread.
 *
 * Invariants:
 *   - a thread is on at most one run queue, and only while RUNNABLE and not
 *     running; t->cpu names the queue, and only changes under that lock;
 *   - t->on_cpu is true from the moment a CPU picks t until the CPU has
 *     switched to another thread: nobody else may run t meanwhile;
 *   - a wakeup of a thread that is still on its way out (BLOCKED but
 *     on_cpu) only marks it RUNNABLE: schedule() then keeps it runnable;
 *   - schedule() must be entered with preempt_count 0 (it checks), so no
 *     spinlock is held across a switch except the run queue's own.
 *
 * RCU hooks in at three places: every pass through schedule() and every
 * tick that lands in an idle thread or in user mode are quiescent states (a
 * tick in a busy kernel thread is not), and RCU's callbacks run on
 * interrupt exit, in sched_preempt_irq(), before any switch.
 *
 * A thread in user mode (kernel/user.c) has kstack_user set: the kernel
 * stack its interrupts and system calls land on. The switch to it points
 * this CPU's TSS.RSP0 and SYSCALL stack there.
 */
#include "sched.h"
#include "apic.h"
#include "format.h"
#include "kstring.h"
#include "page_alloc.h"
#include "panic.h"
#include "printk.h"
#include "rcu.h"
#include "slab.h"
#include "smp.h"
#include "softirq.h"
#include "time.h"
#include "vm.h"
#include "x86.h"

struct runqueue {
	struct spinlock lock;
	struct list_head queue;         /* RUNNABLE threads, FIFO */
	u32 nr_queued;
	u64 switches;
	struct thread *migrating;       /* prev, to be moved once it has left (finish_switch) */
	struct thread *prev;            /* the thread switched away from (finish_switch) */
};

static struct runqueue runqueues[MAX_CPUS];
static struct thread boot_thread;       /* kernel_main, on the boot stack */
static struct kmem_cache *thread_cache;
static u32 next_tid = 1;

void switch_to(u64 *save_rsp, u64 next_rsp);
extern char thread_entry[];

/* A time slice in ticks: SCHED_SLICE_MS; SCHED_MIN_SLICE_MS lowest, SCHED_MAX_SLICE_MS highest. */
static u32 slice_ticks(const struct thread *t)
{
	u64 ms = t->lowest_priority ? SCHED_MIN_SLICE_MS :
		 t->highest_priority ? SCHED_MAX_SLICE_MS : SCHED_SLICE_MS;

	return (u32)MAX(ms * hz / 1000, 1);
}

static struct runqueue *rq_of(u32 cpu)
{
	return &runqueues[cpu];
}

static void enqueue(struct runqueue *rq, struct thread *t)
{
	list_add_tail(&t->rq_link, &rq->queue);
	rq->nr_queued++;
}

static struct thread *dequeue_head(struct runqueue *rq)
{
	if (list_empty(&rq->queue))
		return NULL;
	struct thread *t = list_first_entry(&rq->queue, struct thread, rq_link);
	list_del(&t->rq_link);
	rq->nr_queued--;
	return t;
}

/* The allowed online CPU with the shortest queue (this one on a tie). */
static u32 pick_cpu(const struct cpumask *allowed)
{
	u32 self = smp_processor_id(), best = MAX_CPUS;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!percpu[cpu].online || !cpumask_test(allowed, cpu))
			continue;
		if (best == MAX_CPUS || rq_of(cpu)->nr_queued < rq_of(best)->nr_queued ||
		    (rq_of(cpu)->nr_queued == rq_of(best)->nr_queued && cpu == self))
			best = cpu;
	}
	return best == MAX_CPUS ? self : best;
}

/*
 * Is cpu running its idle thread? A CPU just brought up may be online
 * before it has a current thread (sched_ap_enter() sets it): that counts
 * as idle too, and it will find its queue when its idle loop starts.
 */
/*
 * Whether t, made runnable on cpu, should take it at once: the lowest
 * priority only from the idle thread, and nobody but another of the
 * highest from a thread of the highest (2.6.14 preempted only a thread of
 * lower priority: TASK_PREEMPTS_CURR).
 */
static bool wakeup_preempts(const struct thread *t, u32 cpu)
{
	struct thread *cur = __atomic_load_n(&percpu[cpu].current, __ATOMIC_ACQUIRE);

	if (!cur || cur->is_idle)
		return true;
	if (t->lowest_priority)
		return false;
	return !cur->highest_priority || t->highest_priority;
}

/* Put runnable t on cpu's queue and make sure cpu notices. Interrupts off. */
static void enqueue_on(u32 cpu, struct thread *t)
{
	struct runqueue *rq = rq_of(cpu);

	spin_lock(&rq->lock);
	t->cpu = cpu;
	t->state = THREAD_RUNNABLE;
	enqueue(rq, t);
	spin_unlock(&rq->lock);
	if (cpu != smp_processor_id()) {
		if (wakeup_preempts(t, cpu))
			smp_send_reschedule(cpu);
	} else if (this_cpu()->current->is_idle) {
		this_cpu()->need_resched = true;
	}
}

/*
 * Runs in the thread just switched to, still holding its CPU's run-queue
 * lock: the lock the previous thread took in schedule() is let go here, by
 * the next (Linux's finish_task_switch(), annotated the same way).
 */
static void finish_switch(void) __releases(rq->lock)
{
	struct runqueue *rq = rq_of(smp_processor_id());
	struct thread *prev = rq->prev, *move = rq->migrating;
	/*
	 * A dead prev with a joiner: wake the joiner first, let go of prev
	 * after. The joiner frees prev once on_cpu is false (thread_join), and
	 * may then return and exit itself; so neither may be touched after
	 * on_cpu goes false. prev->joiner is read under the lock, after prev
	 * stored THREAD_DEAD (thread_exit), which pairs with thread_join()'s
	 * store of joiner before its look at the state.
	 */
	struct thread *joiner = prev->state == THREAD_DEAD ? prev->joiner : NULL;

	if (!joiner)
		__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	rq->migrating = NULL;
	spin_unlock(&rq->lock);
	/* prev has left this CPU for good: now it may run elsewhere. */
	if (move)
		enqueue_on(pick_cpu(&move->affinity), move);
	if (joiner) {
		wake_up_thread(joiner);
		__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	}
}

void schedule(void)
{
	struct percpu *pc;
	struct runqueue *rq;
	struct thread *prev, *next;
	u64 flags = irq_save();

	pc = this_cpu();
	if (pc->preempt_count != 0)
		panic("scheduling while atomic: preempt_count %#x in thread %s%s", pc->preempt_count,
		      pc->current->name, in_softirq() ? ", in a softirq" : "");
	rq = rq_of(pc->cpu);
	spin_lock(&rq->lock);
	prev = pc->current;
	pc->need_resched = false;
	rcu_note_context_switch();      /* every pass is a quiescent state, even next == prev */

	if (!prev->is_idle && (prev->state == THREAD_RUNNING || prev->state == THREAD_RUNNABLE)) {
		prev->state = THREAD_RUNNABLE;
		if (cpumask_test(&prev->affinity, pc->cpu))
			enqueue(rq, prev);
		else
			rq->migrating = prev;
	}
	next = dequeue_head(rq);
	if (!next)
		next = pc->idle;
	if (next == prev) {
		prev->state = THREAD_RUNNING;
		prev->slice = slice_ticks(prev);        /* a new slice, even alone on the CPU */
		spin_unlock(&rq->lock);
		irq_restore(flags);
		return;
	}
	/* A thread picked here may still be leaving another CPU: wait for it. */
	while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE))
		cpu_relax();
	next->state = THREAD_RUNNING;
	next->on_cpu = true;
	next->cpu = pc->cpu;
	next->slice = slice_ticks(next);
	next->switches++;
	rq->switches++;
	rq->prev = prev;
	pc->current = next;
	if (next->kstack_user) {
		pc->tables.tss.rsp[0] = next->kstack_user;
		pc->kernel_rsp = next->kstack_user;
	}
	switch_to(&prev->rsp, next->rsp);
	/* Back in prev, on whichever CPU picked it up again. */
	finish_switch();
	irq_restore(flags);
}

/* First code of a new thread (from thread_entry in switch.asm). */
void sched_thread_start(void) __releases(rq->lock)
{
	struct thread *self;

	finish_switch();
	sti();
	self = current_thread();
	self->fn(self->arg);
	thread_exit();
}

void thread_exit(void)
{
	struct thread *self;

	cli();
	self = current_thread();
	self->state = THREAD_DEAD;
	schedule();
	panic("thread %s ran after its exit", self->name);
}

void wake_up_thread(struct thread *t)
{
	u64 flags = irq_save();

	for (;;) {
		u32 cpu = __atomic_load_n(&t->cpu, __ATOMIC_RELAXED);
		struct runqueue *rq = rq_of(cpu);

		spin_lock(&rq->lock);
		if (t->cpu != cpu) {            /* it moved while we took the lock */
			spin_unlock(&rq->lock);
			continue;
		}
		if (t->state != THREAD_BLOCKED) {
			spin_unlock(&rq->lock);
			break;
		}
		t->state = THREAD_RUNNABLE;
		if (t->on_cpu) {                /* still leaving: schedule() keeps it */
			spin_unlock(&rq->lock);
			break;
		}
		u32 target = cpumask_test(&t->affinity, cpu) ? cpu : pick_cpu(&t->affinity);
		if (target == cpu) {
			enqueue(rq, t);
			spin_unlock(&rq->lock);
			/* The lowest priority waits for its turn, unless the CPU is idle. */
			if (wakeup_preempts(t, cpu)) {
				if (cpu != smp_processor_id())
					smp_send_reschedule(cpu);
				else
					this_cpu()->need_resched = true;
			}
		} else {
			spin_unlock(&rq->lock);
			enqueue_on(target, t);
		}
		break;
	}
	irq_restore(flags);
}

/* Lay out a new stack so that switch_to() "returns" into thread_entry. */
static void prepare_stack(struct thread *t)
{
	u64 *sp = (u64 *)t->stack_top;

	*--sp = 0;                      /* fake return address: 16-byte alignment */
	*--sp = (u64)thread_entry;      /* rip */
	for (int i = 0; i < 6; i++)     /* rbp rbx r12 r13 r14 r15 */
		*--sp = 0;
	t->rsp = (u64)sp;
}

enum thread_priority { PRIO_NORMAL, PRIO_LOWEST, PRIO_HIGHEST };

static struct thread *create(const char *name, void (*fn)(void *), void *arg, u32 cpu,
			     enum thread_priority prio)
{
	struct thread *t = kmem_cache_alloc(thread_cache, ALLOC_ZERO);
	u32 node = cpu < nr_cpus ? percpu[cpu].node : raw_this_cpu()->node;   /* a preference */

	if (!t)
		return NULL;
	t->stack_top = vm_alloc_stack(KSTACK_SIZE, (int)node);
	if (!t->stack_top) {
		kmem_cache_free(thread_cache, t);
		return NULL;
	}
	kstrlcpy(t->name, name, sizeof(t->name));
	t->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
	t->fn = fn;
	t->arg = arg;
	t->lowest_priority = prio == PRIO_LOWEST;
	t->highest_priority = prio == PRIO_HIGHEST;
	list_init(&t->rq_link);
	list_init(&t->wait_link);
	if (cpu < nr_cpus) {
		cpumask_set(&t->affinity, cpu);
	} else {
		for (u32 c = 0; c < nr_cpus; c++)
			cpumask_set(&t->affinity, c);
	}
	prepare_stack(t);
	u64 flags = irq_save();
	enqueue_on(pick_cpu(&t->affinity), t);
	irq_restore(flags);
	return t;
}

struct thread *thread_create(const char *name, void (*fn)(void *), void *arg, u32 cpu)
{
	return create(name, fn, arg, cpu, PRIO_NORMAL);
}

struct thread *thread_create_lowest(const char *name, void (*fn)(void *), void *arg, u32 cpu)
{
	return create(name, fn, arg, cpu, PRIO_LOWEST);
}

struct thread *thread_create_highest(const char *name, void (*fn)(void *), void *arg, u32 cpu)
{
	return create(name, fn, arg, cpu, PRIO_HIGHEST);
}

void thread_join(struct thread *t)
{
	struct thread *self = current_thread();
	u64 flags = irq_save();

	__atomic_store_n(&t->joiner, self, __ATOMIC_SEQ_CST);
	for (;;) {
		/* Blocked first, then look: an exit in between wakes us (see finish_switch). */
		self->state = THREAD_BLOCKED;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == THREAD_DEAD)
			break;
		schedule();
	}
	self->state = THREAD_RUNNING;
	irq_restore(flags);
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE))     /* still leaving its CPU */
		cpu_relax();
	vm_free_stack(t->stack_top);
	kmem_cache_free(thread_cache, t);
}

void thread_set_affinity(struct thread *t, const struct cpumask *mask)
{
	u64 flags = irq_save();

	t->affinity = *mask;
	bool move = t == current_thread() && !cpumask_test(mask, smp_processor_id());
	irq_restore(flags);
	/* The current thread moves at its next schedule(); do it now. */
	if (move)
		schedule();
}

__hot void cond_resched(void)
{
	/* Each read on %gs: the thread may move between them (percpu.h). */
	if (this_cpu_preempt_count() != 0)
		return;
	rcu_all_qs();           /* no reader here: a quiescent state (fqs) */
	if (this_cpu_need_resched())
		schedule();
}

void yield(void)
{
	schedule();
}

void sched_tick(bool user)
{
	struct percpu *pc = this_cpu();
	struct thread *t = pc->current;

	t->ticks++;
	t->user_ticks += user;
	/*
	 * A tick in user mode, or in the idle thread itself (not in a softirq
	 * or another interrupt it was running), is a quiescent state; in the
	 * kernel it is not: 2.6.14's rcu_check_callbacks(cpu, user).
	 */
	rcu_tick(rcu_tick_quiescent(user, t->is_idle, pc->preempt_count, pc->irq_depth));
	if (t->is_idle) {
		if (rq_of(pc->cpu)->nr_queued)
			pc->need_resched = true;
		return;
	}
	if (t->slice > 0 && --t->slice == 0)
		pc->need_resched = true;
}

void sched_preempt_irq(void)
{
	struct percpu *pc = this_cpu();

	softirq_irq_exit();     /* RCU's callbacks among them, interrupts on */

	if (pc->need_resched && pc->preempt_count == 0 && pc->current)
		schedule();
}

/* Take one queued thread that may run here from the busiest other CPU. */
static bool pull_work(void)
{
	u32 self = smp_processor_id(), busiest = MAX_CPUS;
	struct thread *t, *found = NULL;
	struct list_head *pos;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (cpu != self && percpu[cpu].online && rq_of(cpu)->nr_queued &&
		    (busiest == MAX_CPUS || rq_of(cpu)->nr_queued > rq_of(busiest)->nr_queued))
			busiest = cpu;
	if (busiest == MAX_CPUS)
		return false;
	u64 flags = irq_save();
	struct runqueue *from = rq_of(busiest);
	spin_lock(&from->lock);
	list_for_each(pos, &from->queue) {
		t = list_entry(pos, struct thread, rq_link);
		if (cpumask_test(&t->affinity, self)) {
			found = t;
			break;
		}
	}
	if (found) {
		list_del(&found->rq_link);
		from->nr_queued--;
	}
	spin_unlock(&from->lock);
	if (found)
		enqueue_on(self, found);
	irq_restore(flags);
	return found != NULL;
}

/* Each CPU's idle thread: look for work, else halt until an interrupt. */
static void __noreturn idle_loop(void)
{
	for (;;) {
		struct percpu *pc = this_cpu();

		if (rq_of(pc->cpu)->nr_queued || pull_work() || pc->need_resched) {
			schedule();
			continue;
		}
		/* "sti; hlt" leaves no window: sti takes effect after hlt starts. */
		cli();
		if (!rq_of(pc->cpu)->nr_queued && !pc->need_resched)
			__asm__ volatile("sti; hlt" ::: "memory");
		else
			sti();
	}
}

/* Make the running context this CPU's thread of the given kind. */
static void adopt_current(struct thread *t, const char *name, bool idle)
{
	struct percpu *pc = this_cpu();

	kstrlcpy(t->name, name, sizeof(t->name));
	t->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
	t->state = THREAD_RUNNING;
	t->on_cpu = true;
	t->cpu = pc->cpu;
	t->is_idle = idle;
	t->slice = slice_ticks(t);
	cpumask_set(&t->affinity, pc->cpu);
	list_init(&t->rq_link);
	list_init(&t->wait_link);
	pc->current = t;
}

static void init_runqueue(u32 cpu)
{
	struct runqueue *rq = rq_of(cpu);

	spin_lock_init(&rq->lock, "runqueue");
	list_init(&rq->queue);
	percpu[cpu].rq = rq;
}

void sched_init(void)
{
	struct percpu *pc = this_cpu();
	struct thread *idle;

	thread_cache = kmem_cache_create("thread", sizeof(struct thread), 64, 0);
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		init_runqueue(cpu);
	adopt_current(&boot_thread, "main", false);
	for (u32 c = 0; c < MAX_CPUS; c++)     /* main may run anywhere */
		cpumask_set(&boot_thread.affinity, c);

	/* The boot CPU's idle thread needs a stack of its own. */
	idle = kmem_cache_alloc(thread_cache, ALLOC_ZERO);
	BUG_ON(!idle);
	idle->stack_top = vm_alloc_stack(KSTACK_SIZE, (int)pc->node);
	BUG_ON(!idle->stack_top);
	kstrlcpy(idle->name, "idle0", sizeof(idle->name));
	idle->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
	idle->is_idle = true;
	idle->state = THREAD_RUNNABLE;
	idle->cpu = pc->cpu;
	idle->fn = (void (*)(void *))idle_loop;
	cpumask_set(&idle->affinity, pc->cpu);
	list_init(&idle->rq_link);
	list_init(&idle->wait_link);
	prepare_stack(idle);
	pc->idle = idle;
	pr_info("sched: round robin, %u ms slices (%u at the lowest priority, %u at the highest), "
		"per-CPU run queues\n", SCHED_SLICE_MS, SCHED_MIN_SLICE_MS, SCHED_MAX_SLICE_MS);
}

void sched_ap_enter(void)
{
	static struct thread ap_idle[MAX_CPUS];
	struct percpu *pc = this_cpu();
	char name[16];

	snprintf(name, sizeof(name), "idle%u", pc->cpu);
	adopt_current(&ap_idle[pc->cpu], name, true);
	pc->idle = pc->current;
	sti();
	idle_loop();
}
