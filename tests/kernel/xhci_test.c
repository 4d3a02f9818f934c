// SPDX-License-Identifier: MIT
/*
 * xhci_test.c - the xHCI driver and the USB keyboard on the machine at hand.
 *
 * What is checked comes from the machine, not from assumptions: a case
 * skips when the PCI bus has no xHCI, or when no enumerated device offers a
 * boot keyboard interface; a controller that is there but was given up on
 * fails. The DMA checks walk every allocation the driver gave the
 * controller (struct xhci's dma[]) and the pointers inside the contexts.
 */
#include "io.h"
#include "kstring.h"
#include "ktest.h"
#include "pci.h"
#include "time.h"
#include "usb_kbd.h"
#include "x86.h"
#include "xhci.h"

#define NEED_XHCI(t, hc)                                                                \
	if (!xhci_found())                                                              \
		KTEST_SKIP(t, "no xHCI on the PCI bus");                                \
	if (xhci_disabled())                                                            \
		KTEST_SKIP(t, "xhci=off: the controllers are left alone");              \
	struct xhci *hc = xhci_get(0);                                                  \
	if (!hc)                                                                        \
		KTEST_FAIL(t, "an xHCI is there but unusable: %s",                     \
			   xhci_probe_failure() ? xhci_probe_failure() : "?")

static u32 reg(struct xhci *hc, u8 __iomem *base, u32 off)
{
	(void)hc;
	return readl(base + off);
}

static void controller_found_and_running(struct ktest *t)
{
	NEED_XHCI(t, hc);
	EXPECT_EQ(t, xhci_count(), MIN(xhci_found(), (u32)XHCI_MAX_CONTROLLERS));
	for (u32 i = 0; (hc = xhci_get(i)); i++) {
		EXPECT_EQ(t, reg(hc, hc->op, 0x00) & 1, 1);             /* USBCMD.R/S */
		EXPECT_EQ(t, reg(hc, hc->op, 0x04) & 1, 0);             /* USBSTS.HCHalted */
		EXPECT_EQ(t, reg(hc, hc->op, 0x04) & (1u << 2), 0);     /* no Host System Error */
		EXPECT_TRUE(t, hc->nports > 0);
		EXPECT_TRUE(t, hc->version >= 0x0090);
	}
}

static void dma_mask_follows_ac64(struct ktest *t)
{
	NEED_XHCI(t, hc);
	for (u32 i = 0; (hc = xhci_get(i)); i++) {
		bool ac64 = reg(hc, hc->cap, 0x10) & 1;                 /* HCCPARAMS1.AC64 */
		u64 want = ac64 && !xhci_ac64_forced_off() ? DMA_BIT_MASK(64) : DMA_BIT_MASK(32);
		ktest_log(t, "%s: AC64 %u, xhci.ac64=%s: mask 0x%llx", hc->pci->name, ac64,
			  xhci_ac64_forced_off() ? "off" : "auto", hc->pci->dma.coherent_dma_mask);
		EXPECT_EQ(t, hc->pci->dma.coherent_dma_mask, want);
		EXPECT_EQ(t, hc->pci->dma.dma_mask, want);
	}
}

/* Is [addr, addr + size) inside one of the driver's recorded allocations? */
static bool recorded(struct xhci *hc, u64 addr, u64 size)
{
	for (u32 i = 0; i < hc->ndma; i++)
		if (addr >= hc->dma[i].dma && addr + size <= hc->dma[i].dma + hc->dma[i].size)
			return true;
	return false;
}

static void every_dma_address_within_the_mask(struct ktest *t)
{
	NEED_XHCI(t, hc);
	for (u32 i = 0; (hc = xhci_get(i)); i++) {
		u64 mask = hc->pci->dma.coherent_dma_mask;
		u32 high = 0;
		EXPECT_TRUE(t, hc->ndma >= 4);       /* DCBAA, command ring, ERST, event ring at least */
		for (u32 k = 0; k < hc->ndma; k++) {
			const struct xhci_dma *a = &hc->dma[k];
			bool ok = dma_reachable(mask, a->dma, a->size);
			EXPECT_TRUE(t, ok);
			if (!ok)
				ktest_log(t, "%s: %s at 0x%llx beyond 0x%llx", hc->pci->name, a->what,
					  a->dma, mask);
			high += a->dma + a->size > (1ull << 32);
		}
		ktest_log(t, "%s: %u DMA allocations, %u above 4 GiB, mask 0x%llx", hc->pci->name,
			  hc->ndma, high, mask);
		if (mask == DMA_BIT_MASK(32))
			EXPECT_EQ(t, high, 0);
		/* what the controller was told: DCBAA entries and every ring in every context */
		EXPECT_TRUE(t, recorded(hc, hc->dcbaa_dma, 8));
		EXPECT_TRUE(t, recorded(hc, hc->cmd.dma, 16 * XHCI_CMD_TRBS));
		EXPECT_TRUE(t, recorded(hc, hc->events_dma, 16 * XHCI_EVENT_TRBS));
		for (u32 s = 1; s <= XHCI_MAX_SLOTS; s++) {
			struct usb_device *dev = hc->slots[s];
			if (!dev)
				continue;
			EXPECT_TRUE(t, recorded(hc, hc->dcbaa[s], hc->ctx_size * 32));
			for (u32 dci = 1; dci < 32; dci++) {
				u32 *ep = (u32 *)((u8 *)dev->out_ctx + dci * hc->ctx_size);
				u64 deq = ((u64)ep[3] << 32 | ep[2]) & ~0xfull;
				if (ep[1] >> 3 & 7)     /* an endpoint type: the endpoint exists */
					EXPECT_TRUE(t, recorded(hc, deq, 16) && dma_reachable(mask, deq, 16));
			}
		}
	}
}

