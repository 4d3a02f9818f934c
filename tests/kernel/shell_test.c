// SPDX-License-Identifier: MIT
/*
 * shell_test.c - the shell's command table: good lines run, bad ones get
 * their usage line and false, never a fault; and a bad word is answered
 * in words, with the valid choices where there is a list (what the shell
 * printed is read back from the log).
 */
#include "acpi.h"
#include "format.h"
#include "kstring.h"
#include "ktest.h"
#include "percpu.h"
#include "printk.h"
#include "shell.h"
#include "virtio_blk.h"

static char said[32768];         /* a wide machine's MADT dump fits */

/*
 * Run line at the shell; *ok gets what shell_execute() returned, and the
 * result is what it printed: the log after a marker printed just before.
 */
static const char *shell_says(const char *line, bool *ok)
{
	static u32 runs;
	char marker[48];

	snprintf(marker, sizeof(marker), "shell_test: run %u follows\n", ++runs);
	printk("%s", marker);
	*ok = shell_execute(line);
	printk_log_tail(said, sizeof(said));
	const char *after = strstr(said, marker);
	return after ? after + strlen(marker) : "";
}

static void good_commands_run(struct ktest *t)
{
	EXPECT_TRUE(t, shell_execute("help"));
	EXPECT_TRUE(t, shell_execute("  topo  "));
	EXPECT_TRUE(t, shell_execute("cpus"));
	EXPECT_TRUE(t, shell_execute("dmesg 2"));       /* all of it would repeat this KTAP */
	EXPECT_TRUE(t, shell_execute("rcu"));
	EXPECT_TRUE(t, shell_execute("rcu modes"));
	EXPECT_TRUE(t, shell_execute("acpi APIC"));
	EXPECT_TRUE(t, shell_execute("acpi NONE"));     /* a good command that finds nothing */
	EXPECT_TRUE(t, shell_execute(""));
}

static void bad_input_gets_usage(struct ktest *t)
{
	EXPECT_FALSE(t, shell_execute("nosuchcommand"));
	EXPECT_FALSE(t, shell_execute("acpi"));
	EXPECT_FALSE(t, shell_execute("acpi TOOLONG"));
	EXPECT_FALSE(t, shell_execute("storm lots"));
	EXPECT_FALSE(t, shell_execute("storm 10 9999"));
	EXPECT_FALSE(t, shell_execute("torture 99999999"));
	EXPECT_FALSE(t, shell_execute("rcu mode"));
	EXPECT_FALSE(t, shell_execute("a b c d e f g h i j k"));   /* more words than it takes */
	EXPECT_FALSE(t, shell_execute("test"));
	EXPECT_FALSE(t, shell_execute("dmesg all"));
	EXPECT_FALSE(t, shell_execute("dmesg 0"));
}

static void storm_and_mode_switch_from_the_shell(struct ktest *t)
{
	EXPECT_TRUE(t, shell_execute("rcu mode count"));
	EXPECT_TRUE(t, shell_execute("storm 20000 0"));
	EXPECT_TRUE(t, shell_execute("rcu mode fqs"));
	EXPECT_TRUE(t, shell_execute("rcu mode nosuch"));  /* said, and nothing changes */
}

/* `test nosuch` names the word, lists the suites, and runs nothing. */
static void test_with_an_unknown_suite_lists_the_suites(struct ktest *t)
{
	bool ok;
	const char *out = shell_says("test nosuch", &ok);

	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "test: no suite or case matches 'nosuch'; nothing ran") != NULL);
	EXPECT_TRUE(t, strstr(out, "test:   ") != NULL);
	EXPECT_TRUE(t, strstr(out, "shell") != NULL);   /* this suite, in the list */
	EXPECT_TRUE(t, strstr(out, "KTAP") == NULL);    /* no run started */
	out = shell_says("test string,string.no_such_case", &ok);  /* a case pattern too */
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "matches 'string.no_such_case'; nothing ran") != NULL);
	EXPECT_TRUE(t, strstr(out, "KTAP") == NULL);
}

/* `bench nosuch` names the word, lists the benchmarks, and runs nothing. */
static void bench_with_an_unknown_name_lists_the_benchmarks(struct ktest *t)
{
	bool ok;
	const char *out = shell_says("bench nosuch", &ok);

	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "bench: no benchmark named 'nosuch'; nothing ran") != NULL);
	EXPECT_TRUE(t, strstr(out, "page_alloc") != NULL);
	EXPECT_TRUE(t, strstr(out, "registered; running") == NULL);
}

