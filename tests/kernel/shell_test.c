// SPDX-License-Identifier: MIT
/*
 * shell_test.c - the shell's command table: good lines run, bad ones get
 * their usage line and false, never a fault.
 */
#include "ktest.h"
#include "shell.h"

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

static const struct ktest_case shell_cases[] = {
	KTEST(good_commands_run),
	KTEST(bad_input_gets_usage),
	KTEST(storm_and_mode_switch_from_the_shell),
	{},
};
KTEST_SUITE(shell, shell_cases);
