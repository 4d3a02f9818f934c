/* SPDX-License-Identifier: MIT */
/*
 * serial.h - a 16550 UART as a console: COM1 (0x3f8) first, then the one
 * the firmware's SPCR names (COM2, or a 16550 in memory space).
 *
 * serial_init() programs 115200 8N1 and checks, with the UART's loopback
 * mode, that a UART is there at all (many laptops have none). Without one,
 * the console stays unregistered and every write is skipped.
 * serial_use_spcr(), after acpi_init(), moves the console to the SPCR's
 * UART if it answers (serial.port=com1 keeps COM1).
 */
#ifndef SERIAL_H
#define SERIAL_H

#include "types.h"

bool serial_init(void);                 /* true if a UART answered */
void serial_putc(char c);               /* raw byte, no '\n' translation */
int serial_getc(void);                  /* a received byte, or -1 (polled) */
void serial_use_spcr(void);             /* after acpi_init() and vm_init() */

/* What the console's UART has done since boot (for tests and the boot's numbers). */
struct serial_stats {
	u64 bytes;              /* bytes written to the data register, '\r's included */
	u64 lsr_reads;          /* LSR reads waiting for THRE */
	u32 tx_burst;           /* bytes per THRE: 16 (a 16550A's FIFO), 1, 0 (no UART) */
	u64 stalls;             /* waits for THRE that ran out: the UART marked stalled */
	u64 recoveries;         /* THRE seen again after a stall */
};
void serial_get_stats(struct serial_stats *out);
/* Tests: make the UART look stalled (THRE never set) or not. */
void serial_fake_stall(bool on);

#endif
