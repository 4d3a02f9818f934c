// SPDX-License-Identifier: MIT
/*
 * apic.c - the local APICs, the I/O APICs, and the 8259 PICs put to sleep.
 *
 * Every interrupt reaches a CPU through its local APIC:
 *
 *   device line --> I/O APIC pin (GSI) --redirection entry--> local APIC of CPU n
 *   local APIC timer, error, LINT0/1 --LVT entry-----------> its own CPU
 *   another CPU's ICR write (IPI) ---------------------------> local APIC of CPU n
 *
 * and the handler tells the local APIC it is done by writing EOI. The
 * 8259 PICs of the original PC are still there on QEMU and most boards;
 * apic_init() remaps them to vectors 0x20-0x2f (so a spurious IRQ 7 or
 * 15 they might still raise lands on a vector that warns and is ignored)
 * and masks all their inputs. LINT0, where they could also reach the CPU
 * as ExtINT, stays masked.
 *
 * Register access has two forms, chosen once on the boot CPU:
 *   xAPIC:  32-bit loads and stores in the 4 KiB page at the MADT's
 *           address, mapped uncached;
 *   x2APIC: RDMSR/WRMSR of MSR 0x800 + offset / 16, and a 64-bit ICR.
 * QEMU's TCG (what CI runs) has no x2APIC, so the x2APIC path runs for
 * real only on hardware or under KVM; its encodings are checked by the
 * host unit tests (tests/host/apic_test.c).
 *
 * Invariants:
 *   - the mode (apic_x2apic) is fixed before any CPU uses its APIC and is
 *     the same on every CPU;
 *   - every I/O APIC pin is masked unless ioapic_route_irq() unmasked it,
 *     except pins firmware set to SMI delivery: those are never written
 *     (ioapic_pin_is_ours(), as Linux's clear_IO_APIC_pin());
 *   - x2APIC mode is not entered when the DMAR asks for x2APIC opt-out,
 *     unless firmware already entered it (apic_choose_mode());
 *   - the two halves of an xAPIC ICR are written with interrupts off, so
 *     a handler that sends an IPI cannot slip in between them;
 *   - the I/O APICs' index/data register pairs are used under ioapic_lock.
 */
#include "apic.h"
#include "acpi.h"
#include "cpu.h"
#include "io.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "spinlock.h"
#include "trap.h"
#include "vm.h"
#include "x86.h"

#define IPI_SPIN_LIMIT   1000000        /* xAPIC: polls of the delivery status before giving up */

/* I/O APIC: an index register and a data window, and the registers behind them. */
#define IOAPIC_REGSEL    0              /* in 32-bit words */
#define IOAPIC_WINDOW    4              /* offset 0x10 */
#define IOAPIC_REG_VER   0x01
#define IOAPIC_REG_TABLE 0x10           /* entry n: low half 0x10 + 2n, high half 0x11 + 2n */

/* 8259 PICs: command and data ports of the master and the slave. */
#define PIC1_CMD         0x20
#define PIC1_DATA        0x21
#define PIC2_CMD         0xa0
#define PIC2_DATA        0xa1
#define PIC_ICW1_INIT    0x11           /* edge, cascade, ICW4 follows */
#define PIC_ICW4_8086    0x01
#define POST_PORT        0x80           /* writing here only takes time: a pause for old PICs */

bool apic_x2apic;
u64 apic_errors;
u64 apic_spurious;
struct ioapic ioapics[MAX_IOAPICS];
u32 nr_ioapics;

static u32 __iomem *lapic_mmio;         /* xAPIC mode: the register page */
static u64 lapic_phys;                  /* xAPIC mode: its physical address */
static bool lapic_ready;                /* apic_init() has chosen the mode */
static struct spinlock ioapic_lock = SPINLOCK_INIT("ioapic");

/* --- local APIC registers ---------------------------------------------------- */

bool apic_ready(void)
{
	return lapic_ready;
}

