/* SPDX-License-Identifier: MIT */
/*
 * apic.h - interrupt controllers: each CPU's local APIC, and the I/O APICs.
 *
 * The local APIC takes interrupts for its CPU (its timer, IPIs from other
 * CPUs, what the I/O APICs route to it) and must be told when a handler is
 * done (EOI). It runs in xAPIC mode (registers in a 4 KiB MMIO page at the
 * MADT's address) or x2APIC mode (registers as MSRs 0x800+, 32-bit APIC
 * IDs) when the CPU has it or firmware left it on. The I/O APICs turn
 * device interrupt lines (GSIs) into vectors for chosen CPUs; the MADT's
 * overrides say where each legacy ISA IRQ really arrives (IRQ 0 at GSI 2
 * on QEMU) and with which polarity and trigger. The old 8259 PICs are
 * masked: nothing arrives through them.
 *
 * The second half of this header is pure: register numbers and the
 * encodings of the ICR, LVT and redirection entries, as static inline
 * functions that the host unit tests check (tests/host/apic_test.c). That
 * is also the only testing the x2APIC encodings get, since QEMU's TCG has
 * no x2APIC.
 */
#ifndef APIC_H
#define APIC_H

#include "acpi.h"
#include "param.h"
#include "types.h"

/* Vectors (0-31 are exceptions). */
#define VEC_IRQ_BASE     0x20   /* ISA IRQ n arrives on 0x20 + n */
#define VEC_LAPIC_TIMER  0x40
#define VEC_LAPIC_WAKEUP 0x41   /* the APIC timer while it only wakes its CPU (time.h) */
#define VEC_IPI_RESCHED  0xf0
#define VEC_IPI_CALL     0xf1
#define VEC_APIC_ERROR   0xfe
#define VEC_SPURIOUS     0xff

extern bool apic_x2apic;        /* x2APIC mode on this machine */
/*
 * xAPIC mode: the kernel's (uncached) mapping of the local APIC's register
 * page and its physical address, which every CPU's APIC answers at (for the
 * AP trampoline, which reads its APIC ID there); false in x2APIC mode.
 */
bool apic_xapic_page(u64 *va, u64 *pa);

/* Boot CPU: pick the mode, enable the local APIC, mask the 8259s, set up the I/O APICs. */
void apic_init(void);

/* Each other CPU: enable its local APIC in the mode the boot CPU chose. */
void apic_init_ap(void);

u32 apic_read_id(void);         /* this CPU's APIC ID */
void apic_eoi(void);            /* end of interrupt: last thing of every APIC-delivered handler */
bool apic_in_service(u8 vector);        /* the vector's ISR bit: delivered, not yet ended */

void apic_send_ipi(u32 apic_id, u8 vector);
void apic_send_nmi(u32 apic_id);
void apic_send_init(u32 apic_id);
void apic_send_sipi(u32 apic_id, u8 start_page);  /* start at physical start_page * 4 KiB */

/*
 * Route ISA IRQ irq (after MADT overrides) to vector on the CPU with
 * apic_id, unmasked. False if no I/O APIC serves it.
 */
bool ioapic_route_irq(u8 irq, u8 vector, u32 apic_id);

/* The local APIC timer: count down from count at the divide-by-16 rate. */
void apic_timer_oneshot(u32 count);
void apic_timer_periodic(u32 count);
void apic_timer_wakeups(u32 count);     /* periodic, on VEC_LAPIC_WAKEUP */
void apic_timer_stop(void);
u32 apic_timer_current(void);
void apic_timer_deadline(u64 tsc);      /* TSC-deadline mode, when the CPU has it */

/* --- for tests and diagnostics ---------------------------------------------- */

/* One I/O APIC as apic_init() found it. */
struct ioapic {
	u32 __iomem *regs;      /* IOREGSEL at +0x00, IOWIN at +0x10 */
	u8 id;
	u8 version;             /* version register bits 0-7 */
	u32 gsi_base;           /* its pin n is GSI gsi_base + n */
	u32 nentries;           /* redirection entries (pins) */
};

extern struct ioapic ioapics[MAX_IOAPICS];
extern u32 nr_ioapics;

bool apic_ready(void);          /* apic_init() has run: the local APIC may be touched */
u32 lapic_read(u32 reg);        /* a local APIC register, by its xAPIC offset */

/* Write, then read the Error Status Register: the errors since the last call. */
u32 apic_error_status(void);
extern u64 apic_errors;         /* error interrupts taken, all CPUs */
extern u64 apic_spurious;       /* spurious-vector interrupts taken, all CPUs */

/* The redirection entry of a GSI (0 if no I/O APIC has it), and masking one. */
u64 ioapic_read_entry(u32 gsi);
void ioapic_mask_gsi(u32 gsi);

/* --- registers and encodings (pure) ------------------------------------------- */

