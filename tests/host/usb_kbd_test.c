// SPDX-License-Identifier: MIT
/*
 * usb_kbd_test.c - the boot keyboard's pure half: 8-byte reports into
 * bytes (HID 1.11 appendix B), and finding the keyboard interface in a
 * configuration descriptor.
 */
#include <string.h>

#include "kbd.h"
#include "ktest.h"
#include "usb_kbd.h"

/* The bytes typed going from report a to report b. */
static u32 typed(const u8 *a, const u8 *b, char *out)
{
	u32 n = hid_boot_translate(a, b, out, 31);
	out[n] = 0;
	return n;
}

static const u8 none[8];

static void a_key_down_types_it_once(struct ktest *t)
{
	u8 a[8] = { 0, 0, 0x04 };       /* 'a' */
	char out[32];

	EXPECT_EQ(t, typed(none, a, out), 1);
	EXPECT_STREQ(t, out, "a");
	EXPECT_EQ(t, typed(a, a, out), 0);              /* held: nothing more */
	EXPECT_EQ(t, typed(a, none, out), 0);           /* released: nothing */
	EXPECT_EQ(t, typed(none, a, out), 1);           /* pressed again */
}

static void shift_and_ctrl_apply(struct ktest *t)
{
	u8 shift_a[8] = { 0x02, 0, 0x04 }, rshift_1[8] = { 0x20, 0, 0x1e };
	u8 ctrl_c[8] = { 0x01, 0, 0x06 }, rctrl_u[8] = { 0x10, 0, 0x18 };
	u8 shift_slash[8] = { 0x02, 0, 0x38 }, enter[8] = { 0, 0, 0x28 }, bs[8] = { 0, 0, 0x2a };
	char out[32];

	typed(none, shift_a, out);
	EXPECT_STREQ(t, out, "A");
	typed(none, rshift_1, out);
	EXPECT_STREQ(t, out, "!");
	typed(none, ctrl_c, out);
	EXPECT_STREQ(t, out, "\003");
	typed(none, rctrl_u, out);
	EXPECT_STREQ(t, out, "\025");
	typed(none, shift_slash, out);
	EXPECT_STREQ(t, out, "?");
	typed(none, enter, out);
	EXPECT_STREQ(t, out, "\r");
	typed(none, bs, out);
	EXPECT_STREQ(t, out, "\b");
}

static void every_printable_key_of_the_us_layout(struct ktest *t)
{
	static const char want[] = "abcdefghijklmnopqrstuvwxyz1234567890";
	static const char want_shift[] = "!@#$%^&*()";
	char out[32];

	for (u32 i = 0; i < 36; i++) {
		u8 r[8] = { 0, 0, (u8)(0x04 + i) };
		EXPECT_EQ(t, typed(none, r, out), 1);
		EXPECT_EQ(t, out[0], want[i]);
	}
	for (u32 i = 0; i < 10; i++) {
		u8 r[8] = { 0x02, 0, (u8)(0x1e + i) };
		typed(none, r, out);
		EXPECT_EQ(t, out[0], want_shift[i]);
	}
	u8 line[8] = { 0, 0, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x33 };
	typed(none, line, out);
	EXPECT_STREQ(t, out, "-=[]\\;");
	u8 more[8] = { 0, 0, 0x34, 0x35, 0x36, 0x37, 0x38, 0x2c };
	typed(none, more, out);
	EXPECT_STREQ(t, out, "'`,./ ");
}

static void navigation_keys_are_their_escape_sequences(struct ktest *t)
{
	u8 pgup[8] = { 0, 0, 0x4b }, pgdn[8] = { 0, 0, 0x4e }, up[8] = { 0, 0, 0x52 };
	u8 left[8] = { 0, 0, 0x50 };
	char out[32];

	typed(none, pgup, out);
	EXPECT_STREQ(t, out, KBD_SEQ_PGUP);
	typed(none, pgdn, out);
	EXPECT_STREQ(t, out, KBD_SEQ_PGDN);
	typed(none, up, out);
	EXPECT_STREQ(t, out, "\033[A");
	typed(none, left, out);
	EXPECT_STREQ(t, out, "\033[D");
}

static void only_new_keys_of_a_rollover_count(struct ktest *t)
{
	u8 a[8] = { 0, 0, 0x04 }, ab[8] = { 0, 0, 0x04, 0x05 }, ba[8] = { 0, 0, 0x05, 0x04 };
	u8 b[8] = { 0, 0, 0x05 }, overflow[8] = { 0, 0, 1, 1, 1, 1, 1, 1 };
	char out[32];

	typed(a, ab, out);
	EXPECT_STREQ(t, out, "b");
	EXPECT_EQ(t, typed(ab, ba, out), 0);            /* the same keys in another order */
	EXPECT_EQ(t, typed(ab, b, out), 0);             /* a released */
	EXPECT_EQ(t, typed(a, overflow, out), 0);       /* ErrorRollOver: no news */
	EXPECT_EQ(t, typed(none, (u8[8]){ 0, 0, 0x39 }, out), 0);      /* Caps Lock: nothing */
}

