// SPDX-License-Identifier: MIT
/*
 * pci_test.c - which functions' BARs are never sized (pci_sizing()).
 */
#include "host.h"
#include "ktest.h"
#include "kstring.h"
#include "pci.h"

static void host_bridges_are_not_sized(struct ktest *t)
{
	u64 none[1] = { 0 };

	EXPECT_TRUE(t, pci_sizing(0x06, 0x00, none, 0, 0) != NULL);
	EXPECT_TRUE(t, pci_sizing(0x06, 0x04, none, 0, 0) == NULL);             /* a PCI bridge is */
	EXPECT_TRUE(t, pci_sizing(0x06, 0x01, none, 0, 0) == NULL);             /* an ISA bridge too */
}

static void the_framebuffers_function_is_not_sized(struct ktest *t)
{
	u64 qemu_vga[2] = { 0xfd000000, 0xfebf0000 };                   /* BAR0 16 MiB, BAR2 4 KiB */
	u64 q35_vga[2] = { 0xc0000000, 0xc1090000 };
	u64 high[2] = { 0x4000000000ULL, 0 };                           /* a 64-bit BAR */

	EXPECT_TRUE(t, pci_sizing(0x03, 0x00, qemu_vga, 2, 0xfd000000) != NULL);
	EXPECT_TRUE(t, pci_sizing(0x03, 0x00, q35_vga, 2, 0xc0000000) != NULL);
	EXPECT_TRUE(t, pci_sizing(0x03, 0x00, qemu_vga, 2, 0xfd300000) != NULL);   /* inside BAR0 */
	EXPECT_TRUE(t, pci_sizing(0x03, 0x80, high, 2, 0x4000100000ULL) != NULL);
	EXPECT_TRUE(t, pci_sizing(0x03, 0x00, qemu_vga, 2, 0) == NULL);                /* no framebuffer */
	EXPECT_TRUE(t, pci_sizing(0x03, 0x00, qemu_vga, 2, 0xc0000000) == NULL);       /* another's */
	EXPECT_TRUE(t, pci_sizing(0x03, 0x00, qemu_vga, 2, 0xb8000) == NULL);          /* VGA text */
	EXPECT_TRUE(t, pci_sizing(0x02, 0x00, qemu_vga, 2, 0xfd000000) == NULL);       /* not display */
}

static const struct ktest_case pci_sizing_cases[] = {
	KTEST(host_bridges_are_not_sized),
	KTEST(the_framebuffers_function_is_not_sized),
	{},
};
KTEST_SUITE(pci_sizing, pci_sizing_cases);
