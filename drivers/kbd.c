// SPDX-License-Identifier: MIT
/*
 * kbd.c - polled PS/2 keyboard (see kbd.h).
 *
 * The i8042's status port (0x64) says whether a byte waits in its output
 * buffer (bit 0) and whether it came from the mouse (bit 5); the data port
 * (0x60) gives it. Scan code set 1: a key's make code, or with bit 7 set
 * its break code; 0xe0 prefixes the extended keys (arrows). A pending
 * escape sequence is handed out one byte per call.
 */
#include "kbd.h"
#include "x86.h"

#define I8042_DATA    0x60
#define I8042_STATUS  0x64
#define STATUS_OUTPUT 0x01
#define STATUS_AUX    0x20

static const char plain[0x3a] = {
	0, 27, '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', '\b', '\t',
	'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\r', 0, 'a', 's',
	'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`', 0, '\\', 'z', 'x', 'c', 'v',
	'b', 'n', 'm', ',', '.', '/', 0, '*', 0, ' ',
};
static const char shifted[0x3a] = {
	0, 27, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', '\b', '\t',
	'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\r', 0, 'A', 'S',
	'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~', 0, '|', 'Z', 'X', 'C', 'V',
	'B', 'N', 'M', '<', '>', '?', 0, '*', 0, ' ',
};

static bool shift, ctrl, extended, present;
static char pending[4];
static u32 npending, next_pending;

void kbd_init(void)
{
	/* Drain what the firmware left; a missing controller reads 0xff. */
	for (int i = 0; i < 16 && (inb(I8042_STATUS) & STATUS_OUTPUT); i++)
		inb(I8042_DATA);
	present = inb(I8042_STATUS) != 0xff;
}

static int translate(u8 sc)
{
	bool release = sc & 0x80;
	u8 key = sc & 0x7f;

	if (sc == 0xe0) {
		extended = true;
		return -1;
	}
	if (extended) {
		extended = false;
		if (key == 0x1d)
			ctrl = !release;
		if (release)
			return -1;
		if (key == 0x49 || key == 0x51)         /* Page Up, Page Down */
			return (key == 0x49 ? KEY_PGUP : KEY_PGDN) | (shift ? KEY_SHIFT : 0);
		char arrow = key == 0x48 ? 'A' : key == 0x50 ? 'B' : key == 0x4d ? 'C' : key == 0x4b ? 'D' : 0;
		if (!arrow)
			return -1;
		pending[0] = '[';
		pending[1] = arrow;
		npending = 2;
		next_pending = 0;
		return 27;
	}
	if (key == 0x2a || key == 0x36) {       /* shifts */
		shift = !release;
		return -1;
	}
	if (key == 0x1d) {                      /* left ctrl */
		ctrl = !release;
		return -1;
	}
	if (release || key >= sizeof(plain))
		return -1;
	char c = shift ? shifted[key] : plain[key];
	if (ctrl && c >= 'a' && c <= 'z')
		return c - 'a' + 1;
	if (ctrl && c >= 'A' && c <= 'Z')
		return c - 'A' + 1;
	return c ? c : -1;
}

int kbd_getc(void)
{
	if (next_pending < npending)
		return pending[next_pending++];
	if (!present)
		return -1;
	for (int i = 0; i < 8; i++) {
		u8 status = inb(I8042_STATUS);
		if (!(status & STATUS_OUTPUT))
			return -1;
		u8 sc = inb(I8042_DATA);
		if (status & STATUS_AUX)
			continue;                       /* the mouse */
		int c = translate(sc);
		if (c >= 0)
			return c;
	}
	return -1;
}
