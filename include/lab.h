/* SPDX-License-Identifier: MIT */
/*
 * lab.h - where the kernel hands over to the lab.
 *
 * kernel/ and drivers/ are the kernel: they boot the machine and provide
 * its services. lab/ holds what runs on it to tell the 2005 story: the
 * open/close storm and the hog, the rcutorture-style check, the story
 * report, the benchmarks and the shell. The kernel calls the lab at these
 * two points only, and knows nothing else of it; kernel_main() has weak
 * stand-ins, so the kernel links without lab/ (make kernel-alone).
 */
#ifndef LAB_H
#define LAB_H

/*
 * After the facts (and tests, if test= asked for them): the story
 * (story=), the storm (storm=), torture (torture=) and the benchmarks
 * (bench=). Returns the number of failures (benchmarks asked for by a
 * name that does not exist).
 */
int lab_run(void);

/* The shell, unless shell=off: does not return when it runs. */
void lab_shell(void);

#endif
