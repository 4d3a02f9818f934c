// SPDX-License-Identifier: MIT
/*
 * trap_test.c - exceptions really arrive, with the right details.
 *
 * Each case provokes one exception inside fault_catch() and checks what the
 * handler recorded: the vector, the error code, CR2 for page faults, the
 * faulting instruction, and for the double fault, that the handler ran on
 * its own IST stack.
 */
#include "apic.h"
#include "cpu.h"
#include "ktest.h"
#include "mb2.h"
#include "param.h"
#include "percpu.h"
#include "sched.h"
#include "time.h"
#include "trap.h"
#include "x86.h"
#include "vm.h"

extern char boot_stack_guard[], boot_stack_bottom[];

static volatile u64 sink;

static void read_addr(void *arg)
{
	sink = *(volatile u64 *)arg;
}

static void write_addr(void *arg)
{
	*(volatile u8 *)arg = 0x90;
}

static void call_addr(void *arg)
{
	((void (*)(void))arg)();
}

static void page_fault_on_guard_page(struct ktest *t)
{
	struct fault_info fi;

	ASSERT_TRUE(t, fault_catch(read_addr, boot_stack_guard + 8, &fi));
	EXPECT_EQ(t, fi.vector, VEC_PF);
	EXPECT_EQ(t, fi.cr2, (u64)boot_stack_guard + 8);
	EXPECT_EQ(t, fi.error_code, 0);         /* not present, read, kernel */
}

static void page_fault_on_null(struct ktest *t)
{
	struct fault_info fi;

	ASSERT_TRUE(t, fault_catch(read_addr, NULL, &fi));
	EXPECT_EQ(t, fi.vector, VEC_PF);
	EXPECT_EQ(t, fi.cr2, 0);
	EXPECT_EQ(t, fi.error_code, 0);
}

static void write_to_text_faults(struct ktest *t)
{
	struct fault_info fi;
	u8 *target = (u8 *)kernel_main;
	u8 before = *target;

	ASSERT_TRUE(t, fault_catch(write_addr, target, &fi));
	EXPECT_EQ(t, fi.vector, VEC_PF);
	EXPECT_EQ(t, fi.cr2, (u64)target);
	EXPECT_EQ(t, fi.error_code, PF_PRESENT | PF_WRITE);
	EXPECT_EQ(t, *target, before);
}

static u8 data_ret[16] = { 0xc3 };      /* "ret", in a writable, NX data page */

static void execute_data_faults(struct ktest *t)
{
	struct fault_info fi;

	if (!cpu_info.nx)
		KTEST_SKIP(t, "this CPU has no NX bit");
	ASSERT_TRUE(t, fault_catch(call_addr, data_ret, &fi));
	EXPECT_EQ(t, fi.vector, VEC_PF);
	EXPECT_EQ(t, fi.cr2, (u64)data_ret);
	EXPECT_EQ(t, fi.rip, (u64)data_ret);
	EXPECT_EQ(t, fi.error_code, PF_PRESENT | PF_INSTR);
}

static void noncanonical_is_general_protection(struct ktest *t)
{
	struct fault_info fi;

	ASSERT_TRUE(t, fault_catch(read_addr, (void *)0x8000000000000000UL, &fi));
	EXPECT_EQ(t, fi.vector, VEC_GP);
	EXPECT_EQ(t, fi.error_code, 0);
}

static void do_ud2(void *arg)
{
	__asm__ volatile("ud2");
}

static void invalid_opcode(struct ktest *t)
{
	struct fault_info fi;

	ASSERT_TRUE(t, fault_catch(do_ud2, NULL, &fi));
	EXPECT_EQ(t, fi.vector, VEC_UD);
	EXPECT_GE(t, fi.rip, (u64)do_ud2);
	EXPECT_LT(t, fi.rip, (u64)do_ud2 + 32);
	EXPECT_EQ(t, *(u16 *)fi.rip, 0x0b0f);   /* the fault points at the ud2 itself */
}

