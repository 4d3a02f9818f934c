// SPDX-License-Identifier: MIT
/*
 * user_test.c - user mode: programs run at privilege level 3, call the
 * kernel through SYSCALL, and die alone when they fault (see user.h).
 *
 * The programs are in tests/kernel/user_programs.asm. Each case runs one
 * on its own thread or on the test's, and checks what came back: the exit
 * status, the system calls' results as Linux would give them, the fault
 * that killed it. The last cases check what the 2005 replay rests on: a
 * tick that lands in user mode is a quiescent state, so a CPU running a
 * user program lets grace periods end without ever scheduling.
 */
#include "cpu.h"
#include "errno.h"
#include "format.h"
#include "kstring.h"
#include "ktest.h"
#include "percpu.h"
#include "rcu.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "trap.h"
#include "user.h"
#include "vfs.h"
#include "vm.h"
#include "x86.h"

extern const char user_hello[], user_getpid[], user_close_twice[], user_open_path[],
	user_write_from[], user_syscall_number[], user_open_and_leave[], user_read_kernel[],
	user_write_text[], user_cli[], user_spin[], user_registers_survive[];

#define NEED_USER(t, u, name)                                                           \
	struct user_task *u = user_task_create(name);                                    \
	if (!u)                                                                         \
		KTEST_FAIL(t, "no user task: user mode did not come up")

static void a_program_runs_and_exits_with_its_status(struct ktest *t)
{
	NEED_USER(t, u, "hello");
	EXPECT_EQ(t, user_task_run(u, user_hello, 0, 0, 0), 42);
	EXPECT_EQ(t, user_task_syscalls(u), 2);         /* write, exit */
	EXPECT_EQ(t, user_task_fault(u), 0);
	EXPECT_EQ(t, user_task_run(u, user_getpid, 0, 0, 0), current_thread()->tid);
	user_task_destroy(u);
}

static void registers_survive_a_system_call(struct ktest *t)
{
	NEED_USER(t, u, "registers");
	EXPECT_EQ(t, user_task_run(u, user_registers_survive, 0, 0, 0), 0);
	user_task_destroy(u);
}

/* Errors come back as Linux's: -errno in rax. */
static void system_calls_fail_as_linux_does(struct ktest *t)
{
	NEED_USER(t, u, "errors");
	EXPECT_EQ(t, user_task_run(u, user_close_twice, 0, 0, 0), -EBADF);
	EXPECT_EQ(t, user_task_run(u, user_syscall_number, 9999, 0, 0), -ENOSYS);
	/* A pointer into the kernel, or to nothing, is -EFAULT, not a kernel fault. */
	EXPECT_EQ(t, user_task_run(u, user_write_from, (u64)&nr_cpus, 0, 0), -EFAULT);
	EXPECT_EQ(t, user_task_run(u, user_write_from, USER_SHARED + 2 * PAGE_SIZE, 0, 0), -EFAULT);
	EXPECT_EQ(t, user_task_run(u, user_open_path, 0, 0, 0), -EFAULT);
	/* A path in its own memory: the scratch. */
	char *scratch = user_task_scratch(u);
	kstrlcpy(scratch, "/etc/passwd", USER_SCRATCH_SIZE);
	EXPECT_EQ(t, user_task_run(u, user_open_path, user_task_scratch_va(u), 0, 0), -ENOENT);
	memset(scratch, 'a', USER_SCRATCH_SIZE);        /* no NUL before the end */
	EXPECT_EQ(t, user_task_run(u, user_open_path, user_task_scratch_va(u), 0, 0), -ENAMETOOLONG);
	EXPECT_EQ(t, user_task_fault(u), 0);
	user_task_destroy(u);
}

/* Files a program leaves open are closed with its task (leaks_nothing checks nr_files). */
static void files_left_open_are_closed(struct ktest *t)
{
	NEED_USER(t, u, "leaver");
	rcu_barrier();                  /* files closed before: counted until their callbacks run */
	u64 before = vfs_open_files();

	EXPECT_EQ(t, user_task_run(u, user_open_and_leave, 3, 0, 0), 0);
	EXPECT_EQ(t, vfs_open_files(), before + 3);
	user_task_destroy(u);
	rcu_barrier();
	EXPECT_EQ(t, vfs_open_files(), before);
}

