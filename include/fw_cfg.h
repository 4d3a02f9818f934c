/*
 * fw_cfg.h - QEMU's firmware configuration device, read through I/O ports.
 *
 * QEMU exposes named files to the guest ("etc/e820", "opt/testbed/cmdline"
 * given with -fw_cfg name=...,string=...). testbed reads one: the extra
 * command line the test runner passes, so one ISO serves every test boot.
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

#endif
