/*
 * kbd.h - the PS/2 keyboard through the i8042 controller (polled).
 *
 * Firmware emulates an i8042 for USB keyboards on most PCs (legacy USB
 * support), so this also reads the USB keyboard of a machine booted from a
 * stick. Keys arrive as scan code set 1; kbd_getc() turns them into bytes
 * the shell reads like serial input: ASCII, with the arrows as the VT100
 * sequences ESC [ A/B/C/D.
 */
#ifndef KBD_H
#define KBD_H

#include "types.h"

void kbd_init(void);            /* drain the controller; quiet if there is none */
int kbd_getc(void);             /* the next byte, or -1 */

#endif