static void a_fault_kills_the_program_not_the_kernel(struct ktest *t)
{
	NEED_USER(t, u, "faulty");
	EXPECT_EQ(t, user_task_run(u, user_read_kernel, (u64)&nr_cpus, 0, 0), USER_KILLED);
	EXPECT_EQ(t, user_task_fault(u), VEC_PF + 1);
	EXPECT_EQ(t, user_task_run(u, user_write_text, 0, 0, 0), USER_KILLED);
	EXPECT_EQ(t, user_task_fault(u), VEC_PF + 1);
	EXPECT_EQ(t, user_task_run(u, user_cli, 0, 0, 0), USER_KILLED);
	EXPECT_EQ(t, user_task_fault(u), VEC_GP + 1);
	/* And the same task runs again. */
	EXPECT_EQ(t, user_task_run(u, user_hello, 0, 0, 0), 42);
	user_task_destroy(u);
}

/* A stack slot handed to a new task holds nothing of the last one's. */
static void a_reused_stack_starts_clean(struct ktest *t)
{
	NEED_USER(t, u, "first");
	u64 va = user_task_scratch_va(u);

	memset(user_task_scratch(u), 0x5a, USER_SCRATCH_SIZE);
	user_task_destroy(u);
	struct user_task *v = user_task_create("second");
	ASSERT_TRUE(t, v != NULL);
	EXPECT_EQ(t, user_task_scratch_va(v), va);      /* the same slot, lowest free first */
	const u8 *scratch = user_task_scratch(v);
	u32 dirty = 0;
	for (u32 i = 0; i < USER_SCRATCH_SIZE; i++)
		dirty += scratch[i] != 0;
	EXPECT_EQ(t, dirty, 0);
	user_task_destroy(v);
}

/* The kernel cannot run or touch user pages (SMEP, SMAP), where the CPU has them. */
static void read_user_page(void *arg)
{
	*(volatile u8 *)arg = *(volatile const u8 *)USER_TEXT;
}

static void smap_keeps_the_kernel_out(struct ktest *t)
{
	struct fault_info fi;
	u8 byte;

	if (!cpu_info.smap)
		KTEST_SKIP(t, "no SMAP on this CPU");
	EXPECT_TRUE(t, read_cr4() & CR4_SMAP);
	EXPECT_TRUE(t, fault_catch(read_user_page, &byte, &fi));
	EXPECT_EQ(t, fi.vector, VEC_PF);
	EXPECT_EQ(t, fi.cr2, USER_TEXT);
	/* copy_from_user() may. */
	EXPECT_EQ(t, copy_from_user(&byte, USER_TEXT, 1), 0);
}

/* Programs on every CPU at once, each with its own stack and files. */
static void every_cpu_runs_a_program(void *arg)
{
	struct user_task *u = user_task_create("per-cpu");
	long *status = arg;

	*status = u ? user_task_run(u, user_close_twice, 0, 0, 0) : -ENOMEM;
	user_task_destroy(u);
}

static void programs_on_every_cpu(struct ktest *t)
{
	static struct thread *threads[MAX_CPUS];
	static long status[MAX_CPUS];

	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		status[cpu] = 1;
		threads[cpu] = percpu[cpu].online ? thread_create("user", every_cpu_runs_a_program,
								  &status[cpu], cpu) : NULL;
	}
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!threads[cpu])
			continue;
		thread_join(threads[cpu]);
		EXPECT_EQ(t, status[cpu], -EBADF);
	}
}

/*
 * A program on a thread free to move: user entry and the user copy's
 * fault catcher must not depend on the CPU the thread started on (with
 * debug=on, reading this CPU's data there is a "debug:" line).
 */
#define WANDERS 8

static void wander(void *arg)
{
	struct user_task *u = user_task_create("wanderer");
	u32 *efaults = arg;

	for (u32 i = 0; u && i < WANDERS; i++) {
		*efaults += user_task_run(u, user_write_from, (u64)&nr_cpus, 0, 0) == -EFAULT;
		yield();
	}
	user_task_destroy(u);
}

