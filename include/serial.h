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

#endif