/* Local APIC registers as offsets in the xAPIC page (Intel SDM vol. 3A, 10.4.1). */
#define LAPIC_ID          0x020  /* xAPIC: ID in bits 24-31; x2APIC: all 32 bits */
#define LAPIC_VERSION     0x030  /* bits 0-7 version, 16-23 index of the last LVT entry */
#define LAPIC_TPR         0x080  /* task priority: 0 accepts every vector */
#define LAPIC_EOI         0x0b0
#define LAPIC_SVR         0x0f0  /* spurious vector; bit 8 enables the APIC */
#define LAPIC_ISR         0x100  /* in service: 8 registers of 32 bits, 0x10 apart */
#define LAPIC_ESR         0x280  /* error status */
#define LAPIC_LVT_CMCI    0x2f0  /* exists when the last LVT index >= 6 */
#define LAPIC_ICR_LOW     0x300
#define LAPIC_ICR_HIGH    0x310  /* xAPIC only: destination in bits 24-31 */
#define LAPIC_LVT_TIMER   0x320
#define LAPIC_LVT_THERMAL 0x330  /* exists when the last LVT index >= 5 */
#define LAPIC_LVT_PERF    0x340  /* exists when the last LVT index >= 4 */
#define LAPIC_LVT_LINT0   0x350
#define LAPIC_LVT_LINT1   0x360
#define LAPIC_LVT_ERROR   0x370
#define LAPIC_TIMER_INIT  0x380  /* initial count: writing it starts the timer */
#define LAPIC_TIMER_COUNT 0x390  /* current count */
#define LAPIC_TIMER_DIV   0x3e0

#define MSR_APIC_BASE     0x1b
#define APIC_BASE_BSP     (1UL << 8)    /* this is the boot processor */
#define APIC_BASE_EXTD    (1UL << 10)   /* x2APIC mode (with EN) */
#define APIC_BASE_EN      (1UL << 11)   /* APIC globally enabled */
#define APIC_BASE_ADDR    0x000ffffffffff000UL
#define APIC_DEFAULT_ADDR 0xfee00000UL
#define MSR_X2APIC_ICR    0x830         /* the whole 64-bit ICR in one MSR */
#define MSR_TSC_DEADLINE  0x6e0

/*
 * x2APIC mode: the register at xAPIC offset reg is MSR 0x800 + reg / 16
 * (so the EOI register, offset 0xb0, is MSR 0x80b). The ICR is the one
 * exception: its two halves became the single 64-bit MSR 0x830.
 */
static inline u32 x2apic_msr(u32 reg)
{
	return 0x800 + (reg >> 4);
}

/*
 * The fields that LVT entries, the ICR's low half and I/O APIC
 * redirection entries share, at the same bit positions.
 */
#define APIC_DM_FIXED       (0u << 8)   /* delivery mode, bits 8-10 */
#define APIC_DM_SMI         (2u << 8)   /* firmware's: system management interrupt */
#define APIC_DM_NMI         (4u << 8)
#define APIC_DM_MASK        (7u << 8)
#define APIC_DM_INIT        (5u << 8)
#define APIC_DM_STARTUP     (6u << 8)
#define APIC_DEST_LOGICAL   (1u << 11)  /* 0: physical, the destination is an APIC ID */
#define APIC_PENDING        (1u << 12)  /* delivery status (read-only): not yet accepted */
#define APIC_ACTIVE_LOW     (1u << 13)  /* LINTn and I/O APIC pins: input polarity */
#define APIC_LEVEL_ASSERT   (1u << 14)  /* ICR: 1 for everything but INIT de-assert */
#define APIC_TRIGGER_LEVEL  (1u << 15)
#define APIC_MASKED         (1u << 16)
#define APIC_TIMER_ONESHOT  (0u << 17)  /* LVT timer mode, bits 17-18 */
#define APIC_TIMER_PERIODIC (1u << 17)
#define APIC_TIMER_DEADLINE (2u << 17)
#define APIC_TIMER_MODE     (3u << 17)
#define APIC_SVR_ENABLE     (1u << 8)
#define APIC_TIMER_DIV16    0x3         /* divide configuration: bits 0,1,3 = 011 -> 16 */

/* The APIC ID in the value of the ID register. */
static inline u32 apic_id_from_reg(u32 v, bool x2apic)
{
	return x2apic ? v : v >> 24;
}

/*
 * The 64-bit ICR value that sends low (vector, delivery mode, level,
 * trigger) to apic_id in physical destination mode. xAPIC: an 8-bit
 * destination in bits 56-63 (bits 24-31 of ICR_HIGH); x2APIC: a 32-bit
 * destination in bits 32-63.
 */
static inline u64 apic_icr(u32 apic_id, u32 low, bool x2apic)
{
	u64 dest = x2apic ? apic_id : (u64)(apic_id & 0xff) << 24;

	return dest << 32 | low;
}

