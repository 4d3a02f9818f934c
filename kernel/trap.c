// SPDX-License-Identifier: MIT
/*
 * trap.c - the IDT, exception handling and the fault-catching used by tests.
 *
 * trap_init() fills all 256 IDT gates with entry.asm's stubs as interrupt
 * gates (interrupts stay off in the handler); the double fault and NMI
 * gates switch to their IST stacks. trap_dispatch() then decides:
 *
 *   NMI from smp_stop_others() (a panic)        -> halt this CPU for good
 *   NMI from a waiter asking where we are       -> rip and frames written
 *     (a late cross-CPU call, smp.c)               down for it; go on
 *   any other NMI (a BMC's NMI button, a PCI    -> counted, its reason read
 *     SERR#, an I/O channel check, a watchdog)     from port 0x61 and cleared,
 *                                                 reported by the next tick;
 *                                                 the CPU goes on (nmi=panic:
 *                                                 trap_panic())
 *   exception (0-31) with a fault_catch() armed -> unwind to the catcher
 *   exception                                   -> trap_panic()
 *   vector >= 32 with a handler                -> the handler, then, leaving
 *                                                 the outermost one, a chance
 *                                                 to preempt (sched_preempt_irq)
 *   vector >= 32 without                       -> a warning, once per vector
 *
 * Handlers of APIC-delivered vectors must call apic_eoi() themselves.
 *
 * The catcher is a setjmp/longjmp pair (kjmp_set/kjmp_resume in
 * entry.asm): on a fault, trap_dispatch() rewrites the frame so that iretq
 * "returns" into kjmp_resume on the catcher's stack.
 *
 * Catchers belong to the thread that armed them, not to the CPU: a thread
 * in fault_catch() may be preempted and moved (a system call copying from
 * user memory is), and its fault must come back to it on the new CPU,
 * never to another thread that runs on the old one. Before the scheduler
 * runs (no current thread) the CPU holds them. A catcher catches only
 * faults at its own interrupt depth: a fault in an interrupt handler that
 * came in meanwhile is the handler's bug, and panics.
 */
#include "trap.h"
#include "spinlock.h"
#include "apic.h"
#include "cpu.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "user.h"
#include "vm.h"
#include "x86.h"
#include "cmdline.h"
#include "ksyms.h"
#include "mce.h"

struct idt_gate {
	u16 offset_low;
	u16 selector;
	u8 ist;                 /* bits 0-2: IST index, 0 = stay on this stack */
	u8 type_attr;           /* 0x8e: present, DPL 0, 64-bit interrupt gate */
	u16 offset_mid;
	u32 offset_high;
	u32 reserved;
} __packed;

struct fault_catcher {
	struct kjmp jmp;
	struct fault_info *info;
	struct fault_catcher *outer;
	int irq_depth;                  /* the CPU's when armed: 0 in a thread */
};

/* Where the innermost catcher hangs: the running thread, or the CPU before threads. */
static struct fault_catcher **catcher_slot(void)
{
	struct percpu *pc = raw_this_cpu();     /* ->current is right on any CPU */

	return pc->current ? &pc->current->catcher : &pc->catcher;
}

extern const u64 trap_stubs[256];
void kjmp_resume(struct kjmp *buf) __noreturn;

static struct idt_gate idt[256] __aligned(16);
static trap_handler_t handlers[256];
static bool warned_vector[256];

/*
 * NMIs nobody asked for. On a PC the chipset raises one for a PCI SERR# or
 * an I/O channel check and says which in port 0x61 (bits 7 and 6; writing
 * bit 2 or 3 high clears and masks that source, low again re-arms it); a
 * BMC's NMI button or a watchdog leaves both bits clear. Linux's
 * default_do_nmi() (arch/x86/kernel/nmi.c) reads the same port, clears the
 * source and goes on ("Dazed and confused, but trying to continue"),
 * unless told to panic. The handler only counts and clears: printing from
 * an NMI could wait on a lock the interrupted code holds, so the CPU's
 * next tick reports (trap_report_nmis()).
 */
#define PORT_B_SERR     0x80            /* read: SERR# asserted */
#define PORT_B_IOCHK    0x40            /* read: IOCHK# asserted */
#define PORT_B_SERR_OFF 0x04            /* write: clear and mask SERR# */
#define PORT_B_IOCHK_OFF 0x08           /* write: clear and mask IOCHK# */

