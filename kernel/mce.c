// SPDX-License-Identifier: MIT
/*
 * mce.c - machine checks (see mce.h).
 *
 * Per CPU: mce_init_cpu() reports and clears what the banks held at boot
 * (an error from before this boot is worth saying: it may be why the
 * machine was rebooted), writes all ones to MCG_CTL and to every bank's
 * MCi_CTL, then sets CR4.MCE. The one bank not written is bank 0 of Intel
 * family 6 before model 0x1a, where it aliases a BIOS-owned register (as
 * Linux's __mcheck_cpu_apply_quirks() in arch/x86/kernel/cpu/mce/core.c
 * skips it). The tick's mce_poll() reads every bank once a second, as
 * Linux's mce_timer_fn() does every five minutes, and reports corrected
 * errors; #MC reports every valid bank and panics unless mce_survivable().
 *
 * Invariants: a bank is cleared (STATUS = 0) only after it was reported;
 * the #MC handler prints through the panic path only (no lock waits on a
 * report that comes from an NMI-like context), and a survivable #MC is
 * reported later by the tick, like an NMI.
 */
#include "mce.h"
#include "cpu.h"
#include "format.h"
#include "kstring.h"
#include "percpu.h"
#include "printk.h"
#include "trap.h"
#include "x86.h"

#define CR4_MCE (1UL << 6)

struct mce_cpu {
	u32 banks;                      /* 0: no machine checks here */
	u64 seen;                       /* errors reported */
	u64 deferred;                   /* survived #MCs the tick has not reported yet */
} __aligned(64);

static struct mce_cpu mce_cpus[MAX_CPUS];

u64 mce_errors_seen(u32 cpu)
{
	return cpu < MAX_CPUS ? __atomic_load_n(&mce_cpus[cpu].seen, __ATOMIC_ACQUIRE) : 0;
}

u32 mce_banks(void)
{
	return mce_cpus[smp_processor_id()].banks;
}

static void report_bank(u32 bank, u64 status, const char *when, bool panicking)
{
	char addr[32] = "", misc[32] = "";

	if (status & MCI_STATUS_ADDRV)
		snprintf(addr, sizeof(addr), ", addr 0x%llx", rdmsr(MSR_MC_ADDR(bank)));
	if (status & MCI_STATUS_MISCV)
		snprintf(misc, sizeof(misc), ", misc 0x%llx", rdmsr(MSR_MC_MISC(bank)));
	char line[200];

	snprintf(line, sizeof(line), "mce: CPU %u bank %u: %s error %s, status 0x%016llx%s%s%s",
		 smp_processor_id(), bank, mce_severity(status), when, status,
		 status & MCI_STATUS_OVER ? " (more were lost)" : "", addr, misc);
	if (panicking)
		printk(KERN_EMERG "%s\n", line);
	else
		printk(KERN_WARNING "%s\n", line);
	mce_cpus[smp_processor_id()].seen++;
}

/* Report and clear every valid bank; returns how many there were. */
static u32 sweep(const char *when, bool panicking)
{
	struct mce_cpu *m = &mce_cpus[smp_processor_id()];
	u32 found = 0;

	for (u32 i = 0; i < m->banks; i++) {
		u64 status = rdmsr(MSR_MC_STATUS(i));

		if (!(status & MCI_STATUS_VAL))
			continue;
		report_bank(i, status, when, panicking);
		wrmsr(MSR_MC_STATUS(i), 0);
		found++;
	}
	return found;
}

void mce_init_cpu(void)
{
	struct mce_cpu *m = &mce_cpus[smp_processor_id()];
	u32 a, b, c, d;
	u64 cap;

	cpuid(1, 0, &a, &b, &c, &d);
	if (!(d & (1u << 7)) || !(d & (1u << 14)))
		return;                 /* no MCE or no MCA: nothing to enable */
	cap = rdmsr(MSR_MCG_CAP);
	m->banks = MIN((u32)(cap & MCG_CAP_COUNT), (u32)MCE_MAX_BANKS);
	sweep("left from before this boot", false);
	if (cap & MCG_CTL_P)
		wrmsr(MSR_MCG_CTL, ~0ULL);
	for (u32 i = 0; i < m->banks; i++) {
		if (i == 0 && !strcmp(cpu_info.vendor, "GenuineIntel") && cpu_info.family == 6 &&
		    cpu_info.model < 0x1a)
			continue;
		wrmsr(MSR_MC_CTL(i), ~0ULL);
	}
	write_cr4(read_cr4() | CR4_MCE);
	if (smp_processor_id() == 0)
		pr_info("mce: machine checks on, %u banks per CPU\n", m->banks);
}

void mce_poll(void)
{
	struct mce_cpu *m = &mce_cpus[smp_processor_id()];

	if (!m->banks)
		return;
	if (m->deferred) {
		pr_warn("mce: CPU %u: survived %llu machine check%s\n", smp_processor_id(),
			m->deferred, m->deferred == 1 ? "" : "s");
		m->deferred = 0;
	}
	sweep("found by polling", false);
}

/*
 * #MC, from trap_dispatch(): true when the kernel may go on (the tick
 * then reports it and sweeps the banks); false means trap_panic(), which
 * calls mce_describe() once output is its own.
 */
bool mce_exception(struct trap_frame *f)
{
	struct mce_cpu *m = &mce_cpus[smp_processor_id()];
	u64 mcg = m->banks ? rdmsr(MSR_MCG_STATUS) : 0;
	bool uncorrected = false;

	(void)f;
	for (u32 i = 0; i < m->banks; i++)
		uncorrected |= (rdmsr(MSR_MC_STATUS(i)) & (MCI_STATUS_VAL | MCI_STATUS_UC)) ==
			       (MCI_STATUS_VAL | MCI_STATUS_UC);
	if (!m->banks || !mce_survivable(mcg, uncorrected))
		return false;
	m->deferred++;
	wrmsr(MSR_MCG_STATUS, 0);       /* MCIP off: the next #MC is not a shutdown */
	return true;
}

void mce_describe(void)
{
	struct mce_cpu *m = &mce_cpus[smp_processor_id()];
	u64 mcg;

	if (!m->banks)
		return;
	mcg = rdmsr(MSR_MCG_STATUS);
	sweep("raised a machine check (#MC)", true);
	printk(KERN_EMERG "mce: MCG_STATUS 0x%llx%s\n", mcg,
	       mcg & MCG_STATUS_RIPV ? "" : " (RIPV clear: the interrupted code cannot go on)");
}
