// SPDX-License-Identifier: MIT
/*
 * fw_cfg.c - find and read a file from QEMU's fw_cfg device.
 *
 * The protocol (QEMU docs/specs/fw_cfg.txt): write a 16-bit key to the
 * selector port, then read the item's bytes one at a time from the data
 * port. Key 0x0000 is the signature "QEMU"; key 0x0019 the file
 * directory: a big-endian u32 count, then per file a big-endian u32 size,
 * u16 key, u16 reserved and a 56-byte NUL-padded name. Items with fixed
 * keys (FW_CFG_NB_CPUS, ...) are read the same way, without the directory.
 */
#include "fw_cfg.h"
#include "kstring.h"
#include "x86.h"

#define FW_CFG_PORT_SEL     0x510
#define FW_CFG_PORT_DATA    0x511
#define FW_CFG_SIGNATURE    0x0000
#define FW_CFG_FILE_DIR     0x0019
#define FW_CFG_NAME_LEN     56
#define FW_CFG_MAX_FILES    4096        /* a sanity bound on the directory */

static void select_key(u16 key)
{
	outw(FW_CFG_PORT_SEL, key);
}

static void read_bytes(void *buf, size_t n)
{
	u8 *p = buf;

	while (n--)
		*p++ = inb(FW_CFG_PORT_DATA);
}

static u32 be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

bool fw_cfg_present(void)
{
	char sig[4];

	select_key(FW_CFG_SIGNATURE);
	read_bytes(sig, sizeof(sig));
	return !memcmp(sig, "QEMU", 4);
}

long fw_cfg_read_file(const char *name, char *buf, size_t size)
{
	u8 raw[4];
	u32 count;

	if (size == 0 || !fw_cfg_present())
		return -1;
	select_key(FW_CFG_FILE_DIR);
	read_bytes(raw, 4);
	count = be32(raw);
	if (count > FW_CFG_MAX_FILES)
		return -1;
	for (u32 i = 0; i < count; i++) {
		u8 entry[8];
		char fname[FW_CFG_NAME_LEN + 1];

		read_bytes(entry, sizeof(entry));
		read_bytes(fname, FW_CFG_NAME_LEN);
		fname[FW_CFG_NAME_LEN] = '\0';
		if (strcmp(fname, name))
			continue;

		u32 fsize = be32(entry);
		u16 key = (u16)(entry[4] << 8 | entry[5]);
		size_t n = MIN((size_t)fsize, size - 1);
		select_key(key);
		read_bytes(buf, n);
		buf[n] = '\0';
		return fsize;
	}
	return -1;
}

bool fw_cfg_read_item(u16 key, void *buf, size_t len)
{
	if (!fw_cfg_present())
		return false;
	select_key(key);
	read_bytes(buf, len);
	return true;
}
