/* SPDX-License-Identifier: MIT */
/*
 * fw_cfg.h - QEMU's firmware configuration device, read through I/O ports.
 *
 * QEMU exposes named files to the guest ("etc/e820", "opt/testbed/cmdline"
 * given with -fw_cfg name=...,string=...). testbed reads one: the extra
 * command line the test runner passes, so one ISO serves every test boot.
 * The in-kernel tests also read a few numbered items (how many CPUs and
 * NUMA nodes QEMU was told of) to check the ACPI tables against them.
 * On a real machine the signature check fails and nothing is read.
 */
#ifndef FW_CFG_H
#define FW_CFG_H

#include "types.h"

/* True if QEMU's fw_cfg answers with its "QEMU" signature. */
bool fw_cfg_present(void);

/*
 * Read the file called name into buf (at most size - 1 bytes, then a NUL).
 * Returns the file's full size, or -1 if there is no such file.
 */
long fw_cfg_read_file(const char *name, char *buf, size_t size);

/*
 * Items with fixed keys, read by tests (the keys are QEMU's FW_CFG_*; the
 * x86 layouts are what QEMU's hw/i386/fw_cfg.c stores, little-endian).
 */
#define FW_CFG_NB_CPUS      0x0005      /* u16: CPUs present at boot */
#define FW_CFG_NUMA         0x000d      /* u64 nodes; u64 node of each APIC id below
					   FW_CFG_MAX_CPUS; u64 memory of each node */
#define FW_CFG_MAX_CPUS     0x000f      /* u16: on x86, one more than the highest APIC id */

/*
 * Read the first len bytes of the item with this key into buf (items are
 * little-endian unless said otherwise). False if there is no fw_cfg.
 */
bool fw_cfg_read_item(u16 key, void *buf, size_t len);

#endif
