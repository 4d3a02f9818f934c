// SPDX-License-Identifier: MIT
/*
 * boot_test.c - what the boot path found and set up, checked from inside.
 */
#include "cmdline.h"
#include "cpu.h"
#include "kstring.h"
#include "ktest.h"
#include "mb2.h"
#include "memmap.h"
#include "vm.h"
#include "x86.h"

static void grub_gave_a_clean_multiboot2_info(struct ktest *t)
{
	EXPECT_EQ(t, boot_info.nproblems, 0);
	EXPECT_GT(t, boot_info.ntags, 2);
	EXPECT_EQ(t, strncmp(boot_info.loader_name, "GRUB", 4), 0);
	EXPECT_GT(t, boot_info.mmap_count, 0);
	EXPECT_TRUE(t, boot_info.rsdp_old || boot_info.rsdp_new);
}

/*
 * The runner passes test= through fw_cfg, GRUB's "run all tests" entry
 * in its own line: either way the value of the last test= word of the
 * whole line, as written, is the selection the tests run (the parser
 * kept every character of it, and the later word won).
 */
static void command_line_reached_the_kernel(struct ktest *t)
{
	const char *last = NULL;
	char value[256];
	size_t len;

	for (const char *p = kernel_cmdline; (p = strstr(p, "test=")) != NULL; p++)
		if (p == kernel_cmdline || p[-1] == ' ')
			last = p + 5;
	ASSERT_TRUE(t, last != NULL);
	for (len = 0; last[len] && last[len] != ' ' && len < sizeof(value) - 1; len++)
		value[len] = last[len];
	value[len] = '\0';
	ASSERT_TRUE(t, ktest_selection() != NULL);
	EXPECT_STREQ(t, ktest_selection(), value);
}

static void memory_map_is_sane(struct ktest *t)
{
	u64 image = (u64)__kernel_phys_start;
	bool image_in_ram = false;

	ASSERT_GT(t, boot_memmap.n, 0);
	for (u32 i = 0; i < boot_memmap.n; i++) {
		const struct memmap_entry *e = &boot_memmap.e[i];
		EXPECT_LT(t, e->base, e->end);
		if (e->type == E820_USABLE && e->base <= image && image < e->end)
			image_in_ram = true;
	}
	EXPECT_TRUE(t, image_in_ram);
	EXPECT_GT(t, memmap_usable_bytes(&boot_memmap), 16UL << 20);
}

static void cpu_is_in_long_mode_with_protections(struct ktest *t)
{
	u64 efer = rdmsr(MSR_EFER);

	EXPECT_TRUE(t, efer & (1UL << 8));      /* LME */
	EXPECT_TRUE(t, efer & (1UL << 10));     /* LMA: long mode active */
	EXPECT_EQ(t, !!(efer & EFER_NXE), cpu_info.nx);
	EXPECT_TRUE(t, read_cr0() & (1UL << 31));  /* PG */
	EXPECT_TRUE(t, read_cr0() & CR0_WP);
	EXPECT_TRUE(t, read_cr4() & CR4_PAE);
}

static void running_on_the_kernels_own_gdt(struct ktest *t)
{
	u16 cs, tr;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	__asm__ volatile("str %0" : "=r"(tr));
	EXPECT_EQ(t, cs, KERNEL_CS);
	EXPECT_EQ(t, tr, TSS_SEL);
}

static const struct ktest_case boot_cases[] = {
	KTEST(grub_gave_a_clean_multiboot2_info),
	KTEST(command_line_reached_the_kernel),
	KTEST(memory_map_is_sane),
	KTEST(cpu_is_in_long_mode_with_protections),
	KTEST(running_on_the_kernels_own_gdt),
	{},
};
KTEST_SUITE(boot, boot_cases);
