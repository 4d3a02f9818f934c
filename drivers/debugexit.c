// SPDX-License-Identifier: MIT
/*
 * debugexit.c - QEMU's isa-debug-exit device (see debugexit.h).
 */
#include "debugexit.h"
#include "cpu.h"
#include "printk.h"
#include "x86.h"

#define DEBUGEXIT_PORT 0xf4

void debugexit(enum debugexit_code code)
{
	if (cpu_info.hypervisor) {
		printk_flush();         /* text another CPU still writes out goes first */
		outl(DEBUGEXIT_PORT, code);
	}
}
