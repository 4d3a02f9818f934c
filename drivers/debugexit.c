/*
 * debugexit.c - QEMU's isa-debug-exit device (see debugexit.h).
 */
#include "debugexit.h"
#include "cpu.h"
#include "x86.h"

#define DEBUGEXIT_PORT 0xf4

void debugexit(enum debugexit_code code)
{
	if (cpu_info.hypervisor)
		outl(DEBUGEXIT_PORT, code);
}
