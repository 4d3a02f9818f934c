// SPDX-License-Identifier: MIT
/*
 * usb_kbd.c - fuzz target: the USB boot keyboard's pure half
 * (drivers/usb_kbd.c): the configuration descriptor walk and the boot
 * report translation. The input is two 8-byte boot reports (previous,
 * current), one byte of room for the output (0-31), then a configuration
 * descriptor set of any bytes.
 *
 * The oracle, from the bytes alone (USB 2.0 9.6; HID 1.11 appendix B;
 * HID Usage Tables, keyboard page):
 *   - usb_find_boot_keyboard() finds a keyboard exactly when, walking the
 *     descriptors (bLength, bDescriptorType) from byte 0 while each lies
 *     whole inside the buffer with bLength >= 2, an endpoint descriptor
 *     (type 5, 7 bytes or more) comes after an interface descriptor (type
 *     4, 9 bytes or more) of class 3, subclass 1, protocol 1, with no
 *     other interface between them, and is an interrupt (attributes & 3
 *     = 3) IN (address bit 7) endpoint numbered 1-15 with a packet size
 *     (wMaxPacketSize & 0x7ff) above 0; the first such one counts. Then
 *     ep, mps and interval are that endpoint's bytes, iface that
 *     interface's number, config_value the last configuration
 *     descriptor's (9 bytes or more) before it, or 0.
 *   - hid_boot_translate() writes nothing when the current report says
 *     ErrorRollOver (0x01 in its first key slot); else, for each key slot
 *     of the current report in order holding a usage >= 4 that no key slot
 *     of the previous report holds (a key newly down), that key's bytes
 *     in the US layout with Shift (either side) and Ctrl (either side:
 *     letters become 1-26), until one does not fit in the room; keys with
 *     no bytes give none. Exactly those bytes, and the count of them.
 */
#include "fuzz.h"
#include "usb_kbd.h"

/* The keyboard page's usages 0x1e-0x38 in the US layout: unshifted, shifted. */
static const char digits_and_marks[][2] = {
	{ '1', '!' }, { '2', '@' }, { '3', '#' }, { '4', '$' }, { '5', '%' }, { '6', '^' },
	{ '7', '&' }, { '8', '*' }, { '9', '(' }, { '0', ')' }, { '\r', '\r' },
	{ 27, 27 }, { '\b', '\b' }, { '\t', '\t' }, { ' ', ' ' }, { '-', '_' }, { '=', '+' },
	{ '[', '{' }, { ']', '}' }, { '\\', '|' }, { '#', '~' }, { ';', ':' }, { '\'', '"' },
	{ '`', '~' }, { ',', '<' }, { '.', '>' }, { '/', '?' },
};

/* Usage 0x4a-0x52: Home, Page Up, Delete, End, Page Down, Right, Left, Down, Up. */
static const char *const moves[] = {
	"\033[H", "\033[5~", "\033[3~", "\033[F", "\033[6~", "\033[C", "\033[D", "\033[B", "\033[A",
};

/* The bytes of one key (at most 4) with modifiers mods; how many. */
static u32 key(u8 usage, u8 mods, char *buf)
{
	bool shift = mods & 0x22, ctrl = mods & 0x11;

	if (usage >= 0x04 && usage <= 0x1d) {
		char c = (char)((shift ? 'A' : 'a') + usage - 0x04);
		buf[0] = ctrl ? (char)(usage - 0x04 + 1) : c;
		return 1;
	}
	if (usage >= 0x1e && usage <= 0x38) {
		buf[0] = digits_and_marks[usage - 0x1e][shift];
		return 1;
	}
	if (usage >= 0x4a && usage <= 0x52) {
		strcpy(buf, moves[usage - 0x4a]);
		return (u32)strlen(buf);
	}
	return 0;
}

static void check_translate(const u8 *prev, const u8 *cur, u32 max)
{
	char out[32], want[32 + 8];
	u32 n = 0;

	memset(out, 0x5a, sizeof(out));
	u32 got = hid_boot_translate(prev, cur, out, max);
	if (cur[2] != 0x01) {
		for (u32 i = 2; i < 8; i++) {
			bool was_down = false;
			char buf[8];
			for (u32 j = 2; j < 8; j++)
				was_down |= prev[j] == cur[i];
			if (cur[i] < 0x04 || was_down)
				continue;
			u32 k = key(cur[i], cur[0], buf);
			if (n + k > max)
				break;
			memcpy(want + n, buf, k);
			n += k;
		}
	}
	FUZZ_CHECK(got == n);
	FUZZ_CHECK(!memcmp(out, want, n));
	for (u32 i = n; i < sizeof(out); i++)
		FUZZ_CHECK(out[i] == 0x5a);     /* nothing written past what it says */
}

static void check_config(const u8 *c, u32 len)
{
	struct usb_kbd_iface got;
	u32 off = 0, config = 0, iface = ~0u;   /* offsets of the last config and interface */
	bool found = usb_find_boot_keyboard(c, len, &got);

	for (; off + 2 <= len && c[off] >= 2 && c[off] <= len - off; off += c[off]) {
		const u8 *d = c + off;
		if (d[1] == 2 && d[0] >= 9)
			config = off + 1;
		if (d[1] == 4 && d[0] >= 9)
			iface = off;
		if (d[1] != 5 || d[0] < 7 || iface == ~0u)
			continue;
		const u8 *i = c + iface;
		u16 mps = (u16)((d[4] | d[5] << 8) & 0x7ff);
		if (i[5] != 3 || i[6] != 1 || i[7] != 1 || !(d[2] & 0x80) || !(d[2] & 0x0f) ||
		    (d[3] & 3) != 3 || !mps)
			continue;
		FUZZ_CHECK(found);
		FUZZ_CHECK(got.ep == d[2] && got.mps == mps && got.interval == d[6]);
		FUZZ_CHECK(got.iface == i[2] && got.config_value == (config ? c[config - 1 + 5] : 0));
		return;
	}
	FUZZ_CHECK(!found);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u8 reports[17] = { 0 };

	fuzz_quiet();
	memcpy(reports, data, size < sizeof(reports) ? size : sizeof(reports));
	check_translate(reports, reports + 8, reports[16] % 32);
	if (size > sizeof(reports))
		check_config(data + sizeof(reports), (u32)(size - sizeof(reports)));
	return 0;
}
