/* SPDX-License-Identifier: MIT */
/*
 * mce.h - machine checks: the CPU's own report of a hardware error.
 *
 * With MCA (CPUID.1:EDX bits 7 and 14) each CPU has banks of four MSRs,
 * MCi_CTL/STATUS/ADDR/MISC at 0x400 + 4i; MCG_CAP (0x179) says how many.
 * A bank's STATUS holds an error once its VAL bit is set: corrected ones
 * (UC clear) are only logged there, uncorrected ones also raise #MC
 * (vector 18) when CR4.MCE is set, and without CR4.MCE they shut the
 * machine down. mce_init_cpu() reports what firmware or a previous boot
 * left in the banks, clears them, enables every bank and sets CR4.MCE;
 * the tick polls the banks once a second for corrected errors
 * (mce_poll()); the #MC handler reports each bank and panics when the
 * error is uncorrected (the kernel cannot tell what was lost), and goes on
 * only when the CPU says it can (MCG_STATUS.RIPV) and no bank holds an
 * uncorrected error.
 */
#ifndef MCE_H
#define MCE_H

#include "types.h"

#define MSR_MCG_CAP     0x179           /* bits 7:0 banks; bit 8 MCG_CTL present */
#define MSR_MCG_STATUS  0x17a           /* bit 0 RIPV, bit 1 EIPV, bit 2 MCIP */
#define MSR_MCG_CTL     0x17b
#define MSR_MC_CTL(i)   (0x400 + 4 * (i))
#define MSR_MC_STATUS(i) (0x401 + 4 * (i))
#define MSR_MC_ADDR(i)  (0x402 + 4 * (i))
#define MSR_MC_MISC(i)  (0x403 + 4 * (i))

#define MCG_CAP_COUNT   0xff
#define MCG_CTL_P       (1ULL << 8)
#define MCG_STATUS_RIPV (1ULL << 0)     /* execution can restart at the saved RIP */
#define MCG_STATUS_MCIP (1ULL << 2)     /* a #MC is in progress: another one shuts down */

#define MCI_STATUS_VAL  (1ULL << 63)    /* the bank holds an error */
#define MCI_STATUS_OVER (1ULL << 62)    /* ... and another one was lost */
#define MCI_STATUS_UC   (1ULL << 61)    /* uncorrected */
#define MCI_STATUS_EN   (1ULL << 60)    /* reported because the bank was enabled */
#define MCI_STATUS_MISCV (1ULL << 59)
#define MCI_STATUS_ADDRV (1ULL << 58)
#define MCI_STATUS_PCC  (1ULL << 57)    /* processor context corrupt */

#define MCE_MAX_BANKS   32

/* Enable machine checks on this CPU (every CPU calls it for itself, interrupts off). */
void mce_init_cpu(void);

/* From the tick, once a second: report and clear corrected errors in this CPU's banks. */
void mce_poll(void);

/* Errors reported on this CPU since boot (left-over, polled and #MC ones). */
u64 mce_errors_seen(u32 cpu);

struct trap_frame;

/* #MC from trap_dispatch(): true if the kernel may go on, else it panics (and calls mce_describe()). */
bool mce_exception(struct trap_frame *f);
void mce_describe(void);

/* The banks this CPU has and whether machine checks are on; 0 without MCA. */
u32 mce_banks(void);

/*
 * What a bank's STATUS says, in a few words, for the report: "corrected",
 * "uncorrected", "uncorrected, processor context corrupt"; pure.
 */
static inline const char *mce_severity(u64 status)
{
	if (!(status & MCI_STATUS_UC))
		return "corrected";
	return status & MCI_STATUS_PCC ? "uncorrected, processor context corrupt" : "uncorrected";
}

/* Whether the kernel may return from a #MC: the CPU says it can restart, nothing uncorrected. */
static inline bool mce_survivable(u64 mcg_status, bool any_uncorrected)
{
	return (mcg_status & MCG_STATUS_RIPV) && !any_uncorrected;
}

#endif