static void do_divide_by_zero(void *arg)
{
	__asm__ volatile("xor %%ecx, %%ecx\n\tmov $1, %%eax\n\txor %%edx, %%edx\n\tdiv %%ecx"
			 ::: "eax", "ecx", "edx");
}

static void divide_error(struct ktest *t)
{
	struct fault_info fi;

	ASSERT_TRUE(t, fault_catch(do_divide_by_zero, NULL, &fi));
	EXPECT_EQ(t, fi.vector, VEC_DE);
}

static void do_int3(void *arg)
{
	__asm__ volatile("int3");
}

static void breakpoint_is_a_trap(struct ktest *t)
{
	struct fault_info fi;

	ASSERT_TRUE(t, fault_catch(do_int3, NULL, &fi));
	EXPECT_EQ(t, fi.vector, VEC_BP);
	/* A trap reports the instruction after int3 (0xcc), not int3 itself. */
	EXPECT_EQ(t, *((u8 *)fi.rip - 1), 0xcc);
}

/*
 * Point RSP at the top of the boot stack's guard page and push: the #PF
 * cannot be delivered on that stack, which makes it a double fault, and
 * only the IST switch lets the #DF handler run at all.
 */
static void do_stack_overflow(void *arg)
{
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %0, %%rsp\n\t"
			 "push $0\n\t"
			 "mov %%rbx, %%rsp"
			 : : "r"(boot_stack_bottom) : "rbx", "memory");
}

static void double_fault_runs_on_ist_stack(struct ktest *t)
{
	struct fault_info fi;
	bool caught;
	u64 ist_top;

	preempt_disable();      /* stay on one CPU: its TSS names the stack */
	caught = fault_catch(do_stack_overflow, NULL, &fi);
	ist_top = this_cpu()->tables.tss.ist[IST_DOUBLE_FAULT - 1];
	preempt_enable();
	ASSERT_TRUE(t, caught);
	EXPECT_EQ(t, fi.vector, VEC_DF);
	EXPECT_EQ(t, fi.error_code, 0);
	EXPECT_LT(t, fi.handler_rsp, ist_top);
	EXPECT_GE(t, fi.handler_rsp, ist_top - IST_STACK_SIZE);
}

static volatile u64 seen_vector, seen_rax;

static void record_vector(struct trap_frame *f)
{
	seen_vector = f->vector;
	seen_rax = f->rax;
}

static void software_interrupt_reaches_handler(struct ktest *t)
{
	seen_vector = 0;
	trap_set_handler(0x80, record_vector);
	__asm__ volatile("mov $0x1234, %%rax\n\tint $0x80" ::: "rax", "memory");
	trap_set_handler(0x80, NULL);
	EXPECT_EQ(t, seen_vector, 0x80);
	EXPECT_EQ(t, seen_rax, 0x1234);
}

static void nothing(struct trap_frame *f) { (void)f; }

/* A driver that falls back to polling gives its vector back (pci.h). */
static void device_vectors_are_given_back(struct ktest *t)
{
	u32 in_use = trap_vectors_in_use();
	int a = trap_alloc_vector(nothing);

	ASSERT_GE(t, a, VEC_DEVICE_FIRST);
	EXPECT_EQ(t, trap_vectors_in_use(), in_use + 1);
	trap_free_vector(a);
	EXPECT_EQ(t, trap_vectors_in_use(), in_use);
	int b = trap_alloc_vector(nothing);             /* the lowest free one: the same */
	EXPECT_EQ(t, b, a);
	trap_free_vector(b);
	trap_free_vector(-1);                           /* "no vector" is ignored */
	trap_free_vector(0x80);                         /* not a device vector: untouched */
	EXPECT_EQ(t, trap_vectors_in_use(), in_use);
}