static int nmi_panic;
PARAM_CHOICE("nmi", nmi_panic, "report", "panic");

struct nmi_count {
	u64 seen;                       /* NMIs taken on this CPU (smp_stop's aside) */
	u64 reported;                   /* of them, reported by a tick */
	u8 reason;                      /* port 0x61 at the last one */
	u64 rip;                        /* where the last one came in */
} __aligned(64);

static struct nmi_count nmi_counts[MAX_CPUS];

u64 trap_nmis_seen(u32 cpu)
{
	return cpu < MAX_CPUS ? __atomic_load_n(&nmi_counts[cpu].seen, __ATOMIC_ACQUIRE) : 0;
}

u64 trap_nmis_reported(u32 cpu)
{
	return cpu < MAX_CPUS ? __atomic_load_n(&nmi_counts[cpu].reported, __ATOMIC_ACQUIRE) : 0;
}

static void unexpected_nmi(struct trap_frame *f)
{
	struct nmi_count *n = &nmi_counts[smp_processor_id()];
	u8 reason = inb(PORT_B);

	if (reason != 0xff && (reason & (PORT_B_SERR | PORT_B_IOCHK))) {
		u8 off = (reason & PORT_B_SERR ? PORT_B_SERR_OFF : 0) |
			 (reason & PORT_B_IOCHK ? PORT_B_IOCHK_OFF : 0);

		outb(PORT_B, (reason & 0x0f) | off);    /* bits 7-4 read-only; 1 = speaker/gate as were */
		outb(PORT_B, reason & 0x0f & ~off);
	}
	n->reason = reason;
	n->rip = f->rip;
	__atomic_fetch_add(&n->seen, 1, __ATOMIC_RELEASE);
}

/* From this CPU's tick (interrupts off, no NMI handler running here): say what came in. */
void trap_report_nmis(void)
{
	struct nmi_count *n = &nmi_counts[smp_processor_id()];
	u64 seen = __atomic_load_n(&n->seen, __ATOMIC_ACQUIRE);
	const char *why, *where;
	u64 off, size;

	if (seen == n->reported)
		return;
	why = n->reason == 0xff ? "no port 0x61 to say why" :
	      n->reason & PORT_B_SERR ? "PCI SERR#, cleared" :
	      n->reason & PORT_B_IOCHK ? "I/O channel check, cleared" :
	      "no source in port 0x61: an NMI button, a watchdog or an IPI";
	where = ksym_lookup(n->rip, &off, &size);
	pr_warn("nmi: CPU %u: %llu unexpected NMI%s (%s; the last in %s+0x%llx); survived\n",
		smp_processor_id(), seen - n->reported, seen - n->reported == 1 ? "" : "s",
		why, where ? where : "?", where ? off : n->rip);
	__atomic_store_n(&n->reported, seen, __ATOMIC_RELEASE);
}

static const char *const exception_names[32] = {
	[0] = "divide error (#DE)",
	[1] = "debug (#DB)",
	[2] = "non-maskable interrupt (NMI)",
	[3] = "breakpoint (#BP)",
	[4] = "overflow (#OF)",
	[5] = "bound range exceeded (#BR)",
	[6] = "invalid opcode (#UD)",
	[7] = "device not available (#NM)",
	[8] = "double fault (#DF)",
	[9] = "coprocessor segment overrun",
	[10] = "invalid TSS (#TS)",
	[11] = "segment not present (#NP)",
	[12] = "stack-segment fault (#SS)",
	[13] = "general protection (#GP)",
	[14] = "page fault (#PF)",
	[15] = "reserved vector 15",
	[16] = "x87 floating-point error (#MF)",
	[17] = "alignment check (#AC)",
	[18] = "machine check (#MC)",
	[19] = "SIMD floating-point (#XM)",
	[20] = "virtualization exception (#VE)",
	[21] = "control protection (#CP)",
	[22] = "reserved vector 22",
	[23] = "reserved vector 23",
	[24] = "reserved vector 24",
	[25] = "reserved vector 25",
	[26] = "reserved vector 26",
	[27] = "reserved vector 27",
	[28] = "hypervisor injection (#HV)",
	[29] = "VMM communication (#VC)",
	[30] = "security exception (#SX)",
	[31] = "reserved vector 31",
};

