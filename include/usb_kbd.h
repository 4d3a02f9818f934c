/* SPDX-License-Identifier: MIT */
/*
 * usb_kbd.h - a USB keyboard in the HID boot protocol (USB HID 1.11,
 * appendix B), on an xHCI (xhci.h).
 *
 * usb_kbd_init() looks at every device the xHCI driver enumerated for an
 * interface of class 3 (HID), subclass 1 (boot), protocol 1 (keyboard),
 * configures its interrupt IN endpoint, asks for the boot protocol
 * (SET_PROTOCOL 0) and for reports only on change (SET_IDLE 0), and keeps
 * one 8-byte read queued on the endpoint. A boot report is
 *
 *   byte 0: modifiers (bit 0 left Ctrl, 1 left Shift, 2 left Alt, 3 left GUI,
 *           4..7 the same on the right)
 *   byte 1: reserved
 *   bytes 2..7: the usage IDs (HID Usage Tables, page 7) of up to six keys
 *           held down, 0x01 in all six when too many are
 *
 * and a key went down when its usage is in a report and was not in the
 * one before. usb_kbd_getc() polls (from the shell's input loop) and hands
 * out bytes like kbd_getc(): ASCII, and the keys of kbd.h's KBD_SEQ_* as
 * their escape sequences. No key repeat, no LEDs, US layout.
 *
 * The translation and the configuration parser are pure (host-tested).
 */
#ifndef USB_KBD_H
#define USB_KBD_H

#include "types.h"

#define HID_REPORT_LEN 8

/* What the configuration descriptor says about a boot keyboard interface. */
struct usb_kbd_iface {
	u8 config_value;        /* bConfigurationValue */
	u8 iface;               /* bInterfaceNumber */
	u8 ep;                  /* interrupt IN endpoint address (0x8n) */
	u16 mps;                /* its wMaxPacketSize */
	u8 interval;            /* its bInterval */
};

/* Find a class 3/1/1 interface and its interrupt IN endpoint in a configuration descriptor. */
bool usb_find_boot_keyboard(const u8 *config, u32 len, struct usb_kbd_iface *out);

/*
 * The bytes typed between two boot reports: each key in cur that is not in
 * prev, translated with cur's modifiers. Writes at most max bytes to out
 * (a key's whole sequence or none of it); returns how many.
 */
u32 hid_boot_translate(const u8 prev[HID_REPORT_LEN], const u8 cur[HID_REPORT_LEN], char *out,
		       u32 max);

#ifndef HOST_TEST
struct usb_device;

struct usb_kbd_state {
	struct usb_device *dev;         /* NULL: no keyboard */
	struct usb_kbd_iface iface;
	u8 prev[HID_REPORT_LEN];
	u64 reports;                    /* reports received */
	u32 seen;                       /* interrupt events consumed */
	char queue[64];                 /* typed bytes not yet read */
	u32 head, tail;
};

void usb_kbd_init(void);                /* after xhci_init(); once */
int usb_kbd_getc(void);                 /* the next byte, or -1 */
void usb_kbd_poll(void);                /* take any reports waiting on the endpoint */
const struct usb_kbd_state *usb_kbd_get(void);  /* NULL if there is no keyboard */
#endif

#endif
