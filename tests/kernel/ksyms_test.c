// SPDX-License-Identifier: MIT
/*
 * ksyms_test.c - the embedded symbol table names the kernel's functions.
 */
#include "kstring.h"
#include "ksyms.h"
#include "ktest.h"
#include "mb2.h"
#include "panic.h"
#include "printk.h"
#include "vm.h"

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

static u64 callee_return;

/* Note where it will return to: the word a call pushed on the stack. */
__attribute__((noinline)) static void note_my_return(void)
{
	callee_return = (u64)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void call_note_my_return(void)
{
	note_my_return();
	__asm__ volatile("" ::: "memory");      /* no tail call: a real call and return */
}

/*
 * A function caught at its first instruction has not pushed rbp: its
 * caller is the word on top of the stack, believed only if the call just
 * before that address targets the function (a late call's NMI report and
 * panic's backtrace rely on it).
 */
static void a_frameless_caller_is_found_on_top_of_the_stack(struct ktest *t)
{
	u64 word;

	call_note_my_return();
	word = callee_return;
	EXPECT_EQ(t, backtrace_frameless_caller((u64)note_my_return, (u64)&word), word);
	EXPECT_EQ(t, backtrace_frameless_caller((u64)note_my_return + 1, (u64)&word), word);
	/* The same word is no caller of another function, nor is a word that follows no call. */
	EXPECT_EQ(t, backtrace_frameless_caller((u64)call_note_my_return, (u64)&word), 0);
	word = (u64)note_my_return;
	EXPECT_EQ(t, backtrace_frameless_caller((u64)note_my_return, (u64)&word), 0);
}

extern char __text_hot_start[], __text_hot_end[];

/*
 * The storm's per-iteration functions and their per-batch slow paths are
 * grouped at the start of the text (__hot, __hot_batch; linker.ld says
 * why), by name so that static ones count too.
 */
/* ksyms[]' address of a function named name, or 0 (none: inlined everywhere). */
static u64 address_of(const char *name)
{
	for (u32 k = 0; k < ksyms_count; k++)
		if (!strcmp(ksyms[k].name, name))
			return ksyms[k].addr;
	return 0;
}

static void the_hot_path_is_grouped_first_in_the_text(struct ktest *t)
{
	/* Called from other files: always a symbol. */
	static const char *const hot[] = {
		"file_open", "file_close", "file_close_now", "vfs_nr_files", "kmem_cache_alloc",
		"kmem_cache_free", "call_rcu", "rcu_all_qs", "cond_resched", "strcmp",
		"rcu_process_callbacks", "kmem_cache_free_bulk", "rcu_free_bulk",
	};
	/* Static: the compiler may inline them into their (hot) callers, as clang does nr_files_add. */
	static const char *const hot_static[] = {
		"nr_files_add", "storm_loop", "direct_loop", "refill", "flush", "do_batch",
		"file_free_rcu", "file_free_bulk",
	};
	u64 start = (u64)__text_hot_start, end = (u64)__text_hot_end;

	EXPECT_EQ(t, start, (u64)__text_start);
	for (u32 i = 0; i < sizeof(hot) / sizeof(hot[0]) + sizeof(hot_static) / sizeof(hot_static[0]);
	     i++) {
		bool is_static = i >= sizeof(hot) / sizeof(hot[0]);
		const char *name = is_static ? hot_static[i - sizeof(hot) / sizeof(hot[0])] : hot[i];
		u64 addr = address_of(name);

		if (!addr && is_static) {
			ktest_log(t, "%s: no symbol (inlined)", name);
			continue;
		}
		if (!addr || addr < start || addr >= end)
			ktest_log(t, "%s at %#llx, outside .text.hot [%#llx, %#llx)", name, addr, start,
				  end);
		EXPECT_TRUE(t, addr >= start && addr < end);
	}
	ktest_log(t, ".text.hot: %llu bytes", end - start);
}

static const struct ktest_case ksyms_cases[] = {
	KTEST(table_is_sorted_and_large),
	KTEST(lookup_names_kernel_main),
	KTEST(lookup_outside_text_finds_nothing),
	KTEST(backtrace_names_the_callers),
	KTEST(the_hot_path_is_grouped_first_in_the_text),
	KTEST(a_frameless_caller_is_found_on_top_of_the_stack),
	{},
};
KTEST_SUITE(ksyms, ksyms_cases);