const char *trap_name(unsigned vector)
{
	return vector < 32 ? exception_names[vector] : "interrupt";
}

static void set_gate(unsigned vector, u64 handler, u8 ist)
{
	idt[vector] = (struct idt_gate){
		.offset_low = handler & 0xffff,
		.selector = KERNEL_CS,
		.ist = ist,
		.type_attr = 0x8e,
		.offset_mid = (handler >> 16) & 0xffff,
		.offset_high = handler >> 32,
	};
}

void trap_load_idt(void)
{
	struct {
		u16 limit;
		u64 base;
	} __packed idtr = { sizeof(idt) - 1, (u64)idt };

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void trap_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, trap_stubs[v], 0);
	idt[VEC_DF].ist = IST_DOUBLE_FAULT;
	idt[VEC_NMI].ist = IST_NMI;
	trap_load_idt();
}

void trap_set_handler(unsigned vector, trap_handler_t handler)
{
	if (vector >= VEC_FIRST_IRQ && vector < 256)
		handlers[vector] = handler;
}

int trap_alloc_vector(trap_handler_t handler)
{
	static struct spinlock lock = SPINLOCK_INIT("vectors");
	int found = -1;

	spin_lock(&lock);
	for (unsigned v = VEC_DEVICE_FIRST; v <= VEC_DEVICE_LAST; v++)
		if (!handlers[v]) {
			handlers[v] = handler;
			found = (int)v;
			break;
		}
	spin_unlock(&lock);
	if (found < 0)
		pr_warn("trap: no free device vector\n");
	return found;
}

void trap_free_vector(int vector)
{
	if (vector >= VEC_DEVICE_FIRST && vector <= VEC_DEVICE_LAST)
		handlers[vector] = NULL;
}

u32 trap_vectors_in_use(void)
{
	u32 n = 0;

	for (unsigned v = VEC_DEVICE_FIRST; v <= VEC_DEVICE_LAST; v++)
		n += handlers[v] != NULL;
	return n;
}

/* Send the fault back to the innermost fault_catch(). */
static void unwind_to_catcher(struct trap_frame *f)
{
	struct fault_catcher *c = *catcher_slot();

	*c->info = (struct fault_info){
		.vector = f->vector,
		.error_code = f->error_code,
		.cr2 = f->vector == VEC_PF ? read_cr2() : 0,
		.rip = f->rip,
		.handler_rsp = (u64)f,
	};
	*catcher_slot() = c->outer;
	trap_resume_at(f, &c->jmp);
}

void trap_resume_at(struct trap_frame *f, struct kjmp *jmp)
{
	f->rip = (u64)kjmp_resume;
	f->rdi = (u64)jmp;
	f->rsp = jmp->rsp;              /* kjmp_resume runs on the kjmp_set() caller's stack */
	f->cs = KERNEL_CS;
	f->ss = KERNEL_DS;
}

static void dispatch(struct trap_frame *f)
{
	unsigned v = (unsigned)f->vector;

	/* An NMI is no fault of the code it interrupted: never unwind a catcher for it. */
	if (v == VEC_NMI) {
		if (smp_stop_requested())
			smp_halt_this_cpu();    /* another CPU panicked (smp_stop_others) */
		if (smp_nmi_snapshot(f))
			return;                 /* a waiter asked where we are (smp.c) */
		if (nmi_panic)
			trap_panic(f);
		unexpected_nmi(f);
		return;
	}
	/* A machine check is the hardware's, never the fault of the code it interrupted. */
	if (v == VEC_MC) {
		if (!mce_exception(f))
			trap_panic(f);
		return;
	}
	if (v < VEC_FIRST_IRQ) {
		if (trap_from_user(f)) {
			user_fault(f);          /* the program dies, the kernel goes on */
			return;
		}
		const struct fault_catcher *c = *catcher_slot();

		if (c && c->irq_depth == this_cpu()->irq_depth) {
			unwind_to_catcher(f);
			return;
		}
		trap_panic(f);
	}
	if (!handlers[v]) {
		if (!warned_vector[v]) {
			warned_vector[v] = true;
			pr_warn("trap: unexpected interrupt on vector %u; ignored\n", v);
		}
		/*
		 * End it if the local APIC delivered it (a software "int n" is
		 * not in service, nor the spurious vector): unended, it would
		 * block every vector of its priority class and below on this
		 * CPU, the tick among them, for good.
		 */
		if (apic_in_service((u8)v))
			apic_eoi();
		return;
	}
	struct percpu *pc = this_cpu();

	if (pc->irq_depth == 0)
		pc->irq_frame = f;              /* what a backtrace of "this CPU" shows */
	pc->irq_depth++;
	handlers[v](f);
	pc->irq_depth--;
	if (pc->irq_depth == 0)
		pc->irq_frame = NULL;
	/*
	 * Leaving the outermost handler: softirqs, then a switch if a tick
	 * asked for one; not if the interrupted code had interrupts off (a
	 * software "int n" can come from there).
	 */
	if (this_cpu()->irq_depth == 0 && (f->rflags & RFLAGS_IF))
		sched_preempt_irq();
}

