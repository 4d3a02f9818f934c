/* SPDX-License-Identifier: MIT */
/*
 * kbd.h - the PS/2 keyboard through the i8042 controller (polled).
 *
 * Firmware emulates an i8042 for USB keyboards on most PCs (legacy USB
 * support), so this also reads the USB keyboard of a machine booted from a
 * stick. Keys arrive as scan code set 1; kbd_getc() turns them into bytes
 * the shell reads like serial input: ASCII, with the arrows as the VT100
 * sequences ESC [ A/B/C/D.
 *
 * Keys that have no byte come as codes above 0xff, the same from every
 * keyboard driver (a USB keyboard's too), for the framebuffer's
 * scroll-back: Page Up / Page Down (PS/2 scan codes E0 49 / E0 51, USB
 * usages 0x4b / 0x4e), with KEY_SHIFT or'ed in while a Shift is held.
 */
#ifndef KBD_H
#define KBD_H

#include "types.h"

/*
 * The keys that are not characters, as the byte sequences every keyboard
 * driver (kbd.c, usb_kbd.c) hands out for them: the VT100/VT220 escape
 * sequences a serial terminal sends for the same keys, so one reader
 * (the shell, a scroll-back) understands all inputs alike.
 */
#define KBD_SEQ_UP     "\033[A"
#define KBD_SEQ_DOWN   "\033[B"
#define KBD_SEQ_RIGHT  "\033[C"
#define KBD_SEQ_LEFT   "\033[D"
#define KBD_SEQ_HOME   "\033[H"
#define KBD_SEQ_END    "\033[F"
#define KBD_SEQ_PGUP   "\033[5~"
#define KBD_SEQ_PGDN   "\033[6~"
#define KBD_SEQ_DELETE "\033[3~"

/* Keys kbd_getc() hands out as codes above 0xff (the i8042's Page Up/Down). */
#define KEY_PGUP  0x100         /* Page Up */
#define KEY_PGDN  0x101         /* Page Down */
#define KEY_SHIFT 0x200         /* or'ed in: with Shift held */

void kbd_init(void);            /* drain the controller; quiet if there is none */
int kbd_getc(void);             /* the next byte or KEY_ code, or -1 */

#endif
