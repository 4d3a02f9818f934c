/*
 * ksyms_test.c - the embedded symbol table names the kernel's functions.
 */
#include "kstring.h"
#include "ksyms.h"
#include "ktest.h"
#include "panic.h"
#include "printk.h"

void kernel_main(u64 magic, u64 info);
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size);

static void table_is_sorted_and_large(struct ktest *t)
{
	EXPECT_GT(t, ksyms_count, 50);
	for (u32 i = 1; i < ksyms_count; i++)
		if (ksyms[i - 1].addr >= ksyms[i].addr) {
			EXPECT_LT(t, ksyms[i - 1].addr, ksyms[i].addr);
			return;
		}
}

static void lookup_names_kernel_main(struct ktest *t)
{
	u64 off = 0, size = 0;
	const char *name = ksym_lookup((u64)kernel_main + 5, &off, &size);

	ASSERT_TRUE(t, name != NULL);
	EXPECT_STREQ(t, name, "kernel_main");
	EXPECT_EQ(t, off, 5);
	EXPECT_GT(t, size, 5);
}

static void lookup_outside_text_finds_nothing(struct ktest *t)
{
	static int data;

	EXPECT_TRUE(t, ksym_lookup((u64)&data, NULL, NULL) == NULL);
	EXPECT_TRUE(t, ksym_lookup(0, NULL, NULL) == NULL);
}

static char tail[2048];

__attribute__((noinline)) static void ksyms_test_inner(void)
{
	backtrace_print(0, (u64)__builtin_frame_address(0));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void ksyms_test_outer(void)
{
	ksyms_test_inner();
	__asm__ volatile("" ::: "memory");
}

static void backtrace_names_the_callers(struct ktest *t)
{
	ksyms_test_outer();
	printk_log_tail(tail, sizeof(tail));
	EXPECT_TRUE(t, strstr(tail, "] ksyms_test_outer+0x") != NULL);
	EXPECT_TRUE(t, strstr(tail, "] backtrace_names_the_callers+0x") != NULL);
	EXPECT_TRUE(t, strstr(tail, "] kernel_main+0x") != NULL);
}

static const struct ktest_case ksyms_cases[] = {
	KTEST(table_is_sorted_and_large),
	KTEST(lookup_names_kernel_main),
	KTEST(lookup_outside_text_finds_nothing),
	KTEST(backtrace_names_the_callers),
	{},
};
KTEST_SUITE(ksyms, ksyms_cases);