/* No-Op commands until the 16-TRB command ring has gone round twice: the link TRB flips the cycle. */
static void command_ring_wraps(struct ktest *t)
{
	NEED_XHCI(t, hc);
	u32 n = 2 * (XHCI_CMD_TRBS - 1) + 3, wraps = 0;
	bool start_cycle = hc->cmd.pos.cycle;

	for (u32 i = 0; i < n; i++) {
		u32 enq = hc->cmd.pos.enq;
		bool cycle = hc->cmd.pos.cycle;
		u8 code = xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL);
		ASSERT_EQ(t, code, CC_SUCCESS);
		/* the completion names the TRB we wrote, wherever in the ring it was */
		EXPECT_EQ(t, hc->cmd_done.trb, hc->cmd.dma + enq * 16);
		EXPECT_EQ(t, hc->cmd.trbs[enq].control & TRB_CYCLE, cycle ? 1 : 0);
		if (hc->cmd.pos.cycle != cycle) {
			wraps++;
			struct xhci_trb *link = &hc->cmd.trbs[XHCI_CMD_TRBS - 1];
			EXPECT_EQ(t, TRB_TYPE_OF(link->control), TRB_LINK);
			EXPECT_TRUE(t, link->control & TRB_TOGGLE_CYCLE);
			EXPECT_EQ(t, link->control & TRB_CYCLE, cycle ? 1 : 0);
		}
	}
	EXPECT_TRUE(t, wraps >= 2);
	EXPECT_EQ(t, hc->cmd.pos.cycle, start_cycle ^ (wraps & 1));
}

/* A controller that does not answer costs a bounded wait and a message, then works again. */
static void a_halted_controller_times_out_a_command(struct ktest *t)
{
	NEED_XHCI(t, hc);
	u8 __iomem *usbcmd = hc->op, *usbsts = hc->op + 4;
	writel(readl(usbcmd) & ~1u, usbcmd);            /* R/S off: it halts */
	u64 deadline = ktime_ns() + 100000000ull;
	while (!(readl(usbsts) & 1) && ktime_ns() < deadline)
		cpu_relax();
	ASSERT_EQ(t, readl(usbsts) & 1, 1);
	u64 start = ktime_ns();
	u8 code = xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL);
	u64 took = ktime_ns() - start;
	writel(readl(usbcmd) | 1u, usbcmd);             /* run again */
	deadline = ktime_ns() + 100000000ull;
	while ((readl(usbsts) & 1) && ktime_ns() < deadline)
		cpu_relax();
	EXPECT_EQ(t, code, 0);                          /* no completion: 0, said, not a hang */
	EXPECT_LT(t, took, 2000000000ull);
	ktest_log(t, "the halted controller's command gave up after %llu ms", took / 1000000);
	/* running again: the stale command completes first, then ours (matched by its TRB) */
	EXPECT_EQ(t, xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL), CC_SUCCESS);
}