u32 lapic_read(u32 reg)
{
	if (apic_x2apic)
		return (u32)rdmsr(x2apic_msr(reg));
	return readl(&lapic_mmio[reg / 4]);
}

static void lapic_write(u32 reg, u32 v)
{
	if (apic_x2apic)
		wrmsr(x2apic_msr(reg), v);
	else
		writel(v, &lapic_mmio[reg / 4]);
}

u32 apic_read_id(void)
{
	u32 a, b, c, d;

	if (lapic_ready)
		return apic_id_from_reg(lapic_read(LAPIC_ID), apic_x2apic);
	/*
	 * Before apic_init(): CPUID. Leaf 0xb gives the full 32-bit x2APIC ID
	 * (EDX) where the CPU has it (EBX != 0 for level 0), in either mode;
	 * else leaf 1's 8-bit initial ID, EBX bits 24-31.
	 */
	if (cpu_info.max_leaf >= 0xb) {
		cpuid(0xb, 0, &a, &b, &c, &d);
		if (b & 0xffff)
			return d;
	}
	cpuid(1, 0, &a, &b, &c, &d);
	return b >> 24;
}

void apic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);      /* x2APIC: anything but 0 is a #GP */
}

bool apic_in_service(u8 vector)
{
	return apic_ready() && (lapic_read(LAPIC_ISR + 0x10 * (vector / 32)) >> (vector % 32)) & 1;
}

/* The SDM asks for a write before each read; in x2APIC mode only 0 may be written. */
u32 apic_error_status(void)
{
	lapic_write(LAPIC_ESR, 0);
	return lapic_read(LAPIC_ESR);
}

/* --- interrupts the local APIC raises itself ------------------------------------ */

static const char *const esr_bits[8] = {
	"send checksum", "receive checksum", "send accept", "receive accept",
	"redirectable IPI", "send illegal vector", "received illegal vector",
	"illegal register address",
};

static void apic_error_interrupt(struct trap_frame *f)
{
	u32 esr = apic_error_status();

	__atomic_fetch_add(&apic_errors, 1, __ATOMIC_RELAXED);
	pr_err("apic: CPU %u: error interrupt, ESR 0x%x\n", smp_processor_id(), esr);
	for (unsigned bit = 0; bit < 8; bit++)
		if (esr & (1u << bit))
			pr_err("apic:   %s error\n", esr_bits[bit]);
	apic_eoi();
}

/* A spurious interrupt is not in service: no EOI (SDM vol. 3A, 10.9). */
static void apic_spurious_interrupt(struct trap_frame *f)
{
	__atomic_fetch_add(&apic_spurious, 1, __ATOMIC_RELAXED);
}

/* --- enabling a local APIC ----------------------------------------------------- */

/*
 * Turn on x2APIC mode in IA32_APIC_BASE. From disabled, the APIC must go
 * to xAPIC mode first (EN), then to x2APIC (EN and EXTD together); EXTD
 * without EN is an invalid state and faults. Hardware (or KVM) only.
 */
static void enter_x2apic_mode(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_APIC_BASE, base |= APIC_BASE_EN);
	if (!(base & APIC_BASE_EXTD))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
}

static void enter_xapic_mode(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN);
}

/* This CPU's ACPI processor UID, from its MADT entry (~0 if it has none). */
static u32 my_acpi_uid(void)
{
	u32 id = apic_read_id();

	for (u32 i = 0; i < acpi.madt.ncpus; i++)
		if (acpi.madt.cpus[i].apic_id == id)
			return acpi.madt.cpus[i].acpi_uid;
	return ~0u;
}

