// SPDX-License-Identifier: MIT
/*
 * usb_kbd.c - a USB HID boot-protocol keyboard (see usb_kbd.h).
 *
 * The first half is pure (built for the host too): the configuration
 * descriptor walk and the report -> bytes translation. The second half sets
 * the keyboard up through xhci.c and polls it.
 *
 * Sources: USB HID 1.11, appendix B.1 (the boot keyboard report) and 7.2
 * (SET_IDLE 0x0a, SET_PROTOCOL 0x0b); HID Usage Tables 1.12, chapter 10
 * (keyboard page: a-z at 0x04-0x1d, 1-0 at 0x1e-0x27, ...).
 */
#include "usb_kbd.h"
#include "kbd.h"
#include "kstring.h"

/* --- pure: configuration descriptor --------------------------------------------- */

bool usb_find_boot_keyboard(const u8 *config, u32 len, struct usb_kbd_iface *out)
{
	bool in_kbd = false;
	u8 config_value = 0, iface = 0;

	for (u32 off = 0; off + 2 <= len;) {
		u8 dlen = config[off], type = config[off + 1];
		if (dlen < 2 || off + dlen > len)
			return false;                   /* a descriptor that does not fit: stop */
		if (type == 2 && dlen >= 9)             /* configuration */
			config_value = config[off + 5];
		else if (type == 4 && dlen >= 9) {      /* interface */
			iface = config[off + 2];
			in_kbd = config[off + 5] == 3 && config[off + 6] == 1 && config[off + 7] == 1;
		} else if (type == 5 && dlen >= 7 && in_kbd &&          /* endpoint */
			   (config[off + 2] & 0x80) && (config[off + 2] & 0x0f) &&
			   (config[off + 3] & 3) == 3 &&
			   (config[off + 4] | config[off + 5] << 8) & 0x7ff) {
			*out = (struct usb_kbd_iface){
				.config_value = config_value, .iface = iface, .ep = config[off + 2],
				.mps = (u16)((config[off + 4] | config[off + 5] << 8) & 0x7ff),
				.interval = config[off + 6],
			};
			return true;
		}
		off += dlen;
	}
	return false;
}

/* --- pure: report translation --------------------------------------------------- */

#define MOD_CTRL  0x11          /* left or right Ctrl */
#define MOD_SHIFT 0x22

/* Usages 0x00..0x38 (0x00-0x03 are no keys), plain and shifted (US layout). */
static const char plain[] = "\0\0\0\0abcdefghijklmnopqrstuvwxyz1234567890\r\033\b\t -=[]\\#;'`,./";
static const char shifted[] = "\0\0\0\0ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()\r\033\b\t _+{}|~:\"~<>?";

/* The escape sequences of the keys that are not characters (kbd.h). */
static const struct { u8 usage; const char *seq; } special[] = {
	{ 0x4a, KBD_SEQ_HOME }, { 0x4b, KBD_SEQ_PGUP }, { 0x4c, KBD_SEQ_DELETE },
	{ 0x4d, KBD_SEQ_END }, { 0x4e, KBD_SEQ_PGDN }, { 0x4f, KBD_SEQ_RIGHT },
	{ 0x50, KBD_SEQ_LEFT }, { 0x51, KBD_SEQ_DOWN }, { 0x52, KBD_SEQ_UP },
};

static bool held(const u8 r[HID_REPORT_LEN], u8 usage)
{
	for (u32 i = 2; i < HID_REPORT_LEN; i++)
		if (r[i] == usage)
			return true;
	return false;
}

