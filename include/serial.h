/*
 * serial.h - the 16550 UART on COM1 (0x3f8) as a console.
 *
 * serial_init() programs 115200 8N1 and checks, with the UART's loopback
 * mode, that a UART is there at all (many laptops have none). Without one,
 * the console stays unregistered and every write is skipped.
 */
#ifndef SERIAL_H
#define SERIAL_H

#include "types.h"

bool serial_init(void);                 /* true if a UART answered */
void serial_putc(char c);               /* raw byte, no '\n' translation */
int serial_getc(void);                  /* a received byte, or -1 (polled) */

#endif