/* LINT0 and LINT1 masked, except the ones the MADT says carry NMIs to this CPU. */
static void setup_lints(void)
{
	u32 lvt[2] = { APIC_MASKED, APIC_MASKED };
	u32 uid = my_acpi_uid();

	for (u32 i = 0; i < acpi.madt.nnmis; i++) {
		const struct madt_nmi *n = &acpi.madt.nmis[i];

		if (n->lint <= 1 && madt_nmi_applies(n->acpi_uid, uid))
			lvt[n->lint] = lint_nmi_lvt(n->flags);
	}
	lapic_write(LAPIC_LVT_LINT0, lvt[0]);
	lapic_write(LAPIC_LVT_LINT1, lvt[1]);
}

/* Mask every LVT entry this APIC has, the error entry then pointed at its vector. */
static void setup_lvts(void)
{
	u32 last = (lapic_read(LAPIC_VERSION) >> 16) & 0xff;

	lapic_write(LAPIC_LVT_TIMER, APIC_MASKED | VEC_LAPIC_TIMER);
	if (last >= 4)
		lapic_write(LAPIC_LVT_PERF, APIC_MASKED);
	if (last >= 5)
		lapic_write(LAPIC_LVT_THERMAL, APIC_MASKED);
	if (last >= 6)
		lapic_write(LAPIC_LVT_CMCI, APIC_MASKED);
	setup_lints();
	lapic_write(LAPIC_LVT_ERROR, VEC_APIC_ERROR);
	apic_error_status();            /* forget errors from before us */
}

/*
 * Enable this CPU's local APIC in the chosen mode. The software enable
 * (SVR bit 8) comes first: while it is off, every LVT entry is forced
 * masked and unmasking writes are ignored.
 */
static void lapic_setup(void)
{
	if (apic_x2apic)
		enter_x2apic_mode();
	else
		enter_xapic_mode();
	lapic_write(LAPIC_SVR, APIC_SVR_ENABLE | VEC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);
	setup_lvts();
	apic_eoi();                     /* in case firmware left an interrupt in service */
}

/* --- the 8259 PICs -------------------------------------------------------------- */

static void pic_out(u16 port, u8 v)
{
	outb(port, v);
	outb(POST_PORT, 0);
}

/*
 * Re-initialize both 8259s with vector bases 0x20 and 0x28 (the BIOS left
 * 0x08 and 0x70: IRQ 0 would look like a double fault), then mask all 16
 * inputs. Ports without a PIC behind them ignore all of this.
 */
static void pic_disable(void)
{
	pic_out(PIC1_CMD, PIC_ICW1_INIT);
	pic_out(PIC2_CMD, PIC_ICW1_INIT);
	pic_out(PIC1_DATA, VEC_IRQ_BASE);       /* ICW2: vector of IRQ 0 */
	pic_out(PIC2_DATA, VEC_IRQ_BASE + 8);   /* ICW2: vector of IRQ 8 */
	pic_out(PIC1_DATA, 1u << 2);            /* ICW3: a slave on input 2 */
	pic_out(PIC2_DATA, 2);                  /* ICW3: the slave's cascade identity */
	pic_out(PIC1_DATA, PIC_ICW4_8086);
	pic_out(PIC2_DATA, PIC_ICW4_8086);
	pic_out(PIC1_DATA, 0xff);               /* OCW1: mask everything */
	pic_out(PIC2_DATA, 0xff);
}

/* --- I/O APICs ------------------------------------------------------------------- */

static u32 ioapic_read(struct ioapic *io, u32 reg)
{
	writel(reg, &io->regs[IOAPIC_REGSEL]);
	return readl(&io->regs[IOAPIC_WINDOW]);
}

static void ioapic_write(struct ioapic *io, u32 reg, u32 v)
{
	writel(reg, &io->regs[IOAPIC_REGSEL]);
	writel(v, &io->regs[IOAPIC_WINDOW]);
}

/*
 * Write a redirection entry without a moment where a half-written entry
 * is live: mask it first, then set the destination, then the low half.
 * Caller holds ioapic_lock.
 */