static void inner_faults(void *arg)
{
	struct fault_info *inner = arg;

	fault_catch(read_addr, NULL, inner);
}

static void catches_nest(struct ktest *t)
{
	struct fault_info outer = { 0 }, inner = { 0 };

	EXPECT_FALSE(t, fault_catch(inner_faults, &inner, &outer));
	EXPECT_EQ(t, inner.vector, VEC_PF);
	EXPECT_EQ(t, outer.vector, 0);
	/* And the outer catcher still works afterwards. */
	EXPECT_TRUE(t, fault_catch(do_ud2, NULL, &outer));
	EXPECT_EQ(t, outer.vector, VEC_UD);
}

/*
 * A catcher is its thread's: armed on one CPU, it catches the fault the
 * thread takes after moving to another (as a system call's user copy
 * preempted and migrated would).
 */
struct mover {
	u32 target, faulted_on;
	bool caught;
	struct fault_info fi;
};

static void move_then_fault(void *arg)
{
	struct mover *m = arg;
	struct cpumask only = { { 0 } };

	cpumask_set(&only, m->target);
	thread_set_affinity(current_thread(), &only);
	m->faulted_on = smp_processor_id();
	read_addr(NULL);
}

static void mover(void *arg)
{
	struct mover *m = arg;

	m->caught = fault_catch(move_then_fault, m, &m->fi);
}

static void a_catcher_follows_its_thread(struct ktest *t)
{
	u32 home = smp_processor_id();
	struct mover m = { .target = home };
	struct thread *th;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online && cpu != home)
			m.target = cpu;
	if (m.target == home)
		KTEST_SKIP(t, "one CPU");
	th = thread_create("mover", mover, &m, home);
	ASSERT_TRUE(t, th != NULL);
	thread_join(th);
	EXPECT_EQ(t, m.faulted_on, m.target);
	EXPECT_TRUE(t, m.caught);
	EXPECT_EQ(t, m.fi.vector, VEC_PF);
}

/* Wait (bounded by 2 s of TSC time) until *counter(cpu) reaches want. */
static bool reaches(u64 (*counter)(u32), u32 cpu, u64 want)
{
	u64 end = rdtsc() + tsc_khz * 2000;

	while (counter(cpu) < want && (s64)(rdtsc() - end) < 0)
		cpu_relax();
	return counter(cpu) >= want;
}

/*
 * An NMI nobody asked for (here one this CPU sends itself, as a BMC's
 * button would send it) is counted, reported by the next tick, and the
 * CPU goes on: this case returning is the proof.
 */
static void an_unasked_nmi_is_survived(struct ktest *t)
{
	u32 cpu = smp_processor_id();
	u64 before = trap_nmis_seen(cpu);

	if (!(read_rflags() & RFLAGS_IF))
		KTEST_SKIP(t, "interrupts are off: no tick to report it");
	apic_send_nmi(this_cpu()->apic_id);
	ASSERT_TRUE(t, reaches(trap_nmis_seen, cpu, before + 1));
	EXPECT_TRUE(t, reaches(trap_nmis_reported, cpu, before + 1));
	EXPECT_EQ(t, trap_nmis_seen(cpu), trap_nmis_reported(cpu));
}

static const struct ktest_case trap_cases[] = {
	KTEST(page_fault_on_guard_page),
	KTEST(page_fault_on_null),
	KTEST(write_to_text_faults),
	KTEST(execute_data_faults),
	KTEST(noncanonical_is_general_protection),
	KTEST(invalid_opcode),
	KTEST(divide_error),
	KTEST(breakpoint_is_a_trap),
	KTEST(double_fault_runs_on_ist_stack),
	KTEST(software_interrupt_reaches_handler),
	KTEST(device_vectors_are_given_back),
	KTEST(catches_nest),
	KTEST(a_catcher_follows_its_thread),
	KTEST(an_unasked_nmi_is_survived),
	{},
};
KTEST_SUITE(trap, trap_cases);