/* Every trap: interrupts went off on the way in, if they were on (irqoff.h). */
void trap_dispatch(struct trap_frame *f)
{
	bool window = irqoff_tracing && (f->rflags & RFLAGS_IF) && f->vector != VEC_NMI;

	if (window)
		irqoff_begin(f->rip);
	dispatch(f);
	if (window)
		irqoff_end();           /* the iretq turns them back on */
}

bool fault_catch(void (*fn)(void *), void *arg, struct fault_info *info)
{
	struct fault_catcher **slot = catcher_slot();
	struct fault_catcher c = { .info = info, .outer = *slot };

	/* The depth only changes inside handlers, which leave it as they found it. */
	c.irq_depth = raw_this_cpu()->irq_depth;
	if (kjmp_set(&c.jmp) == 0) {
		*slot = &c;
		fn(arg);
		*slot = c.outer;
		return false;
	}
	return true;            /* unwind_to_catcher() already popped us */
}

static void describe_page_fault(u64 err, u64 cr2)
{
	printk(KERN_EMERG "CR2: %016llx: %s %s of a %s page%s\n", cr2,
	       err & PF_USER ? "user" : "kernel",
	       err & PF_INSTR ? "instruction fetch" : err & PF_WRITE ? "write" : "read",
	       err & PF_PRESENT ? "present (protection)" : "not-present",
	       err & PF_RSVD ? ", reserved bit set" : "");
	if (cr2 < PAGE_SIZE)
		printk(KERN_EMERG "CR2 is in the first page: a NULL pointer dereference?\n");
	if (!(err & PF_PRESENT) && vm_mapped(cr2 + PAGE_SIZE) && cr2 >= KERNEL_VMA)
		printk(KERN_EMERG "CR2 is just below a mapped page: a stack overflow into its guard page?\n");
}

void trap_panic(struct trap_frame *f)
{
	if (!panic_begin())
		panic_end();
	printk(KERN_EMERG "PANIC: %s, vector %llu, error code 0x%llx\n",
	       trap_name((unsigned)f->vector), f->vector, f->error_code);
	if (f->vector == VEC_PF)
		describe_page_fault(f->error_code, read_cr2());
	if (f->vector == VEC_MC)
		mce_describe();
	printk(KERN_EMERG "RIP: %04llx:%016llx RFLAGS: %016llx RSP: %04llx:%016llx\n",
	       f->cs, f->rip, f->rflags, f->ss, f->rsp);
	printk(KERN_EMERG "RAX: %016llx RBX: %016llx RCX: %016llx\n", f->rax, f->rbx, f->rcx);
	printk(KERN_EMERG "RDX: %016llx RSI: %016llx RDI: %016llx\n", f->rdx, f->rsi, f->rdi);
	printk(KERN_EMERG "RBP: %016llx R08: %016llx R09: %016llx\n", f->rbp, f->r8, f->r9);
	printk(KERN_EMERG "R10: %016llx R11: %016llx R12: %016llx\n", f->r10, f->r11, f->r12);
	printk(KERN_EMERG "R13: %016llx R14: %016llx R15: %016llx\n", f->r13, f->r14, f->r15);
	printk(KERN_EMERG "CR0: %016llx CR2: %016llx CR3: %016llx CR4: %016llx\n",
	       read_cr0(), read_cr2(), read_cr3(), read_cr4());
	printk(KERN_EMERG "Backtrace:\n");
	backtrace_print_from(f->rip, f->rsp, f->rbp);
	panic_end();
}