/* `acpi apic` is the APIC table; a table not here gets the list of those that are. */
static void acpi_takes_any_case_and_lists_the_tables(struct ktest *t)
{
	bool ok;
	const char *out;

	if (!acpi_find("APIC", NULL))
		KTEST_SKIP(t, "no MADT on this machine");
	out = shell_says("acpi apic", &ok);
	EXPECT_TRUE(t, ok);
	EXPECT_TRUE(t, strstr(out, "acpi: dump APIC 0000:") != NULL);
	out = shell_says("acpi nOne", &ok);
	EXPECT_TRUE(t, ok);
	EXPECT_TRUE(t, strstr(out, "acpi: no table NONE here; the tables this machine has:") != NULL);
	EXPECT_TRUE(t, strstr(out, "APIC") != NULL);
}

/* A storm whose every CPU is a hog does not run, and says which CPUs would. */
static void storm_on_no_cpu_says_why_and_what_would_run(struct ktest *t)
{
	bool ok;
	const char *out;

	if (nr_cpus_online < 2)
		KTEST_SKIP(t, "one CPU: its only storm has no hog");
	out = shell_says("storm 1000 1 1", &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "storm: nothing ran: every online CPU of CPUS 1 is in HOGS 1, "
			       "and a hog does not storm; CPUS from 0") != NULL);
	EXPECT_TRUE(t, strstr(out, "storm: mode=") == NULL);
	out = shell_says("storm 1000 1 all", &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "storm: nothing ran: HOGS all takes every online CPU") != NULL);
}

/* blk names the argument it cannot use, before it needs a disk. */
static void blk_names_the_bad_argument(struct ktest *t)
{
	bool ok;
	const char *out = shell_says("blk write 1 300", &ok);

	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "blk: BYTE 300 is not a byte: give 0 to 255") != NULL);
	out = shell_says("blk read first", &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "blk: SECTOR first is not a number") != NULL);
	out = shell_says("blk erase 1", &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "blk: no subcommand erase; read or write") != NULL);
}

/* A sector past the disk's end is said so, with the disk's size. */
static void blk_read_past_the_end_gives_the_size(struct ktest *t)
{
	struct virtio_blk *vb = virtio_blk_get();
	char expected[128];
	bool ok;

	if (!vb)
		KTEST_SKIP(t, "no virtio-blk disk");
	u64 capacity = virtio_blk_capacity(vb);
	snprintf(expected, sizeof(expected), "blk: sector %llu is past the disk's end: the disk "
		 "has %llu sectors", capacity, capacity);
	char line[48];
	snprintf(line, sizeof(line), "blk read %llu", capacity);
	const char *out = shell_says(line, &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, expected) != NULL);
	out = shell_says("blk write 99999999999 0", &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "is past the disk's end") != NULL);
}

/* A line past SHELL_LINE_MAX - 1 characters is refused whole, said so; one at it runs. */
static void a_line_too_long_is_not_run(struct ktest *t)
{
	static char line[SHELL_LINE_MAX + 40];
	bool ok;

	memset(line, ' ', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	memcpy(line, "help", 4);
	line[SHELL_LINE_MAX - 1] = 0;                   /* 127 characters: runs */
	shell_says(line, &ok);
	EXPECT_TRUE(t, ok);
	line[SHELL_LINE_MAX - 1] = ' ';
	line[SHELL_LINE_MAX + 10] = 'x';                /* "help ... x": cut, it would run help */
	const char *out = shell_says(line, &ok);
	EXPECT_FALSE(t, ok);
	EXPECT_TRUE(t, strstr(out, "shell: the line is longer than 127 characters; not run") != NULL);
	EXPECT_TRUE(t, strstr(out, "this list") == NULL);
}

static const struct ktest_case shell_cases[] = {
	KTEST(good_commands_run),
	KTEST(bad_input_gets_usage),
	KTEST(storm_and_mode_switch_from_the_shell),
	KTEST(test_with_an_unknown_suite_lists_the_suites),
	KTEST(bench_with_an_unknown_name_lists_the_benchmarks),
	KTEST(acpi_takes_any_case_and_lists_the_tables),
	KTEST(storm_on_no_cpu_says_why_and_what_would_run),
	KTEST(blk_names_the_bad_argument),
	KTEST(blk_read_past_the_end_gives_the_size),
	KTEST(a_line_too_long_is_not_run),
	{},
};
KTEST_SUITE(shell, shell_cases);
