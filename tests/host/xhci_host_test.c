// SPDX-License-Identifier: MIT
/*
 * xhci_host_test.c - drivers/xhci.c, the kernel's own source, against an
 * xHCI controller that lies (tests/host/xhci_fake.h): an honest one
 * enumerates its keyboard; an event naming a TRB that is not the one a
 * request waits for (stale, duplicated, nowhere, not yet given, another
 * slot's) completes nothing; a completion that comes after its request
 * timed out completes nothing else; a controller that stops fetching
 * never has its TRBs written over, and works again when it resumes; a
 * failed enumeration gives its slot back, so a later device still gets
 * one. ASan and UBSan watch every access the driver and the fake make.
 */
#include <string.h>

#include "host.h"
#include "ktest.h"
#include "time.h"
#include "virtio_fake.h"
#include "xhci.h"
#include "xhci_fake.h"

static struct xhci *start(u32 nconnected)
{
	xfake_start(nconnected);
	xhci_init();
	return xhci_get(0);
}

static u8 get_device_descriptor(struct usb_device *dev)
{
	return usb_control(dev, 0x80, 6, 1 << 8, 0, 18);
}

static void an_honest_controller_enumerates_its_keyboard(struct ktest *t)
{
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL);
	EXPECT_TRUE(t, host_log_has("device 1234:5678 class 00"));
	struct usb_device *dev = hc->slots[1];
	ASSERT_TRUE(t, dev != NULL);
	EXPECT_EQ(t, dev->config_len, 34);
	EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), CC_SUCCESS);
	EXPECT_EQ(t, get_device_descriptor(dev), CC_SUCCESS);
	EXPECT_EQ(t, xfake_counts.lies, 0);
	xfake_stop();
}

/* Each lie before every honest answer, which comes a few ticks later: the request waits for its own. */
static void an_event_for_another_trb_completes_no_request(struct ktest *t)
{
	for (u32 lie = XLIE_STALE; lie < XLIE_COUNT; lie++) {
		struct xhci *hc = start(1);
		ASSERT_TRUE(t, hc != NULL && hc->slots[1] != NULL);
		struct usb_device *dev = hc->slots[1];
		ktest_log(t, "lie %u", lie);
		xfake_faults.answer_delay = 5;
		xfake_faults.xfer_lie = (u8)lie;
		xfake_faults.cmd_lie = (u8)lie;
		for (u32 i = 0; i < 3; i++) {
			EXPECT_EQ(t, get_device_descriptor(dev), CC_SUCCESS);
			EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), CC_SUCCESS);
		}
		EXPECT_TRUE(t, xfake_counts.lies >= 6);
		EXPECT_TRUE(t, hc->stray_events >= xfake_counts.lies);
		xfake_stop();
	}
}

/* Every answer twice: the copy names a TRB already completed. */
static void a_duplicate_completion_completes_nothing(struct ktest *t)
{
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL && hc->slots[1] != NULL);
	xfake_faults.twice = true;
	for (u32 i = 0; i < 2 * XHCI_XFER_TRBS; i++) {
		xfake_faults.answer_delay = i % 3;
		EXPECT_EQ(t, get_device_descriptor(hc->slots[1]), CC_SUCCESS);
		EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), CC_SUCCESS);
	}
	EXPECT_EQ(t, hc->stray_events, xfake_counts.lies);
	xfake_stop();
}

/* A request times out; its stall comes in while the next request waits: that one waits on. */
static void a_late_completion_completes_nothing_else(struct ktest *t)
{
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL && hc->slots[1] != NULL);
	struct usb_device *dev = hc->slots[1];
	xfake_faults.xfer_code = XCC_STALL;
	xfake_faults.answer_delay = 700;                /* past the 500 ms the driver waits */
	EXPECT_EQ(t, get_device_descriptor(dev), 0);
	xfake_faults.xfer_code = 0;
	xfake_faults.answer_delay = 300;                /* after the late stall, within 500 ms */
	EXPECT_EQ(t, get_device_descriptor(dev), CC_SUCCESS);
	EXPECT_EQ(t, hc->late_events, 1);
	xfake_faults.answer_delay = 0;
	EXPECT_EQ(t, get_device_descriptor(dev), CC_SUCCESS);
	xfake_stop();
}