/* Polarity and trigger of an interrupt line, and where it arrives. */
struct irq_route {
	u32 gsi;
	bool active_low;
	bool level;
};

/*
 * MPS INTI flags, as in MADT overrides and NMI entries: polarity in bits
 * 0-1 and trigger mode in bits 2-3, each 00 "as the bus says" (ISA: active
 * high, edge), 01 high/edge, 11 low/level; 10 is reserved and read as the
 * bus default.
 */
static inline bool inti_active_low(u16 flags)
{
	return (flags & 3) == 3;
}

static inline bool inti_level(u16 flags)
{
	return ((flags >> 2) & 3) == 3;
}

/* Where ISA IRQ irq arrives, given the MADT's overrides (bus 0 is ISA). */
static inline struct irq_route isa_irq_route(u8 irq, const struct madt_override *ov, u32 n)
{
	for (u32 i = 0; i < n; i++) {
		if (ov[i].bus == 0 && ov[i].source_irq == irq)
			return (struct irq_route){ ov[i].gsi, inti_active_low(ov[i].flags),
						   inti_level(ov[i].flags) };
	}
	return (struct irq_route){ irq, false, false };
}

/*
 * An I/O APIC redirection entry: fixed delivery of vector to apic_id in
 * physical mode (8-bit destination in bits 56-63) with r's polarity and
 * trigger.
 */
static inline u64 ioapic_entry(u8 vector, u32 apic_id, struct irq_route r, bool masked)
{
	u64 e = vector | APIC_DM_FIXED;

	if (r.active_low)
		e |= APIC_ACTIVE_LOW;
	if (r.level)
		e |= APIC_TRIGGER_LEVEL;
	if (masked)
		e |= APIC_MASKED;
	return e | (u64)(apic_id & 0xff) << 56;
}

/*
 * Whether the kernel may write an I/O APIC pin whose entry reads e: not if
 * firmware set it to SMI delivery (mode 010). Some boards route an SMI
 * (console redirection, the ACPI mode switch) through an I/O APIC pin that
 * no table describes; masking it breaks SMM. Linux has left such pins
 * alone since 2003 (John Stultz, "clear-smi-fix", 2.5.69 and 2.4.22:
 * clear_IO_APIC_pin() returns on dest_SMI).
 */
static inline bool ioapic_pin_is_ours(u64 e)
{
	return (e & APIC_DM_MASK) != APIC_DM_SMI;
}

/*
 * xAPIC or x2APIC, and why. x2APIC once firmware switched it on (there is
 * no way back but a disable, which would lose the APIC's state); else
 * x2APIC if the CPU has it, unless the DMAR sets its x2APIC opt-out flag
 * (VT-d spec 8.1: firmware, or its SMM code, expects xAPIC). Linux honours
 * the flag where it sets up interrupt remapping (drivers/iommu/intel/
 * irq_remapping.c, intel_prepare_irq_remapping(): "x2apic is disabled
 * because BIOS sets x2apic opt out bit.", overridden by
 * intremap=no_x2apic_optout); testbed has no interrupt remapping and
 * honours it here, with no override.
 */
struct apic_mode_choice {
	bool x2apic;
	const char *why;
};

static inline struct apic_mode_choice apic_choose_mode(bool cpu_has_x2apic, bool firmware_on,
							bool dmar_opt_out)
{
	if (firmware_on)
		return (struct apic_mode_choice){ true, dmar_opt_out ?
			"firmware left x2APIC on although its DMAR asks for opt-out; there is no way back" :
			"firmware left x2APIC on" };
	if (!cpu_has_x2apic)
		return (struct apic_mode_choice){ false, "the CPU has no x2APIC" };
	if (dmar_opt_out)
		return (struct apic_mode_choice){ false, "the DMAR sets the x2APIC opt-out flag" };
	return (struct apic_mode_choice){ true, "the CPU has x2APIC" };
}

/* Redirection entries of an I/O APIC: its version register, bits 16-23, plus one. */
static inline u32 ioapic_entries(u32 version_reg)
{
	return ((version_reg >> 16) & 0xff) + 1;
}

/*
 * Whether a MADT NMI entry for processor uid applies to the CPU whose
 * ACPI processor UID is cpu_uid: 0xff (type 4) and 0xffffffff (type 10)
 * mean every CPU.
 */
static inline bool madt_nmi_applies(u32 uid, u32 cpu_uid)
{
	return uid == 0xff || uid == 0xffffffff || uid == cpu_uid;
}

/* The LVT LINTn value for an NMI input with these INTI flags (NMIs are always edge). */
static inline u32 lint_nmi_lvt(u16 flags)
{
	return APIC_DM_NMI | (inti_active_low(flags) ? APIC_ACTIVE_LOW : 0);
}

#endif
