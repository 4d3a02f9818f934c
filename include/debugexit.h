/* SPDX-License-Identifier: MIT */
/*
 * debugexit.h - leave QEMU with a chosen exit status.
 *
 * QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4,
 * iosize=0x04) ends QEMU when the guest writes a value v to its port, with
 * exit status (v << 1) | 1. testbed writes:
 *   0  every test passed   -> QEMU exits 1
 *   1  something failed    -> QEMU exits 3
 *   2  panic               -> QEMU exits 5
 * An exit status of 0 therefore never means success: it is what QEMU
 * gives for a triple fault under -no-reboot.
 */
#ifndef DEBUGEXIT_H
#define DEBUGEXIT_H

enum debugexit_code { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_PANIC = 2 };

/*
 * Write code to the debug-exit port when running under a hypervisor (on
 * bare metal the port may belong to something else). Returns only if QEMU
 * did not exit, i.e. the device is absent: real hardware, or QEMU without
 * -device isa-debug-exit. The caller then has to end the boot itself (a
 * test= boot halts with its summary on screen: kernel/main.c).
 */
void debugexit(enum debugexit_code code);

#endif