static void connected_ports_were_reset_and_enabled(struct ktest *t)
{
	NEED_XHCI(t, hc);
	u32 devices = 0;
	for (u32 i = 0; (hc = xhci_get(i)); i++) {
		EXPECT_EQ(t, hc->port_resets_failed, 0);
		for (u32 s = 1; s <= XHCI_MAX_SLOTS; s++) {
			struct usb_device *dev = hc->slots[s];
			if (!dev)
				continue;
			u32 sc = xhci_portsc(hc, dev->port);
			devices++;
			ktest_log(t, "%s port %u (%s): PORTSC 0x%08x, device %04x:%04x", hc->pci->name,
				  dev->port, xhci_port_protocol(hc, dev->port), sc, dev->desc.idVendor,
				  dev->desc.idProduct);
			EXPECT_EQ(t, sc & 3, 3);                        /* connected and enabled */
			EXPECT_EQ(t, (sc >> 10) & 0xf, dev->speed);
			EXPECT_TRUE(t, hc->port_major[dev->port] == 2 || hc->port_major[dev->port] == 3);
			/* a USB2 port carries a device of at most high speed, a USB3 port super speed */
			EXPECT_EQ(t, hc->port_major[dev->port] == 3, dev->speed >= 4);
			u32 slot_state = ((u32 *)dev->out_ctx)[3] >> 27;
			EXPECT_TRUE(t, slot_state == 2 || slot_state == 3);  /* addressed or configured */
		}
	}
	if (!devices)
		KTEST_SKIP(t, "no USB device on any root port");
}

static void descriptors_are_sane(struct ktest *t)
{
	NEED_XHCI(t, hc);
	u32 devices = 0;
	for (u32 i = 0; (hc = xhci_get(i)); i++) {
		for (u32 s = 1; s <= XHCI_MAX_SLOTS; s++) {
			struct usb_device *dev = hc->slots[s];
			if (!dev)
				continue;
			devices++;
			const struct usb_device_desc *d = &dev->desc;
			EXPECT_EQ(t, d->bLength, 18);
			EXPECT_EQ(t, d->bDescriptorType, 1);
			EXPECT_TRUE(t, d->bcdUSB >= 0x0100);
			EXPECT_TRUE(t, d->bNumConfigurations >= 1);
			u8 m = d->bMaxPacketSize0;
			EXPECT_TRUE(t, dev->speed >= 4 ? m == 9 : (m == 8 || m == 16 || m == 32 || m == 64));
			EXPECT_TRUE(t, dev->config_len >= 9);
			EXPECT_EQ(t, dev->config[1], 2);                /* a configuration descriptor */
			EXPECT_TRUE(t, dev->config[4] >= 1);                 /* bNumInterfaces */
			/* its descriptors chain to exactly its length */
			u32 off = 0;
			while (off + 2 <= dev->config_len && dev->config[off] >= 2)
				off += dev->config[off];
			EXPECT_EQ(t, off, dev->config_len);
		}
	}
	if (!devices)
		KTEST_SKIP(t, "no USB device on any root port");
}

/* The keyboard: expected when some device's configuration offers a boot keyboard. */
static void boot_keyboard_enumerated_and_polled(struct ktest *t)
{
	NEED_XHCI(t, hc);
	struct usb_device *kbd_dev = NULL;
	struct usb_kbd_iface k;
	for (u32 i = 0; (hc = xhci_get(i)) && !kbd_dev; i++)
		for (u32 s = 1; s <= XHCI_MAX_SLOTS && !kbd_dev; s++)
			if (hc->slots[s] && usb_find_boot_keyboard(hc->slots[s]->config,
								   hc->slots[s]->config_len, &k))
				kbd_dev = hc->slots[s];
	if (!kbd_dev)
		KTEST_SKIP(t, "no USB device offers a boot keyboard interface");
	const struct usb_kbd_state *st = usb_kbd_get();
	ASSERT_TRUE(t, st != NULL);
	EXPECT_TRUE(t, st->dev == kbd_dev);
	EXPECT_EQ(t, st->iface.ep, k.ep);
	EXPECT_EQ(t, st->dev->ep_in_dci, (k.ep & 0xf) * 2 + 1);
	hc = st->dev->hc;
	u32 *slot = (u32 *)st->dev->out_ctx;
	u32 *ep = (u32 *)((u8 *)st->dev->out_ctx + st->dev->ep_in_dci * hc->ctx_size);
	EXPECT_EQ(t, slot[3] >> 27, 3);                 /* slot Configured */
	EXPECT_EQ(t, ep[0] & 7, 1);                     /* endpoint Running: a read is queued */
	EXPECT_EQ(t, (ep[1] >> 3) & 7, 7);              /* Interrupt IN */
	usb_kbd_poll();                                 /* nothing typed: nothing, and no fault */
	EXPECT_EQ(t, ep[0] & 7, 1);
}

static const struct ktest_case xhci_cases[] = {
	KTEST(controller_found_and_running),
	KTEST(dma_mask_follows_ac64),
	KTEST(every_dma_address_within_the_mask),
	KTEST(command_ring_wraps),
	KTEST(a_halted_controller_times_out_a_command),
	KTEST(connected_ports_were_reset_and_enabled),
	KTEST(descriptors_are_sane),
	KTEST(boot_keyboard_enumerated_and_polled),
	{},
};
KTEST_SUITE(xhci, xhci_cases);