static void ioapic_write_entry(struct ioapic *io, u32 pin, u64 e)
{
	ioapic_write(io, IOAPIC_REG_TABLE + 2 * pin, APIC_MASKED);
	ioapic_write(io, IOAPIC_REG_TABLE + 2 * pin + 1, (u32)(e >> 32));
	ioapic_write(io, IOAPIC_REG_TABLE + 2 * pin, (u32)e);
}

static u64 ioapic_read_pin(struct ioapic *io, u32 pin)
{
	u64 lo = ioapic_read(io, IOAPIC_REG_TABLE + 2 * pin);
	u64 hi = ioapic_read(io, IOAPIC_REG_TABLE + 2 * pin + 1);

	return hi << 32 | lo;
}

/* The I/O APIC with gsi among its pins, or NULL. */
static struct ioapic *ioapic_for_gsi(u32 gsi)
{
	for (u32 i = 0; i < nr_ioapics; i++)
		if (gsi >= ioapics[i].gsi_base && gsi - ioapics[i].gsi_base < ioapics[i].nentries)
			return &ioapics[i];
	return NULL;
}

/* Map one MADT I/O APIC, learn its size from the version register, mask every pin. */
static bool ioapic_setup(const struct madt_ioapic *m, struct ioapic *io)
{
	u32 ver, smi_pins = 0;

	io->regs = ioremap(m->address, PAGE_SIZE, VM_UC);
	if (!io->regs)
		return false;
	ver = ioapic_read(io, IOAPIC_REG_VER);
	if (ver == 0xffffffff) {
		pr_warn("apic: no I/O APIC answers at 0x%x; ignored\n", m->address);
		return false;
	}
	io->id = m->id;
	io->version = ver & 0xff;
	io->gsi_base = m->gsi_base;
	io->nentries = ioapic_entries(ver);
	for (u32 pin = 0; pin < io->nentries; pin++) {
		if (!ioapic_pin_is_ours(ioapic_read_pin(io, pin))) {
			pr_info("apic: I/O APIC %u pin %u (GSI %u) is firmware's SMI; left alone\n",
				io->id, pin, io->gsi_base + pin);
			smi_pins++;
			continue;
		}
		ioapic_write_entry(io, pin, APIC_MASKED);
	}
	pr_info("apic: I/O APIC %u at 0x%x, version 0x%x, GSIs %u-%u, all masked%s\n", io->id,
		m->address, io->version, io->gsi_base, io->gsi_base + io->nentries - 1,
		smi_pins ? " but SMI pins" : "");
	return true;
}

static void ioapics_setup(void)
{
	for (u32 i = 0; i < acpi.madt.nioapics && nr_ioapics < MAX_IOAPICS; i++)
		if (ioapic_setup(&acpi.madt.ioapics[i], &ioapics[nr_ioapics]))
			nr_ioapics++;
	if (!nr_ioapics)
		pr_warn("apic: no I/O APIC: device interrupts cannot be routed\n");
}

bool ioapic_route_irq(u8 irq, u8 vector, u32 apic_id)
{
	struct irq_route r = isa_irq_route(irq, acpi.madt.overrides, acpi.madt.noverrides);
	struct ioapic *io = ioapic_for_gsi(r.gsi);
	u64 flags;

	if (!io)
		return false;
	if (apic_id > 0xff) {
		pr_warn("apic: IRQ %u: APIC ID %u does not fit an I/O APIC entry\n", irq, apic_id);
		return false;
	}
	flags = spin_lock_irqsave(&ioapic_lock);
	bool ours = ioapic_pin_is_ours(ioapic_read_pin(io, r.gsi - io->gsi_base));
	if (ours)
		ioapic_write_entry(io, r.gsi - io->gsi_base, ioapic_entry(vector, apic_id, r, false));
	spin_unlock_irqrestore(&ioapic_lock, flags);
	if (!ours)
		pr_warn("apic: IRQ %u: GSI %u is firmware's SMI pin; not routed\n", irq, r.gsi);
	return ours;
}