/*
 * The controller stops fetching commands: each times out, and once the
 * ring holds nothing but TRBs the controller owns, a command fails at
 * once, said, instead of writing over one. Fetching again, it finds
 * every command it was given, and the next one completes.
 */
static void commands_never_lap_a_controller_that_stopped(struct ktest *t)
{
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL);
	xfake_faults.frozen = true;
	for (u32 i = 0; i < XHCI_CMD_TRBS + 4; i++)
		EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), 0);
	EXPECT_TRUE(t, host_log_has("command ring is full"));
	u64 t0 = ktime_ns();
	EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), 0);
	EXPECT_LT(t, ktime_ns() - t0, 10 * FAKE_TICK_NS);        /* at once, no timeout */
	u32 taken = xfake_counts.commands[TRB_NOOP_CMD];
	xfake_faults.frozen = false;
	xfake_kick();
	EXPECT_EQ(t, xfake_counts.commands[TRB_NOOP_CMD] - taken, XHCI_CMD_TRBS - 2);
	EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), CC_SUCCESS);
	u8 slot = 0;
	EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_ENABLE_SLOT), &slot), CC_SUCCESS);
	EXPECT_EQ(t, slot, 2);
	xfake_stop();
}

/* The same for EP0: control requests time out, then fail at once; fetching again, it works. */
static void transfers_never_lap_an_endpoint_that_stopped(struct ktest *t)
{
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL && hc->slots[1] != NULL);
	struct usb_device *dev = hc->slots[1];
	xfake_faults.frozen = true;
	for (u32 i = 0; i < XHCI_XFER_TRBS; i++)
		EXPECT_EQ(t, get_device_descriptor(dev), 0);
	EXPECT_TRUE(t, host_log_has("EP0 ring is full"));
	xfake_faults.frozen = false;
	xfake_kick();
	EXPECT_EQ(t, get_device_descriptor(dev), CC_SUCCESS);
	EXPECT_EQ(t, get_device_descriptor(dev), CC_SUCCESS);
	xfake_stop();
}

/* The next event on the keyboard's interrupt endpoint; false if none comes (the fake's ticks run out). */
static bool next_interrupt_event(struct usb_device *dev, u32 *seen)
{
	for (u32 i = 0; i < 1000; i++) {
		xhci_poll(dev->hc);
		if (dev->ev[dev->ep_in_dci].count != *seen) {
			*seen = dev->ev[dev->ep_in_dci].count;
			return true;
		}
		udelay(1);
	}
	return false;
}

/*
 * The keyboard's loop (usb_kbd_poll()): wait for the read's event, then
 * usb_interrupt_next(). A STALL, then transaction errors, each halt the
 * endpoint; each time it is taken back and the reports go on, round the
 * ring's link TRB more than once (Set TR Dequeue Pointer's cycle bit);
 * the STALL resets the data toggle on both sides, a transaction error on
 * neither (Transfer State Preserve).
 */
static void a_halted_interrupt_endpoint_is_taken_back(struct ktest *t)
{
	static const u8 key_a[8] = { 0, 0, 0x04 };
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL && hc->slots[1] != NULL);
	struct usb_device *dev = hc->slots[1];
	ASSERT_TRUE(t, usb_configure_interrupt_in(dev, 1, 0x81, 8, 10));
	memcpy(xfake_ports[1].report, key_a, sizeof(key_a));
	u32 seen = 0, reports = 0;
	usb_interrupt_queue(dev, 0x100, 8);
	for (u32 i = 0; i < 3 * XHCI_XFER_TRBS; i++) {
		if (i % 5 == 1) {               /* a STALL, then transaction errors */
			xfake_faults.interrupt_fails = 1;
			xfake_faults.interrupt_code = i == 1 ? XCC_STALL : XCC_TRANSACTION_ERROR;
		} else {
			xfake_ports[1].reports_waiting = 1;
		}
		xfake_kick();
		ASSERT_TRUE(t, next_interrupt_event(dev, &seen));
		u8 code = dev->ev[dev->ep_in_dci].code;
		if (code == CC_SUCCESS) {
			reports++;
			EXPECT_EQ(t, dev->buf[0x102], 0x04);
			dev->buf[0x102] = 0;
		} else {
			EXPECT_EQ(t, code, i == 1 ? XCC_STALL : XCC_TRANSACTION_ERROR);
		}
		ASSERT_TRUE(t, usb_interrupt_next(dev, 0x100, 8));
	}
	u32 halts = (3 * XHCI_XFER_TRBS + 3) / 5;
	EXPECT_EQ(t, reports, 3 * XHCI_XFER_TRBS - halts);
	EXPECT_EQ(t, dev->ep_in_recoveries, halts);
	EXPECT_EQ(t, xfake_counts.commands[TRB_RESET_EP], halts);
	EXPECT_EQ(t, xfake_counts.commands[TRB_SET_TR_DEQUEUE], halts);
	EXPECT_EQ(t, xfake_counts.clear_halts, 1);      /* the STALL only: the device's own halt */
	EXPECT_EQ(t, xfake_counts.soft_resets, halts - 1);      /* the transaction errors keep the toggle */
	EXPECT_TRUE(t, host_log_has("the interrupt endpoint halted (code 6): reset, reading again"));
	xfake_stop();
}

