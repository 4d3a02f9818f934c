// SPDX-License-Identifier: MIT
/*
 * main.c - build/host/unit: run the host unit tests and print KTAP.
 *
 *   build/host/unit [SELECTION]          run what SELECTION picks, as the
 *                                        kernel's test= (default all)
 *   build/host/unit --list [SELECTION]   print it as suite.case lines
 */
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "ktest.h"

int main(int argc, char **argv)
{
	bool list = argc > 1 && !strcmp(argv[1], "--list");
	const char *selection = argc > 1 + list ? argv[1 + list] : "all";

	/* Line by line, so a crash loses nothing of the report before it. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	host_map_phys();
	host_log_clear();
	if (list)
		return ktest_list(selection) ? 0 : 1;
	return ktest_run(selection) == 0 ? 0 : 1;
}
