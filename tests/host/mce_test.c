// SPDX-License-Identifier: MIT
/*
 * mce_test.c - what a machine-check bank's status says, and when the
 * kernel may return from #MC.
 */
#include "host.h"
#include "ktest.h"
#include "mce.h"
#include "kstring.h"

static void severity_from_status(struct ktest *t)
{
	EXPECT_STREQ(t, mce_severity(MCI_STATUS_VAL | MCI_STATUS_EN | 0x9f), "corrected");
	EXPECT_STREQ(t, mce_severity(MCI_STATUS_VAL | MCI_STATUS_UC | 0x17), "uncorrected");
	EXPECT_STREQ(t, mce_severity(MCI_STATUS_VAL | MCI_STATUS_UC | MCI_STATUS_PCC),
		     "uncorrected, processor context corrupt");
	EXPECT_STREQ(t, mce_severity(MCI_STATUS_VAL | MCI_STATUS_PCC), "corrected");  /* PCC needs UC */
}

static void return_only_when_nothing_was_lost(struct ktest *t)
{
	EXPECT_TRUE(t, mce_survivable(MCG_STATUS_RIPV, false));
	EXPECT_FALSE(t, mce_survivable(MCG_STATUS_RIPV, true));            /* uncorrected */
	EXPECT_FALSE(t, mce_survivable(0, false));                          /* cannot restart */
	EXPECT_FALSE(t, mce_survivable(MCG_STATUS_MCIP, false));
}

static void bank_registers(struct ktest *t)
{
	EXPECT_EQ(t, MSR_MC_CTL(0), 0x400);
	EXPECT_EQ(t, MSR_MC_STATUS(1), 0x405);
	EXPECT_EQ(t, MSR_MC_ADDR(2), 0x40a);
	EXPECT_EQ(t, MSR_MC_MISC(9), 0x427);
}

static const struct ktest_case mce_bits_cases[] = {
	KTEST(severity_from_status),
	KTEST(return_only_when_nothing_was_lost),
	KTEST(bank_registers),
	{},
};
KTEST_SUITE(mce_bits, mce_bits_cases);