u64 ioapic_read_entry(u32 gsi)
{
	struct ioapic *io = ioapic_for_gsi(gsi);
	u64 flags, e;

	if (!io)
		return 0;
	flags = spin_lock_irqsave(&ioapic_lock);
	e = ioapic_read_pin(io, gsi - io->gsi_base);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return e;
}

void ioapic_mask_gsi(u32 gsi)
{
	struct ioapic *io = ioapic_for_gsi(gsi);
	u64 flags;

	if (!io)
		return;
	flags = spin_lock_irqsave(&ioapic_lock);
	if (ioapic_pin_is_ours(ioapic_read_pin(io, gsi - io->gsi_base)))
		ioapic_write(io, IOAPIC_REG_TABLE + 2 * (gsi - io->gsi_base), APIC_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, flags);
}

/* --- IPIs ------------------------------------------------------------------------- */

/* xAPIC: wait until the last IPI was accepted (delivery status clear), boundedly. */
static bool icr_idle(void)
{
	for (u32 i = 0; i < IPI_SPIN_LIMIT; i++) {
		if (!(lapic_read(LAPIC_ICR_LOW) & APIC_PENDING))
			return true;
		cpu_relax();
	}
	return false;
}

/*
 * Send one IPI. x2APIC: a single WRMSR, and no delivery status to poll.
 * xAPIC: the high half (destination) first, since writing the low half
 * is what sends.
 */
static void send_icr(u32 apic_id, u32 low)
{
	u64 icr = apic_icr(apic_id, low, apic_x2apic);
	u64 flags = irq_save();

	if (apic_x2apic) {
		/*
		 * An x2APIC MSR write is not serializing, and MFENCE does not
		 * order a WRMSR: without the LFENCE the IPI could overtake the
		 * stores it announces (Linux's weak_wrmsr_fence(),
		 * arch/x86/include/asm/barrier.h).
		 */
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(MSR_X2APIC_ICR, icr);
	} else {
		if (!icr_idle())
			pr_warn("apic: previous IPI still pending; sending anyway\n");
		lapic_write(LAPIC_ICR_HIGH, (u32)(icr >> 32));
		lapic_write(LAPIC_ICR_LOW, (u32)icr);
		if (!icr_idle())
			pr_warn("apic: IPI 0x%x to APIC %u not accepted\n", low, apic_id);
	}
	irq_restore(flags);
}

void apic_send_ipi(u32 apic_id, u8 vector)
{
	send_icr(apic_id, APIC_DM_FIXED | APIC_LEVEL_ASSERT | vector);
}

void apic_send_nmi(u32 apic_id)
{
	send_icr(apic_id, APIC_DM_NMI | APIC_LEVEL_ASSERT);
}

/*
 * INIT: assert, then (xAPIC only; x2APIC has no de-assert) the level
 * de-assert that processors before the Pentium 4 need to leave INIT.
 * The waits of the start-up sequence are the caller's.
 */
void apic_send_init(u32 apic_id)
{
	send_icr(apic_id, APIC_DM_INIT | APIC_LEVEL_ASSERT | APIC_TRIGGER_LEVEL);
	if (!apic_x2apic)
		send_icr(apic_id, APIC_DM_INIT | APIC_TRIGGER_LEVEL);
}

void apic_send_sipi(u32 apic_id, u8 start_page)
{
	send_icr(apic_id, APIC_DM_STARTUP | APIC_LEVEL_ASSERT | start_page);
}

/* --- the local APIC timer --------------------------------------------------------- */

static void timer_start(u32 mode, u8 vector, u32 count)
{
	lapic_write(LAPIC_TIMER_DIV, APIC_TIMER_DIV16);
	lapic_write(LAPIC_LVT_TIMER, mode | vector);
	lapic_write(LAPIC_TIMER_INIT, count);
}

void apic_timer_oneshot(u32 count)
{
	timer_start(APIC_TIMER_ONESHOT, VEC_LAPIC_TIMER, count);
}