static void a_sequence_is_never_cut(struct ktest *t)
{
	u8 r[8] = { 0, 0, 0x04, 0x4b };
	char out[8];

	EXPECT_EQ(t, hid_boot_translate(none, r, out, 4), 1);   /* 'a' fits, ESC [ 5 ~ does not */
	EXPECT_EQ(t, hid_boot_translate(none, r, out, 5), 5);
}

/* QEMU's usb-kbd configuration: config, interface 3/1/1, HID, endpoint 0x81. */
static const u8 qemu_kbd[] = {
	9, 2, 34, 0, 1, 1, 4, 0xa0, 50,
	9, 4, 0, 0, 1, 3, 1, 1, 0,
	9, 0x21, 0x11, 1, 0, 1, 0x22, 63, 0,
	7, 5, 0x81, 3, 8, 0, 7,
};

static void the_keyboard_interface_is_found(struct ktest *t)
{
	struct usb_kbd_iface k;

	ASSERT_TRUE(t, usb_find_boot_keyboard(qemu_kbd, sizeof(qemu_kbd), &k));
	EXPECT_EQ(t, k.config_value, 1);
	EXPECT_EQ(t, k.iface, 0);
	EXPECT_EQ(t, k.ep, 0x81);
	EXPECT_EQ(t, k.mps, 8);
	EXPECT_EQ(t, k.interval, 7);
}

static void a_mouse_or_a_storage_stick_is_not_a_keyboard(struct ktest *t)
{
	u8 mouse[sizeof(qemu_kbd)], stick[] = {
		9, 2, 32, 0, 1, 1, 0, 0xc0, 50,
		9, 4, 0, 0, 2, 8, 6, 0x50, 0,
		7, 5, 0x81, 2, 0, 2, 0,
		7, 5, 0x02, 2, 0, 2, 0,
	};
	struct usb_kbd_iface k;

	memcpy(mouse, qemu_kbd, sizeof(mouse));
	mouse[9 + 7] = 2;                               /* protocol 2: a mouse */
	EXPECT_FALSE(t, usb_find_boot_keyboard(mouse, sizeof(mouse), &k));
	EXPECT_FALSE(t, usb_find_boot_keyboard(stick, sizeof(stick), &k));
}

static void a_truncated_or_broken_descriptor_is_refused(struct ktest *t)
{
	u8 broken[sizeof(qemu_kbd)];
	struct usb_kbd_iface k;

	EXPECT_FALSE(t, usb_find_boot_keyboard(qemu_kbd, sizeof(qemu_kbd) - 1, &k));
	memcpy(broken, qemu_kbd, sizeof(broken));
	broken[9] = 0;                                  /* a zero-length descriptor */
	EXPECT_FALSE(t, usb_find_boot_keyboard(broken, sizeof(broken), &k));
	memcpy(broken, qemu_kbd, sizeof(broken));
	broken[27 + 3] = 2;                             /* the endpoint is bulk, not interrupt */
	EXPECT_FALSE(t, usb_find_boot_keyboard(broken, sizeof(broken), &k));
}

/*
 * Endpoint number 0 is the control endpoint of every device: an interrupt
 * IN endpoint 0x80 would be configured at DCI 1, over EP0's own context.
 */
static void an_interrupt_endpoint_numbered_0_is_refused(struct ktest *t)
{
	u8 bad[sizeof(qemu_kbd)];
	struct usb_kbd_iface k;

	memcpy(bad, qemu_kbd, sizeof(bad));
	bad[27 + 2] = 0x80;                             /* IN, number 0 */
	EXPECT_FALSE(t, usb_find_boot_keyboard(bad, sizeof(bad), &k));
}

static const struct ktest_case usb_kbd_cases[] = {
	KTEST(a_key_down_types_it_once),
	KTEST(shift_and_ctrl_apply),
	KTEST(every_printable_key_of_the_us_layout),
	KTEST(navigation_keys_are_their_escape_sequences),
	KTEST(only_new_keys_of_a_rollover_count),
	KTEST(a_sequence_is_never_cut),
	KTEST(the_keyboard_interface_is_found),
	KTEST(a_mouse_or_a_storage_stick_is_not_a_keyboard),
	KTEST(a_truncated_or_broken_descriptor_is_refused),
	KTEST(an_interrupt_endpoint_numbered_0_is_refused),
	{},
};
KTEST_SUITE(usb_kbd, usb_kbd_cases);