static void a_program_on_a_thread_free_to_move(struct ktest *t)
{
	struct cpumask all = { { 0 } };
	u32 efaults = 0;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online)
			cpumask_set(&all, cpu);
	preempt_disable();      /* free to move before it first runs */
	struct thread *th = thread_create("wanderer", wander, &efaults, smp_processor_id());
	if (th)
		th->affinity = all;
	preempt_enable();
	ASSERT_TRUE(t, th != NULL);
	thread_join(th);
	EXPECT_EQ(t, efaults, WANDERS);
}

/*
 * A CPU running a user program passes quiescent states at its ticks, with
 * no schedule() at all. The spinner's time slice is made endless first (on
 * its own CPU, in an IPI, so no tick races the store): nothing but its
 * user-mode ticks can end a grace period there. Were they not quiescent,
 * the grace period would wait until the program ends; the wait is bounded
 * (2 s) so that the case fails rather than hangs. A kernel thread spinning
 * the same way holds it up (rcu_claims shows that side).
 */
struct spinner {
	struct user_task *u;
	volatile u64 *loops;
	long status;
};

struct gp_waiter {
	struct rcu_head head;
	struct completion done;
};

static void spin_in_user_mode(void *arg)
{
	struct spinner *s = arg;

	s->status = user_task_run(s->u, user_spin, USER_SHARED + 8, user_task_scratch_va(s->u), 0);
}

static void endless_slice(void *arg)
{
	struct thread *th = arg;

	if (current_thread() == th)
		th->slice = ~0u >> 1;
}

static void gp_ended(struct rcu_head *head)
{
	complete(&container_of(head, struct gp_waiter, head)->done);
}

static void a_tick_in_user_mode_is_a_quiescent_state(struct ktest *t)
{
	static struct spinner s;
	static struct gp_waiter w[2];   /* static: a late callback must find them */
	volatile u8 *flag = (volatile u8 *)user_shared() + 8;

	if (nr_cpus_online < 2)
		KTEST_SKIP(t, "needs two CPUs");
	u32 cpu = smp_processor_id() == 0 ? 1 : 0;
	s = (struct spinner){ .u = user_task_create("spinner") };
	ASSERT_TRUE(t, s.u != NULL);
	s.loops = user_task_scratch(s.u);
	*flag = 0;
	struct thread *th = thread_create("spinner", spin_in_user_mode, &s, cpu);
	ASSERT_TRUE(t, th != NULL);
	while (*s.loops < 1000)                         /* it is in user mode */
		yield();
	smp_call_function(cpu, endless_slice, th, true);
	u64 switches = th->switches, gps = rcu_completed_batches();
	bool ended = true;

	for (u32 i = 0; i < 2 && ended; i++) {
		completion_init(&w[i].done);
		call_rcu(&w[i].head, gp_ended);
		ended = wait_for_completion_timeout(&w[i].done, 2000UL * 1000 * 1000);
	}
	u64 user_ticks = th->user_ticks;
	EXPECT_TRUE(t, ended);
	EXPECT_EQ(t, th->switches, switches);           /* it never switched */
	EXPECT_GE(t, rcu_completed_batches(), gps + 2);
	EXPECT_GT(t, user_ticks, 0);
	*flag = 1;
	thread_join(th);
	rcu_barrier();                                  /* a late callback, if the case failed */
	EXPECT_EQ(t, s.status, 0);
	user_task_destroy(s.u);
	ktest_log(t, "2 grace periods while CPU %u spun in user mode (%llu ticks there)", cpu,
		  user_ticks);
}

static const struct ktest_case user_cases[] = {
	KTEST(a_program_runs_and_exits_with_its_status),
	KTEST(registers_survive_a_system_call),
	KTEST(system_calls_fail_as_linux_does),
	KTEST(files_left_open_are_closed),
	KTEST(a_fault_kills_the_program_not_the_kernel),
	KTEST(a_reused_stack_starts_clean),
	KTEST(smap_keeps_the_kernel_out),
	KTEST(programs_on_every_cpu),
	KTEST(a_program_on_a_thread_free_to_move),
	KTEST(a_tick_in_user_mode_is_a_quiescent_state),
	{},
};
KTEST_SUITE(user, user_cases);