void apic_timer_periodic(u32 count)
{
	timer_start(APIC_TIMER_PERIODIC, VEC_LAPIC_TIMER, count);
}

void apic_timer_wakeups(u32 count)
{
	timer_start(APIC_TIMER_PERIODIC, VEC_LAPIC_WAKEUP, count);
}

/* Masking and a count of 0 stop the count-down modes; leaving TSC-deadline mode disarms it. */
void apic_timer_stop(void)
{
	lapic_write(LAPIC_LVT_TIMER, APIC_MASKED | APIC_TIMER_ONESHOT | VEC_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_INIT, 0);
}

u32 apic_timer_current(void)
{
	return lapic_read(LAPIC_TIMER_COUNT);
}

/*
 * Arm the timer to fire when the TSC reaches tsc. The LVT is switched to
 * TSC-deadline mode the first time; the MFENCE keeps that write (a store
 * in xAPIC mode, a relaxed WRMSR in x2APIC mode) ahead of the deadline
 * WRMSR, which the APIC would otherwise ignore (SDM vol. 3A, 10.5.4.1).
 */
void apic_timer_deadline(u64 tsc)
{
	u32 want = APIC_TIMER_DEADLINE | VEC_LAPIC_TIMER;

	if ((lapic_read(LAPIC_LVT_TIMER) & (APIC_TIMER_MODE | APIC_MASKED | 0xff)) != want) {
		lapic_write(LAPIC_LVT_TIMER, want);
		__asm__ volatile("mfence" ::: "memory");
	}
	wrmsr(MSR_TSC_DEADLINE, tsc);
}

/* --- bring-up ----------------------------------------------------------------------- */

/* xAPIC mode: map the register page at the MADT's address (without one, the default). */
static void map_xapic(void)
{
	u64 pa = APIC_DEFAULT_ADDR;
	u64 msr_pa = rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDR;

	if (acpi.has_madt && acpi.madt.lapic_address)
		pa = acpi.madt.lapic_address;
	if (msr_pa != pa)
		pr_warn("apic: MADT says the local APIC is at 0x%llx, IA32_APIC_BASE 0x%llx\n",
			pa, msr_pa);
	lapic_mmio = ioremap(pa, PAGE_SIZE, VM_UC);
	if (!lapic_mmio)
		panic("apic: cannot map the local APIC at 0x%llx", pa);
	lapic_phys = pa;
}

bool apic_xapic_page(u64 *va, u64 *pa)
{
	if (apic_x2apic || !lapic_mmio)
		return false;
	*va = (__force u64)lapic_mmio;   /* an address for the trampoline's assembly */
	*pa = lapic_phys;
	return true;
}

/* xAPIC or x2APIC: apic_choose_mode() decides; the reason is printed when the DMAR had a say. */
static void choose_mode(void)
{
	bool opt_out = acpi.has_dmar && (acpi.dmar.flags & DMAR_X2APIC_OPT_OUT);
	struct apic_mode_choice c = apic_choose_mode(cpu_info.x2apic,
						     rdmsr(MSR_APIC_BASE) & APIC_BASE_EXTD, opt_out);

	apic_x2apic = c.x2apic;
	if (opt_out)
		pr_info("apic: %s mode: %s\n", c.x2apic ? "x2APIC" : "xAPIC", c.why);
	if (!apic_x2apic)
		map_xapic();
	lapic_ready = true;
}

void apic_init(void)
{
	choose_mode();
	trap_set_handler(VEC_APIC_ERROR, apic_error_interrupt);
	trap_set_handler(VEC_SPURIOUS, apic_spurious_interrupt);
	pic_disable();
	lapic_setup();
	pr_info("apic: local APIC in %s mode, ID %u, version 0x%x\n",
		apic_x2apic ? "x2APIC" : "xAPIC", apic_read_id(), lapic_read(LAPIC_VERSION) & 0xff);
	ioapics_setup();
}

void apic_init_ap(void)
{
	lapic_setup();
}