/* One key's bytes into buf (at most 4); how many. */
static u32 key_bytes(u8 usage, u8 mods, char *buf)
{
	BUILD_BUG_ON(sizeof(plain) != sizeof(shifted));
	if (usage >= 0x04 && usage < sizeof(plain) - 1) {
		char c = (mods & MOD_SHIFT ? shifted : plain)[usage];
		if ((mods & MOD_CTRL) && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			c = (char)((c | 0x20) - 'a' + 1);
		buf[0] = c;
		return 1;
	}
	for (u32 i = 0; i < ARRAY_SIZE(special); i++) {
		if (special[i].usage == usage) {
			u32 n = (u32)strlen(special[i].seq);
			memcpy(buf, special[i].seq, n);
			return n;
		}
	}
	return 0;
}

u32 hid_boot_translate(const u8 prev[HID_REPORT_LEN], const u8 cur[HID_REPORT_LEN], char *out,
		       u32 max)
{
	u32 n = 0;

	if (cur[2] == 0x01)                     /* ErrorRollOver: too many keys, no news */
		return 0;
	for (u32 i = 2; i < HID_REPORT_LEN; i++) {
		u8 usage = cur[i];
		char buf[4];
		if (usage < 0x04 || held(prev, usage))
			continue;
		u32 k = key_bytes(usage, cur[0], buf);
		if (n + k > max)
			break;
		memcpy(out + n, buf, k);
		n += k;
	}
	return n;
}

#ifndef HOST_TEST
/* --- the keyboard ------------------------------------------------------------- */

#include "pci.h"
#include "printk.h"
#include "xhci.h"

#define REPORT_OFF 2048         /* reports go to the second half of the device's buffer page */
#define REPORT_MAX 64           /* a whole full/high-speed packet: a report longer than 8 bytes
				   (no boot protocol after all, a report ID) ends short, not
				   as babble, which would halt the endpoint */

static struct usb_kbd_state kbd;

/* The length to read: the endpoint's packet size, at least a boot report, at most REPORT_MAX. */
static u32 report_len(void)
{
	return MIN(MAX((u32)kbd.iface.mps, (u32)HID_REPORT_LEN), (u32)REPORT_MAX);
}

static bool setup(struct usb_device *dev, const struct usb_kbd_iface *k)
{
	const char *hc = dev->hc->pci->name;

	if (!usb_configure_interrupt_in(dev, k->config_value, k->ep, k->mps, k->interval))
		return false;
	if (usb_control(dev, 0x21, 0x0b, 0, k->iface, 0) != CC_SUCCESS) {     /* SET_PROTOCOL boot */
		pr_err("usb: %s port %u: the keyboard refused SET_PROTOCOL(boot)\n", hc, dev->port);
		return false;
	}
	/* SET_IDLE(0): report only on change. Optional for keyboards that stall it. */
	u8 code = usb_control(dev, 0x21, 0x0a, 0, k->iface, 0);
	if (code != CC_SUCCESS)
		pr_warn("usb: %s port %u: SET_IDLE answered code %u; going on\n", hc, dev->port, code);
	kbd.dev = dev;
	kbd.iface = *k;
	kbd.seen = dev->ev[dev->ep_in_dci].count;
	usb_interrupt_queue(dev, REPORT_OFF, report_len());
	pr_info("usb: keyboard on %s port %u (%s), boot protocol, endpoint 0x%02x every %u ms\n", hc,
		dev->port, xhci_port_protocol(dev->hc, dev->port), k->ep,
		dev->speed >= 3 ? 1u << (k->interval ? k->interval - 1 : 0) >> 3 : k->interval);
	return true;
}

void usb_kbd_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (u32 i = 0; xhci_get(i); i++) {
		struct xhci *hc = xhci_get(i);
		for (u32 s = 1; s <= XHCI_MAX_SLOTS; s++) {
			struct usb_device *dev = hc->slots[s];
			struct usb_kbd_iface k;
			if (dev && usb_find_boot_keyboard(dev->config, dev->config_len, &k) &&
			    setup(dev, &k))
				return;                 /* one keyboard is enough */
		}
	}
}

static void push(char c)
{
	if (kbd.tail - kbd.head < sizeof(kbd.queue))
		kbd.queue[kbd.tail++ % sizeof(kbd.queue)] = c;
}

void usb_kbd_poll(void)
{
	struct usb_device *dev = kbd.dev;

	if (!dev)
		return;
	xhci_poll(dev->hc);
	struct xhci_ep_event *ev = &dev->ev[dev->ep_in_dci];
	if (ev->count == kbd.seen)
		return;
	kbd.seen = ev->count;
	if (ev->code == CC_SUCCESS || ev->code == CC_SHORT_PACKET) {
		u8 report[HID_REPORT_LEN];
		char out[32];
		memcpy(report, dev->buf + REPORT_OFF, sizeof(report));
		u32 n = hid_boot_translate(kbd.prev, report, out, sizeof(out));
		for (u32 i = 0; i < n; i++)
			push(out[i]);
		if (report[2] != 0x01)
			memcpy(kbd.prev, report, sizeof(report));
		kbd.reports++;
	}
	usb_interrupt_next(dev, REPORT_OFF, report_len());
}

int usb_kbd_getc(void)
{
	if (kbd.head == kbd.tail)
		usb_kbd_poll();
	if (kbd.head == kbd.tail)
		return -1;
	return (u8)kbd.queue[kbd.head++ % sizeof(kbd.queue)];
}

const struct usb_kbd_state *usb_kbd_get(void)
{
	return kbd.dev ? &kbd : NULL;
}
#endif