/* An endpoint that fails every read is given up after XHCI_EP_FAILURES in a row, and said so. */
static void an_endpoint_that_always_fails_is_given_up(struct ktest *t)
{
	struct xhci *hc = start(1);

	ASSERT_TRUE(t, hc != NULL && hc->slots[1] != NULL);
	struct usb_device *dev = hc->slots[1];
	ASSERT_TRUE(t, usb_configure_interrupt_in(dev, 1, 0x81, 8, 10));
	xfake_faults.interrupt_fails = 1000;
	u32 seen = 0, reads = 1;
	usb_interrupt_queue(dev, 0x100, 8);
	while (reads < 100 && next_interrupt_event(dev, &seen) && usb_interrupt_next(dev, 0x100, 8))
		reads++;
	EXPECT_EQ(t, reads, XHCI_EP_FAILURES);
	EXPECT_TRUE(t, host_log_has("8 reads of the interrupt endpoint failed in a row"));
	EXPECT_FALSE(t, usb_interrupt_next(dev, 0x100, 8));     /* and stays given up */
	xfake_stop();
}

/* Three slots, four devices: three fail to enumerate, and the fourth still gets a slot. */
static void a_failed_enumeration_disables_its_slot(struct ktest *t)
{
	for (int garbage = 0; garbage < 2; garbage++) {
		xfake_start(XFAKE_PORTS);
		if (garbage)
			for (u32 n = 1; n < XFAKE_PORTS; n++)
				xfake_ports[n].device[1] = 0x55;        /* not a device descriptor */
		else
			xfake_faults.address_fail_ports = 0xe;          /* ports 1, 2, 3 */
		xhci_init();
		struct xhci *hc = xhci_get(0);
		ASSERT_TRUE(t, hc != NULL);
		ktest_log(t, garbage ? "garbage device descriptors" : "Address Device fails");
		for (u32 s = 1; s <= XFAKE_SLOTS; s++)
			EXPECT_EQ(t, xfake_counts.disabled[s], s == 1 ? 3 : 0);
		EXPECT_EQ(t, xfake_counts.slots_enabled, 1);
		EXPECT_TRUE(t, host_log_has("usb: 00:05.0 port 4 (usb?, high speed): slot 1"));
		EXPECT_TRUE(t, hc->slots[1] != NULL && hc->slots[1]->port == 4);
		xfake_stop();
	}
}

static const struct ktest_case xhci_host_cases[] = {
	KTEST(a_halted_interrupt_endpoint_is_taken_back),
	KTEST(an_endpoint_that_always_fails_is_given_up),
	KTEST(an_honest_controller_enumerates_its_keyboard),
	KTEST(an_event_for_another_trb_completes_no_request),
	KTEST(a_duplicate_completion_completes_nothing),
	KTEST(a_late_completion_completes_nothing_else),
	KTEST(commands_never_lap_a_controller_that_stopped),
	KTEST(transfers_never_lap_an_endpoint_that_stopped),
	KTEST(a_failed_enumeration_disables_its_slot),
	{}
};
KTEST_SUITE(xhci_host, xhci_host_cases);
