// SPDX-License-Identifier: MIT
/*
 * lab.c - the lab's two entry points (see include/lab.h), in the order a
 * boot runs them: the story, then what the command line asked for, then
 * the shell.
 */
#include "lab.h"
#include "bench.h"
#include "cmdline.h"
#include "kstring.h"
#include "shell.h"
#include "storm.h"
#include "story.h"
#include "torture.h"

/* bench=none|all|name,name,...: run benchmarks, print "bench:" lines. */
static char bench_selection[256] = "none";
PARAM_STR("bench", bench_selection);

int lab_run(void)
{
	story_boot();           /* make run's report, unless story=off */
	storm_boot();
	torture_boot();
	if (strcmp(bench_selection, "none"))
		return bench_run(bench_selection);
	return 0;
}

void lab_shell(void)
{
	if (shell_enabled())
		shell_run();
}
