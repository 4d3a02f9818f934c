// SPDX-License-Identifier: MIT
/*
 * xhci.c - an xHCI host controller driver, polled (see xhci.h for the rings).
 *
 * Bring-up, in the order of xHCI 1.2, 4.2 ("Host Controller Initialization"):
 *
 *   1. BIOS/OS handoff (USB Legacy Support capability, 7.1.1): set OS Owned,
 *      wait up to 1 s for the firmware to drop BIOS Owned (then, as Linux's
 *      quirk_usb_handoff_xhci() does, take it anyway), turn its SMIs off;
 *   2. stop (USBCMD.R/S = 0, wait USBSTS.HCHalted), reset (USBCMD.HCRST,
 *      wait for it and USBSTS.CNR to clear);
 *   3. CONFIG.MaxSlotsEn; the DCBAA (slot n's device context pointer at
 *      entry n, the scratchpad array at entry 0 if HCSPARAMS2 asks for one);
 *   4. the command ring (CRCR), the event ring and its ERST (interrupter 0);
 *   5. run (USBCMD.R/S = 1, no interrupts: the driver polls).
 *
 * Then every connected root port: reset it (USB2 ports need PORTSC.PR; a
 * USB3 port that trained is already enabled), Enable Slot, Address Device
 * with an input context (slot + EP0), GET_DESCRIPTOR(device), and, if
 * EP0's max packet size was guessed wrong, Evaluate Context; then
 * GET_DESCRIPTOR(configuration). Drivers of the devices (usb_kbd.c) take
 * it from there with usb_control() and usb_configure_interrupt_in().
 *
 * Port protocols come from the Supported Protocol capabilities (7.2): each
 * names a range of root ports and its USB major revision.
 *
 * Invariants: every wait has a deadline (ktime_ns()) and gives up with an
 * "xhci: ..." line; an event completes a request only if it names one of
 * that request's TRBs (ring_event()); the driver never writes a TRB the
 * controller still owns (a timed-out request's stay its own until an
 * event passes them: a request that does not fit fails at once); a failed
 * enumeration gives its slot back (Disable Slot); an interrupt read that
 * halted its endpoint is followed by Reset Endpoint and Set TR Dequeue
 * Pointer before the next (usb_interrupt_next()); every address given to the controller was allocated by
 * dma_coherent() below, which records it in hc->dma[] and uses the
 * controller's masks (AC64). Only one thread drives a controller at a time
 * (the boot, then the shell): there is no lock.
 *
 * Contexts are 32 bytes, or 64 when HCCPARAMS1.CSZ is set; all offsets into
 * input and device contexts go through xhci_ctx() (xhci.h), as do the
 * input contexts' contents (xhci_input_address(), xhci_input_interrupt_in()).
 */
#include "xhci.h"
#include "cmdline.h"
#include "format.h"
#include "io.h"
#include "kstring.h"
#include "pci.h"
#include "printk.h"
#include "sched.h"
#include "time.h"
#include "vm.h"

/* Capability registers */
#define CAP_CAPLENGTH   0x00    /* byte; HCIVERSION is the word at 0x02 */
#define CAP_HCSPARAMS1  0x04
#define CAP_HCSPARAMS2  0x08
#define CAP_HCCPARAMS1  0x10
#define CAP_DBOFF       0x14
#define CAP_RTSOFF      0x18

/* Operational registers */
#define OP_USBCMD       0x00
#define OP_USBSTS       0x04
#define OP_PAGESIZE     0x08
#define OP_CRCR         0x18
#define OP_DCBAAP       0x30
#define OP_CONFIG       0x38
#define OP_PORTSC(n)    (0x400 + 0x10 * ((n) - 1))

#define CMD_RUN         (1u << 0)
#define CMD_HCRST       (1u << 1)
#define STS_HCH         (1u << 0)
#define STS_HSE         (1u << 2)       /* Host System Error */
#define STS_CNR         (1u << 11)

/* Interrupter 0 in the runtime registers */
#define RT_IMAN         0x20
#define RT_ERSTSZ       0x28
#define RT_ERSTBA       0x30
#define RT_ERDP         0x38
#define ERDP_EHB        (1u << 3)

#define HCC_AC64        (1u << 0)
#define HCC_CSZ         (1u << 2)

/* PORTSC bits (5.4.8) */
#define PORT_CCS        (1u << 0)
#define PORT_PED        (1u << 1)
#define PORT_PR         (1u << 4)
#define PORT_PP         (1u << 9)
#define PORT_SPEED(v)   (((v) >> 10) & 0xf)
#define PORT_PRC        (1u << 21)
#define PORT_CHANGES    (0x7fu << 17)   /* CSC PEC WRC OCC PRC PLC CEC: write 1 to clear */
/* Bits a write must give back as read so as to change nothing (Linux's xhci_port_state_to_neutral) */
#define PORT_RO         ((1u << 0) | (1u << 3) | (0xfu << 10) | (1u << 30))
#define PORT_RWS        ((0xfu << 5) | (1u << 9) | (0x3u << 14) | (0x7u << 25))

/* Extended capabilities (7) */
#define XCAP_LEGACY     1
#define XCAP_PROTOCOL   2
#define LEGACY_BIOS     (1u << 16)
#define LEGACY_OS       (1u << 24)

#define CMD_TIMEOUT_NS      (500ull * 1000 * 1000)
#define XFER_TIMEOUT_NS     (500ull * 1000 * 1000)
#define HALT_TIMEOUT_NS     (100ull * 1000 * 1000)
#define RESET_TIMEOUT_NS    (1000ull * 1000 * 1000)
#define CNR_TIMEOUT_NS      (5000ull * 1000 * 1000)    /* Linux's quirk_usb_handoff_xhci() waits 5 s */
#define ADDRESS_TIMEOUT_NS  (5000ull * 1000 * 1000)    /* Address Device talks to the device: Linux's 5 s */
#define RESET_RECOVERY_US   50000       /* after a port reset: USB 2.0 7.1.7.5's 10 ms, as Linux's 10 + 40 */
#define SET_ADDRESS_US      10000       /* after Address Device: USB 2.0 9.2.6.3's 2 ms, as Linux's 10 */
#define HANDOFF_TIMEOUT_NS  (1000ull * 1000 * 1000)
#define PORT_TIMEOUT_NS     (200ull * 1000 * 1000)

/* xhci=off: leave every xHCI alone. xhci.ac64=off: use a 32-bit DMA mask even if AC64 is set. */
static int xhci_off;
PARAM_CHOICE("xhci", xhci_off, "on", "off");
static int ac64_off;
PARAM_CHOICE("xhci.ac64", ac64_off, "auto", "off");

static struct xhci controllers[XHCI_MAX_CONTROLLERS];
static u32 ncontrollers, nfound;
static const char *probe_failure;
static struct usb_device devices[XHCI_MAX_CONTROLLERS * XHCI_MAX_SLOTS];
static u32 ndevices;
static bool probed;                     /* xhci_init() ran: it runs once */

/* --- registers ---------------------------------------------------------------- */

static u32 rd(u8 __iomem *base, u32 off)
{
	return readl(base + off);
}

static void wr(u8 __iomem *base, u32 off, u32 v)
{
	writel(v, base + off);
}

/* 64-bit registers as two dword writes, low first (5.1: controllers without AC64 may not take qwords). */
static void wr64(u8 __iomem *base, u32 off, u64 v)
{
	wr(base, off, (u32)v);
	wr(base, off + 4, (u32)(v >> 32));
}

u32 xhci_portsc(const struct xhci *hc, u32 port)
{
	return rd(hc->op, OP_PORTSC(port));
}

static void ring_doorbell(struct xhci *hc, u32 slot, u32 target)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);        /* the TRBs are in memory before the doorbell */
	writel(target, &hc->db[slot]);
}

/* Wait until (reg & mask) == want, at most timeout_ns; false if it never did. */
static bool wait_reg(u8 __iomem *base, u32 off, u32 mask, u32 want, u64 timeout_ns)
{
	u64 deadline = ktime_ns() + timeout_ns;

	for (;;) {
		if ((rd(base, off) & mask) == want)
			return true;
		if (ktime_ns() > deadline)
			return false;
		udelay(20);
	}
}

/* --- DMA memory --------------------------------------------------------------- */

/* Zeroed coherent memory within the controller's mask, recorded in hc->dma[]; NULL if none. */
static void *dma_coherent(struct xhci *hc, u64 size, const char *what, dma_addr_t *dma)
{
	if (hc->ndma == XHCI_MAX_DMA) {
		pr_err("xhci: %s: more than %d DMA allocations\n", hc->pci->name, XHCI_MAX_DMA);
		return NULL;
	}
	void *va = dma_alloc_coherent(&hc->pci->dma, size, dma);
	if (!va) {
		pr_err("xhci: %s: no DMA memory for the %s (%llu bytes, mask 0x%llx)\n",
		       hc->pci->name, what, size, hc->pci->dma.coherent_dma_mask);
		return NULL;
	}
	hc->dma[hc->ndma++] = (struct xhci_dma){ va, *dma, size, what };
	return va;
}

static bool ring_alloc(struct xhci *hc, struct xhci_ring *r, u32 n, const char *what)
{
	r->trbs = dma_coherent(hc, n * sizeof(struct xhci_trb), what, &r->dma);
	if (!r->trbs)
		return false;
	r->pos = (struct xhci_ring_pos){ .enq = 0, .n = n, .cycle = true };
	r->trbs[n - 1].param = r->dma;                  /* the link TRB back to the start */
	r->trbs[n - 1].control = TRB_TYPE(TRB_LINK) | TRB_TOGGLE_CYCLE;    /* cycle 0: not yet ours to give */
	return true;
}

/* Put one TRB on a producer ring: the cycle bit last. Returns its DMA address. */
static dma_addr_t ring_put(struct xhci_ring *r, u64 param, u32 status, u32 control)
{
	struct xhci_trb *t = &r->trbs[r->pos.enq];
	dma_addr_t at = r->dma + r->pos.enq * sizeof(*t);
	bool cycle = r->pos.cycle;

	t->param = param;
	t->status = status;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	t->control = (control & ~TRB_CYCLE) | (cycle ? TRB_CYCLE : 0);
	if (xhci_ring_advance(&r->pos)) {
		/* hand the link TRB over with the lap's cycle: the controller follows it and flips */
		struct xhci_trb *link = &r->trbs[r->pos.n - 1];
		__atomic_thread_fence(__ATOMIC_RELEASE);
		link->control = TRB_TYPE(TRB_LINK) | TRB_TOGGLE_CYCLE | (cycle ? TRB_CYCLE : 0);
	}
	return at;
}

/* --- events ------------------------------------------------------------------- */

/* TRB trb's index on ring r, or -1 if it is none of r's TRBs (nor its link). */
static int ring_index(const struct xhci_ring *r, u64 trb)
{
	if (!r->trbs || trb < r->dma || (trb - r->dma) % sizeof(struct xhci_trb))
		return -1;
	u64 i = (trb - r->dma) / sizeof(struct xhci_trb);
	return i < r->pos.n - 1 ? (int)i : -1;
}

/*
 * An event names TRB trb of ring r. True if it completes the request
 * waited for (one of its TRBs: an error ends a TD early); then all of
 * that request is retired. A TRB the controller owns but of an older
 * request (one that timed out) is a late completion: what the
 * controller has passed is retired, the event completes nothing. Any
 * other TRB (done already, never given, not on this ring) is a stray:
 * counted, said, ignored.
 */
static bool ring_event(struct xhci *hc, struct xhci_ring *r, u64 trb, const char *ring, u8 slot)
{
	int i = ring_index(r, trb);

	if (i < 0 || !xhci_ring_between(r->deq, r->pos.enq, r->pos.n, (u32)i)) {
		hc->stray_events++;
		pr_warn("xhci: %s: slot %u: an event for TRB 0x%llx, which the controller does not "
			"own on the %s ring; ignored\n", hc->pci->name, slot, trb, ring);
		return false;
	}
	if (xhci_ring_between(r->td, r->pos.enq, r->pos.n, (u32)i)) {
		r->deq = r->pos.enq;
		return true;
	}
	hc->late_events++;
	r->deq = ((u32)i + 1) % (r->pos.n - 1);
	pr_warn("xhci: %s: slot %u: a late completion on the %s ring (a request that timed out); "
		"ignored\n", hc->pci->name, slot, ring);
	return false;
}

static void handle_event(struct xhci *hc, const struct xhci_trb *e)
{
	u32 type = TRB_TYPE_OF(e->control);
	u8 slot = (u8)(e->control >> 24);

	if (type == TRB_CMD_COMPLETION) {
		if (!ring_event(hc, &hc->cmd, e->param, "command", slot))
			return;
		hc->cmd_done.trb = e->param;
		hc->cmd_done.code = (u8)(e->status >> 24);
		hc->cmd_done.slot = slot;
		hc->cmd_done.count++;
	} else if (type == TRB_TRANSFER_EVENT) {
		u32 dci = (e->control >> 16) & 0x1f;
		struct usb_device *dev = slot <= XHCI_MAX_SLOTS ? hc->slots[slot] : NULL;
		struct xhci_ring *r = !dev ? NULL : dci == 1 ? &dev->ep0 :
				      dci == dev->ep_in_dci ? &dev->ep_in : NULL;
		/* Event Data (ED) events carry no TRB pointer: none is asked for */
		if (!r || (e->control & TRB_EVENT_DATA)) {
			hc->stray_events++;
			pr_warn("xhci: %s: a transfer event for slot %u DCI %u, which has no ring "
				"waiting; ignored\n", hc->pci->name, slot, dci);
			return;
		}
		if (!ring_event(hc, r, e->param, dci == 1 ? "EP0" : "interrupt", slot))
			return;
		dev->ev[dci].code = (u8)(e->status >> 24);
		dev->ev[dci].residual = e->status & 0xffffff;
		dev->ev[dci].count++;
	}
	/* port status changes: the ports are looked at once, at init; nothing to do */
}

/* Room for need more TRBs on r, after taking the events waiting (they may retire some). */
static bool ring_room(struct xhci *hc, struct xhci_ring *r, u32 need)
{
	xhci_poll(hc);
	return xhci_ring_has_room(r->deq, r->pos.enq, r->pos.n, need);
}

u32 xhci_poll(struct xhci *hc)
{
	u32 n = 0;

	while (n < XHCI_EVENT_TRBS) {
		struct xhci_trb *e = &hc->events[hc->evpos.deq];
		if (!xhci_event_valid(&hc->evpos, __atomic_load_n(&e->control, __ATOMIC_ACQUIRE)))
			break;
		handle_event(hc, e);
		xhci_event_advance(&hc->evpos);
		n++;
	}
	if (n)
		wr64(hc->rt, RT_ERDP, (hc->events_dma + hc->evpos.deq * sizeof(struct xhci_trb)) |
		     ERDP_EHB);
	return n;
}

static u8 command_within(struct xhci *hc, u64 param, u32 control, u8 *slot_out, u64 timeout_ns)
{
	if (!ring_room(hc, &hc->cmd, 1)) {
		pr_err("xhci: %s: the command ring is full of %u commands the controller never "
		       "completed; command type %u refused\n", hc->pci->name,
		       xhci_ring_owned(hc->cmd.deq, hc->cmd.pos.enq, hc->cmd.pos.n), TRB_TYPE_OF(control));
		return 0;
	}
	u32 before = hc->cmd_done.count;
	hc->cmd.td = hc->cmd.pos.enq;
	dma_addr_t at = ring_put(&hc->cmd, param, 0, control);
	u64 deadline = ktime_ns() + timeout_ns;

	ring_doorbell(hc, 0, 0);
	for (;;) {
		xhci_poll(hc);
		if (hc->cmd_done.count != before && hc->cmd_done.trb == at)
			break;
		if (ktime_ns() > deadline) {
			pr_err("xhci: %s: command type %u got no completion in %llu ms\n",
			       hc->pci->name, TRB_TYPE_OF(control), timeout_ns / 1000000);
			return 0;
		}
		udelay(10);
	}
	if (slot_out)
		*slot_out = hc->cmd_done.slot;
	return hc->cmd_done.code;
}

u8 xhci_command(struct xhci *hc, u64 param, u32 control, u8 *slot_out)
{
	return command_within(hc, param, control, slot_out, CMD_TIMEOUT_NS);
}

/* Wait for the next event on (dev, dci) after `before` events; its code, 0 on timeout. */
static u8 wait_transfer(struct usb_device *dev, u32 dci, u32 before, u64 timeout_ns)
{
	u64 deadline = ktime_ns() + timeout_ns;

	while (dev->ev[dci].count == before) {
		xhci_poll(dev->hc);
		if (ktime_ns() > deadline)
			return 0;
		udelay(10);
	}
	return dev->ev[dci].code;
}

/* --- transfers ---------------------------------------------------------------- */

u8 usb_control(struct usb_device *dev, u8 reqtype, u8 req, u16 value, u16 index, u16 len)
{
	bool in = reqtype & 0x80;
	u64 setup = reqtype | (u64)req << 8 | (u64)value << 16 | (u64)index << 32 | (u64)len << 48;
	u32 trt = !len ? 0 : in ? 3 : 2;
	u32 before = dev->ev[1].count;

	if (len > PAGE_SIZE)
		return 0;
	if (!ring_room(dev->hc, &dev->ep0, len ? 3 : 2)) {
		pr_err("xhci: %s: slot %u: the EP0 ring is full of %u TRBs the controller never "
		       "finished; control request %02x/%02x refused\n", dev->hc->pci->name, dev->slot,
		       xhci_ring_owned(dev->ep0.deq, dev->ep0.pos.enq, dev->ep0.pos.n), reqtype, req);
		return 0;
	}
	dev->ep0.td = dev->ep0.pos.enq;
	ring_put(&dev->ep0, setup, 8, TRB_TYPE(TRB_SETUP) | TRB_IDT | trt << 16);
	if (len)
		ring_put(&dev->ep0, dev->buf_dma, len, TRB_TYPE(TRB_DATA) | (in ? TRB_DIR_IN : 0));
	/* the status stage goes the other way from the data (IN when there is none) */
	ring_put(&dev->ep0, 0, 0, TRB_TYPE(TRB_STATUS) | TRB_IOC | (len && in ? 0 : TRB_DIR_IN));
	ring_doorbell(dev->hc, dev->slot, 1);
	u8 code = wait_transfer(dev, 1, before, XFER_TIMEOUT_NS);
	if (!code)
		pr_err("xhci: %s: slot %u: control request %02x/%02x got no answer\n",
		       dev->hc->pci->name, dev->slot, reqtype, req);
	return code;
}

void usb_interrupt_queue(struct usb_device *dev, u32 off, u32 len)
{
	if (!ring_room(dev->hc, &dev->ep_in, 1)) {
		pr_err("xhci: %s: slot %u: the interrupt ring is full; read not queued\n",
		       dev->hc->pci->name, dev->slot);
		return;
	}
	dev->ep_in.td = dev->ep_in.pos.enq;
	ring_put(&dev->ep_in, dev->buf_dma + off, len, TRB_TYPE(TRB_NORMAL) | TRB_IOC | TRB_ISP);
	ring_doorbell(dev->hc, dev->slot, dev->ep_in_dci);
}

/* Does this completion code halt the endpoint (xHCI 1.2, 4.10.2: babble, transaction, stall, split)? */
static bool halts(u8 code)
{
	return code == CC_BABBLE || code == CC_TRANSACTION_ERR || code == CC_STALL ||
	       code == CC_SPLIT_ERR;
}

/*
 * A halted interrupt IN endpoint, taken back (xHCI 1.2, 4.6.8 and
 * 4.6.10): Reset Endpoint moves it from Halted to Stopped, and Set TR
 * Dequeue Pointer moves the controller's dequeue pointer past the failed
 * TD, to the driver's enqueue position and cycle state, so that it owns
 * nothing on the ring. A STALL is the device's own halt too, which only
 * CLEAR_FEATURE(ENDPOINT_HALT) to the endpoint lifts (USB 2.0, 9.4.1 and
 * 9.4.5), and which resets the device's data toggle: the controller's is
 * reset with it. After a transaction error the device did not halt and
 * kept its toggle, so the controller keeps its own: Reset Endpoint with
 * Transfer State Preserve, Linux's soft retry (Mathias Nyman, "xhci: add
 * TSP bitflag to TRB tracing", 2019: "xhci driver is using TSP for soft
 * retry").
 */
static bool recover_interrupt_in(struct usb_device *dev, u8 code)
{
	struct xhci *hc = dev->hc;
	u32 dci = dev->ep_in_dci;
	u32 target = (u32)dev->slot << 24 | dci << 16;
	dma_addr_t deq = dev->ep_in.dma + (u64)dev->ep_in.pos.enq * sizeof(struct xhci_trb);

	u32 soft = code == CC_TRANSACTION_ERR ? TRB_TSP : 0;

	u8 cc = xhci_command(hc, 0, TRB_TYPE(TRB_RESET_EP) | soft | target, NULL);
	if (cc == CC_SUCCESS)
		cc = xhci_command(hc, deq | (dev->ep_in.pos.cycle ? 1 : 0),
				  TRB_TYPE(TRB_SET_TR_DEQUEUE) | target, NULL);
	if (cc != CC_SUCCESS) {
		pr_err("xhci: %s: slot %u: the interrupt endpoint did not come back after code %u "
		       "(command code %u)\n", hc->pci->name, dev->slot, code, cc);
		return false;
	}
	dev->ep_in.deq = dev->ep_in.pos.enq;
	if (code == CC_STALL &&
	    usb_control(dev, 0x02, 1, 0, (u16)(0x80 | (dci - 1) / 2), 0) != CC_SUCCESS)
		pr_warn("xhci: %s: slot %u: CLEAR_FEATURE(ENDPOINT_HALT) failed\n", hc->pci->name,
			dev->slot);
	dev->ep_in_recoveries++;
	pr_info("xhci: %s: slot %u: the interrupt endpoint halted (code %u): reset, reading again\n",
		hc->pci->name, dev->slot, code);
	return true;
}

bool usb_interrupt_next(struct usb_device *dev, u32 off, u32 len)
{
	u8 code = dev->ev[dev->ep_in_dci].code;

	if (dev->ep_in_failures >= XHCI_EP_FAILURES)
		return false;
	if (code == CC_SUCCESS || code == CC_SHORT_PACKET) {
		dev->ep_in_failures = 0;
	} else if (++dev->ep_in_failures == XHCI_EP_FAILURES) {
		pr_err("xhci: %s: slot %u: %u reads of the interrupt endpoint failed in a row "
		       "(last code %u): no longer read\n", dev->hc->pci->name, dev->slot,
		       XHCI_EP_FAILURES, code);
		return false;
	} else if (halts(code) && !recover_interrupt_in(dev, code)) {
		dev->ep_in_failures = XHCI_EP_FAILURES;
		return false;
	}
	usb_interrupt_queue(dev, off, len);
	return true;
}

bool usb_configure_interrupt_in(struct usb_device *dev, u8 config_value, u8 ep, u16 mps,
				u8 binterval)
{
	struct xhci *hc = dev->hc;
	u32 dci = (ep & 0xf) * 2 + 1;           /* IN endpoint n: DCI 2n + 1 */

	if (!ring_alloc(hc, &dev->ep_in, XHCI_XFER_TRBS, "interrupt ring"))
		return false;
	xhci_input_interrupt_in(dev->in_ctx, dev->out_ctx, hc->ctx_size, dci, mps,
				xhci_interval(dev->speed, binterval), dev->ep_in.dma);
	u8 code = xhci_command(hc, dev->in_ctx_dma, TRB_TYPE(TRB_CONFIGURE_EP) |
			       (u32)dev->slot << 24, NULL);
	if (code != CC_SUCCESS) {
		pr_err("xhci: %s: slot %u: Configure Endpoint failed (code %u)\n", hc->pci->name,
		       dev->slot, code);
		return false;
	}
	dev->ep_in_dci = (u8)dci;
	code = usb_control(dev, 0x00, 9, config_value, 0, 0);    /* SET_CONFIGURATION */
	if (code != CC_SUCCESS) {
		pr_err("xhci: %s: slot %u: SET_CONFIGURATION failed (code %u)\n", hc->pci->name,
		       dev->slot, code);
		return false;
	}
	return true;
}

/* --- ports and devices -------------------------------------------------------- */

const char *xhci_port_protocol(const struct xhci *hc, u32 port)
{
	u8 major = port <= XHCI_MAX_PORTS ? hc->port_major[port] : 0;

	return major == 3 ? "usb3" : major == 2 ? "usb2" : "usb?";
}

static const char *speed_name(u32 speed)
{
	static const char *const names[] = { "?", "full", "low", "high", "super", "super+" };

	return speed < ARRAY_SIZE(names) ? names[speed] : "?";
}

/* Reset a connected port until it is enabled; false (said) if it does not come up. */
static bool port_reset(struct xhci *hc, u32 port)
{
	u32 v = xhci_portsc(hc, port);

	if (hc->port_major[port] == 3 && (v & PORT_PED))
		return true;                            /* a USB3 port that trained is enabled */
	wr(hc->op, OP_PORTSC(port), (v & (PORT_RO | PORT_RWS)) | PORT_PR);
	if (!wait_reg(hc->op, OP_PORTSC(port), PORT_PRC, PORT_PRC, PORT_TIMEOUT_NS)) {
		pr_err("xhci: %s: port %u did not finish its reset in %llu ms\n", hc->pci->name, port,
		       PORT_TIMEOUT_NS / 1000000);
		hc->port_resets_failed++;
		return false;
	}
	v = xhci_portsc(hc, port);
	wr(hc->op, OP_PORTSC(port), (v & (PORT_RO | PORT_RWS)) | PORT_PRC);
	if (!(v & PORT_PED)) {
		pr_err("xhci: %s: port %u is not enabled after its reset (PORTSC 0x%x)\n",
		       hc->pci->name, port, v);
		hc->port_resets_failed++;
		return false;
	}
	hc->port_resets_ok++;
	udelay(RESET_RECOVERY_US);      /* the device may ignore requests until then */
	return true;
}

static u16 ep0_max_packet(u32 speed)
{
	return speed == 4 || speed == 5 ? 512 : speed == 3 ? 64 : 8;
}

static bool get_descriptors(struct usb_device *dev)
{
	u8 code = usb_control(dev, 0x80, 6, 1 << 8, 0, 8);       /* first 8: bMaxPacketSize0 */
	if (code != CC_SUCCESS && code != CC_SHORT_PACKET)
		return false;
	u16 mps = xhci_ep0_max_packet_from(dev->speed, dev->buf[7]);
	if (!mps)
		pr_warn("xhci: %s: port %u: bMaxPacketSize0 %u is impossible at this speed; "
			"keeping %u\n", dev->hc->pci->name, dev->port, dev->buf[7],
			ep0_max_packet(dev->speed));
	if (mps && mps != ep0_max_packet(dev->speed)) {         /* Evaluate Context with the real size */
		struct xhci *hc = dev->hc;
		memset(dev->in_ctx, 0, PAGE_SIZE);
		xhci_ctx(dev->in_ctx, hc->ctx_size, 0)[1] = 1u << 1;           /* evaluate EP0 */
		u32 *ep0 = xhci_ctx(dev->in_ctx, hc->ctx_size, 2);
		memcpy(ep0, xhci_ctx(dev->out_ctx, hc->ctx_size, 1), 20);
		ep0[1] = (ep0[1] & 0xffff) | (u32)mps << 16;
		if (xhci_command(hc, dev->in_ctx_dma, TRB_TYPE(TRB_EVALUATE_CTX) | (u32)dev->slot << 24,
				 NULL) != CC_SUCCESS)
			return false;
	}
	code = usb_control(dev, 0x80, 6, 1 << 8, 0, sizeof(dev->desc));
	if (code != CC_SUCCESS && code != CC_SHORT_PACKET)
		return false;
	memcpy(&dev->desc, dev->buf, sizeof(dev->desc));
	if (dev->desc.bDescriptorType != 1 || dev->desc.bLength < sizeof(dev->desc)) {
		pr_err("xhci: %s: port %u: the device descriptor is none (type %u, length %u)\n",
		       dev->hc->pci->name, dev->port, dev->desc.bDescriptorType, dev->desc.bLength);
		return false;
	}
	code = usb_control(dev, 0x80, 6, 2 << 8, 0, 9);          /* config header: wTotalLength */
	if (code != CC_SUCCESS && code != CC_SHORT_PACKET)
		return false;
	if (dev->buf[1] != 2 || dev->buf[0] < 9) {
		pr_err("xhci: %s: port %u: the configuration descriptor is none (type %u, length %u)\n",
		       dev->hc->pci->name, dev->port, dev->buf[1], dev->buf[0]);
		return false;
	}
	u32 total = MIN((u32)(dev->buf[2] | dev->buf[3] << 8), (u32)USB_CONFIG_MAX);
	code = usb_control(dev, 0x80, 6, 2 << 8, 0, (u16)total);
	if (code != CC_SUCCESS && code != CC_SHORT_PACKET)
		return false;
	memcpy(dev->config, dev->buf, total);
	dev->config_len = MIN(total, (u32)(dev->config[2] | dev->config[3] << 8));
	return true;
}

/*
 * Give back the slot of a failed enumeration (Disable Slot, xHCI 1.2,
 * 4.6.4), so that its id is not lost to the next device; said if the
 * controller will not.
 */
static void disable_slot(struct xhci *hc, u8 slot, u32 port)
{
	hc->slots[slot] = NULL;
	u8 code = xhci_command(hc, 0, TRB_TYPE(TRB_DISABLE_SLOT) | (u32)slot << 24, NULL);
	if (code == CC_SUCCESS)
		hc->dcbaa[slot] = 0;
	else
		pr_err("xhci: %s: port %u: Disable Slot %u failed (code %u); the slot stays taken\n",
		       hc->pci->name, port, slot, code);
}

/* Enable Slot, Address Device, descriptors: a device the class drivers can use, or NULL (said). */
static struct usb_device *enumerate(struct xhci *hc, u32 port)
{
	u32 speed = PORT_SPEED(xhci_portsc(hc, port));
	u8 slot = 0;

	if (ndevices == ARRAY_SIZE(devices))
		return NULL;
	u8 code = xhci_command(hc, 0, TRB_TYPE(TRB_ENABLE_SLOT), &slot);
	if (code != CC_SUCCESS || !slot || slot > hc->max_slots) {
		pr_err("xhci: %s: port %u: Enable Slot failed (code %u, slot %u)\n", hc->pci->name,
		       port, code, slot);
		return NULL;
	}
	if (hc->slots[slot]) {
		pr_err("xhci: %s: port %u: Enable Slot gave slot %u, which port %u's device holds; "
		       "port not used\n", hc->pci->name, port, slot, hc->slots[slot]->port);
		return NULL;
	}
	struct usb_device *dev = &devices[ndevices];
	*dev = (struct usb_device){ .hc = hc, .slot = slot, .port = (u8)port, .speed = (u8)speed };
	if (!(dev->out_ctx = dma_coherent(hc, PAGE_SIZE, "device context", &dev->out_ctx_dma)) ||
	    !(dev->in_ctx = dma_coherent(hc, PAGE_SIZE, "input context", &dev->in_ctx_dma)) ||
	    !(dev->buf = dma_coherent(hc, PAGE_SIZE, "transfer buffer", &dev->buf_dma)) ||
	    !ring_alloc(hc, &dev->ep0, XHCI_XFER_TRBS, "EP0 ring")) {
		disable_slot(hc, slot, port);
		return NULL;
	}
	hc->dcbaa[slot] = dev->out_ctx_dma;
	hc->slots[slot] = dev;

	xhci_input_address(dev->in_ctx, hc->ctx_size, speed, port, dev->ep0.dma, ep0_max_packet(speed));
	code = command_within(hc, dev->in_ctx_dma, TRB_TYPE(TRB_ADDRESS_DEVICE) | (u32)slot << 24,
			      NULL, ADDRESS_TIMEOUT_NS);
	if (code == CC_SUCCESS)
		udelay(SET_ADDRESS_US);         /* let SET_ADDRESS settle in the device */
	if (code != CC_SUCCESS) {
		pr_err("xhci: %s: port %u: Address Device failed (code %u)\n", hc->pci->name, port, code);
		disable_slot(hc, slot, port);
		return NULL;
	}
	if (!get_descriptors(dev)) {
		pr_err("xhci: %s: port %u: the device did not give its descriptors\n", hc->pci->name,
		       port);
		disable_slot(hc, slot, port);
		return NULL;
	}
	ndevices++;
	pr_info("usb: %s port %u (%s, %s speed): slot %u, device %04x:%04x class %02x, USB %x.%02x\n",
		hc->pci->name, port, xhci_port_protocol(hc, port), speed_name(speed), slot,
		dev->desc.idVendor, dev->desc.idProduct, dev->desc.bDeviceClass,
		dev->desc.bcdUSB >> 8, dev->desc.bcdUSB & 0xff);
	return dev;
}

/* A controller that reads all ones (gone from the bus) or reports a Host System Error. */
static bool dead(struct xhci *hc)
{
	u32 sts = rd(hc->op, OP_USBSTS);

	if (sts != 0xffffffff && !(sts & STS_HSE))
		return false;
	pr_err("xhci: %s: the controller stopped answering (USBSTS 0x%x); ports not scanned\n",
	       hc->pci->name, sts);
	return true;
}

static void scan_ports(struct xhci *hc)
{
	for (u32 port = 1; port <= hc->nports; port++) {
		if (dead(hc))
			return;
		u32 v = xhci_portsc(hc, port);
		if (!(v & PORT_CCS))
			continue;
		if (port_reset(hc, port))
			enumerate(hc, port);
	}
}

/* --- bring-up ----------------------------------------------------------------- */

static bool give_up(struct xhci *hc, const char *why)
{
	probe_failure = why;
	pr_err("xhci: %s: %s; not used\n", hc->pci->name, why);
	return false;
}

/* Walk the extended capabilities: take the controller from the firmware, learn the port protocols. */
static bool extended_caps(struct xhci *hc)
{
	u32 off = (hc->hccparams1 >> 16) << 2;

	for (u32 n = 0; off && n < 64; n++) {
		if (!xhci_regs_in_bar(hc->bar_size, off, 16)) {
			pr_warn("xhci: %s: extended capability at 0x%x is past BAR 0 (0x%llx bytes); "
				"the rest are skipped\n", hc->pci->name, off, hc->bar_size);
			break;
		}
		u32 v = rd(hc->cap, off);
		u32 id = v & 0xff;
		if (id == XCAP_LEGACY && (v & LEGACY_BIOS)) {
			writeb(1, hc->cap + off + 3);                   /* HC OS Owned Semaphore */
			if (wait_reg(hc->cap, off, LEGACY_BIOS, 0, HANDOFF_TIMEOUT_NS)) {
				pr_info("xhci: %s: taken over from the firmware\n", hc->pci->name);
			} else {
				/* as Linux's quirk_usb_handoff_xhci(): a firmware that does not answer is broken */
				pr_warn("xhci: %s: the firmware kept BIOS Owned for 1 s; taking the "
					"controller anyway\n", hc->pci->name);
				writeb(0, hc->cap + off + 2);                   /* BIOS Owned off */
			}
		}
		if (id == XCAP_LEGACY) {
			/* SMIs off; write 1 to clear the three event bits */
			u32 ctl = rd(hc->cap, off + 4);
			wr(hc->cap, off + 4, (ctl & ~(0x1u | 0x7u << 13 | 1u << 4)) | 0x7u << 29);
		}
		if (id == XCAP_PROTOCOL) {
			u32 major = v >> 24, ports = rd(hc->cap, off + 8);
			u32 first = ports & 0xff, count = (ports >> 8) & 0xff;
			for (u32 p = first; p < first + count && p <= XHCI_MAX_PORTS; p++)
				if (p)
					hc->port_major[p] = (u8)major;
		}
		u32 next = (v >> 8) & 0xff;
		off = next ? off + (next << 2) : 0;
	}
	return true;
}

static bool halt_and_reset(struct xhci *hc)
{
	/* No operational register may be written while Controller Not Ready is set. */
	if (!wait_reg(hc->op, OP_USBSTS, STS_CNR, 0, CNR_TIMEOUT_NS))
		return give_up(hc, "it stayed not ready (USBSTS.CNR) for 5 s");
	wr(hc->op, OP_USBCMD, rd(hc->op, OP_USBCMD) & ~CMD_RUN);
	if (!wait_reg(hc->op, OP_USBSTS, STS_HCH, STS_HCH, HALT_TIMEOUT_NS))
		return give_up(hc, "it did not halt within 100 ms");
	wr(hc->op, OP_USBCMD, CMD_HCRST);
	/*
	 * Intel's controllers may hang the machine when a register is read
	 * too soon after HCRST (Linux's xhci_reset() waits 1 ms for them):
	 * wait on every controller.
	 */
	udelay(1000);
	if (!wait_reg(hc->op, OP_USBCMD, CMD_HCRST, 0, RESET_TIMEOUT_NS) ||
	    !wait_reg(hc->op, OP_USBSTS, STS_CNR, 0, RESET_TIMEOUT_NS))
		return give_up(hc, "its reset did not finish within 1 s");
	return true;
}

static bool setup_memory(struct xhci *hc)
{
	if (!(rd(hc->op, OP_PAGESIZE) & 1))
		return give_up(hc, "it does not take 4 KiB pages");
	if (!(hc->dcbaa = dma_coherent(hc, PAGE_SIZE, "DCBAA", &hc->dcbaa_dma)))
		return give_up(hc, "no DMA memory for its DCBAA");
	if (hc->nscratch) {
		dma_addr_t array_dma;
		u64 *array = dma_coherent(hc, PAGE_SIZE, "scratchpad array", &array_dma);
		if (!array)
			return give_up(hc, "no DMA memory for its scratchpad");
		for (u32 i = 0; i < hc->nscratch; i++) {
			dma_addr_t b;
			if (!dma_coherent(hc, PAGE_SIZE, "scratchpad buffer", &b))
				return give_up(hc, "no DMA memory for its scratchpad");
			array[i] = b;
		}
		hc->dcbaa[0] = array_dma;
	}
	if (!ring_alloc(hc, &hc->cmd, XHCI_CMD_TRBS, "command ring"))
		return give_up(hc, "no DMA memory for its command ring");
	dma_addr_t erst_dma;
	u64 *erst = dma_coherent(hc, PAGE_SIZE, "ERST", &erst_dma);
	hc->events = dma_coherent(hc, XHCI_EVENT_TRBS * sizeof(struct xhci_trb), "event ring",
				  &hc->events_dma);
	if (!erst || !hc->events)
		return give_up(hc, "no DMA memory for its event ring");
	erst[0] = hc->events_dma;
	erst[1] = XHCI_EVENT_TRBS;
	hc->evpos = (struct xhci_event_pos){ .deq = 0, .n = XHCI_EVENT_TRBS, .ccs = true };

	wr(hc->op, OP_CONFIG, hc->max_slots);
	wr64(hc->op, OP_DCBAAP, hc->dcbaa_dma);
	wr64(hc->op, OP_CRCR, hc->cmd.dma | 1);         /* ring cycle state 1 */
	wr(hc->rt, RT_IMAN, 0);                         /* no interrupts: polled */
	wr(hc->rt, RT_ERSTSZ, 1);
	wr64(hc->rt, RT_ERDP, hc->events_dma);
	wr64(hc->rt, RT_ERSTBA, erst_dma);              /* last: this enables the event ring */
	return true;
}

/*
 * Intel's 7 and 8 series PCHs (Panther Point, Lynx Point) share their
 * ports between an EHCI and the xHCI and route them to the EHCI until
 * software moves them: USB3_PSSEN (0xd8) turns on the SuperSpeed ports
 * that USB3PRM (0xdc) says may be switched, XUSB2PR (0xd0) moves the USB2
 * ports that USB2PRM (0xd4) lists. Linux does this in
 * usb_enable_intel_xhci_ports() (drivers/usb/host/pci-quirks.c) when an
 * Intel EHCI is present, after the BIOS handoff and before the halt; so
 * does this. Without it a keyboard on such a
 * board is invisible to the xHCI. Not tried: QEMU's xHCI is not Intel's.
 */
static void intel_switch_ports(struct pci_dev *d)
{
	bool intel_ehci = false;
	struct pci_dev *e;

	if (d->vendor != 0x8086)
		return;
	for (u32 i = 0; (e = pci_dev_at(i)); i++)
		intel_ehci |= e->vendor == 0x8086 && e->class_code == 0x0c && e->subclass == 0x03 &&
			      e->prog_if == 0x20;
	if (!intel_ehci)
		return;
	u32 usb3 = pci_read32(d, 0xdc), usb2 = pci_read32(d, 0xd4);

	pci_write32(d, 0xd8, usb3);
	pci_write32(d, 0xd0, usb2);
	pr_info("xhci: %s: Intel PCH: ports moved from the EHCI (USB3_PSSEN 0x%x, XUSB2PR 0x%x)\n",
		d->name, pci_read32(d, 0xd8), pci_read32(d, 0xd0));
}

static bool start(struct xhci *hc, struct pci_dev *d)
{
	hc->pci = d;
	hc->cap = pci_map_bar(d, 0);
	if (!hc->cap)
		return give_up(hc, "BAR 0 cannot be mapped");
	pci_enable(d, false);
	hc->bar_size = d->bar[0].size;
	if (!xhci_regs_in_bar(hc->bar_size, 0, 0x20))
		return give_up(hc, "BAR 0 is too small for its capability registers");
	u32 cap0 = rd(hc->cap, CAP_CAPLENGTH);
	u32 rtsoff = rd(hc->cap, CAP_RTSOFF) & ~0x1fu, dboff = rd(hc->cap, CAP_DBOFF) & ~0x3u;
	hc->version = (u16)(cap0 >> 16);
	hc->hcsparams1 = rd(hc->cap, CAP_HCSPARAMS1);
	hc->hcsparams2 = rd(hc->cap, CAP_HCSPARAMS2);
	hc->hccparams1 = rd(hc->cap, CAP_HCCPARAMS1);
	if (cap0 == 0xffffffff || (cap0 & 0xff) < 0x20)
		return give_up(hc, "its capability registers read as garbage");
	hc->max_slots = MIN(hc->hcsparams1 & 0xff, (u32)XHCI_MAX_SLOTS);
	hc->nports = MIN(hc->hcsparams1 >> 24, (u32)XHCI_MAX_PORTS);
	const char *outside = xhci_layout_error(hc->bar_size, cap0 & 0xff, rtsoff, dboff,
						hc->nports, hc->max_slots);
	if (outside) {
		static char why[96];
		snprintf(why, sizeof(why), "its %s reach past BAR 0 (0x%llx bytes)", outside,
			 hc->bar_size);
		return give_up(hc, why);
	}
	hc->op = hc->cap + (cap0 & 0xff);
	hc->rt = hc->cap + rtsoff;
	hc->db = (u32 __iomem *)(hc->cap + dboff);
	hc->ctx_size = hc->hccparams1 & HCC_CSZ ? 64 : 32;
	hc->nscratch = ((hc->hcsparams2 >> 21) & 0x1f) << 5 | hc->hcsparams2 >> 27;
	hc->ac64 = hc->hccparams1 & HCC_AC64;
	if (hc->nscratch > XHCI_MAX_SCRATCH)
		return give_up(hc, "it asks for more scratchpad buffers than we give");
	u64 mask = hc->ac64 && !ac64_off ? DMA_BIT_MASK(64) : DMA_BIT_MASK(32);
	d->dma.dma_mask = d->dma.coherent_dma_mask = mask;

	if (!extended_caps(hc))                 /* the firmware hands the controller over */
		return false;
	intel_switch_ports(d);                  /* then, as Linux's quirk, before the halt */
	if (!halt_and_reset(hc) || !setup_memory(hc))
		return false;
	wr(hc->op, OP_USBCMD, CMD_RUN);
	if (!wait_reg(hc->op, OP_USBSTS, STS_HCH, 0, HALT_TIMEOUT_NS))
		return give_up(hc, "it did not start running within 100 ms");
	pr_info("xhci: %s xHCI %x.%x, %u ports, %u slots, %u-byte contexts, %u scratchpad "
		"buffers, %s DMA%s\n", d->name, hc->version >> 8, (hc->version >> 4) & 0xf,
		hc->nports, hc->max_slots, hc->ctx_size, hc->nscratch,
		mask == DMA_BIT_MASK(64) ? "64-bit" : "32-bit",
		hc->ac64 && ac64_off ? " (xhci.ac64=off)" : "");
	/* ports without power (HCCPARAMS1.PPC: software switches them) get it now */
	for (u32 port = 1; port <= hc->nports; port++) {
		u32 v = xhci_portsc(hc, port);
		if (!(v & PORT_PP))
			wr(hc->op, OP_PORTSC(port), (v & (PORT_RO | PORT_RWS)) | PORT_PP);
	}
	/* a port just powered or reset by HCRST needs a moment to show its device (USB 2.0 7.1.7.3: 100 ms debounce) */
	u64 settle = ktime_ns() + 100ull * 1000 * 1000;
	while (ktime_ns() < settle)
		udelay(1000);
	scan_ports(hc);
	return true;
}

void xhci_init(void)
{
	if (probed)
		return;
	probed = true;
	for (u32 i = 0; pci_dev_at(i); i++) {
		struct pci_dev *d = pci_dev_at(i);
		if (d->class_code != 0x0c || d->subclass != 0x03 || d->prog_if != 0x30)
			continue;
		nfound++;
		if (xhci_off) {
			pr_info("xhci: %s: left alone (xhci=off)\n", d->name);
			continue;
		}
		if (ncontrollers == XHCI_MAX_CONTROLLERS)
			continue;
		struct xhci *hc = &controllers[ncontrollers];
		if (start(hc, d))
			ncontrollers++;
		else
			*hc = (struct xhci){ 0 };       /* its DMA memory stays with the device: it may still use it */
	}
}

u32 xhci_count(void)
{
	return ncontrollers;
}

bool xhci_disabled(void)
{
	return xhci_off;
}

bool xhci_ac64_forced_off(void)
{
	return ac64_off;
}

u32 xhci_found(void)
{
	return nfound;
}

#ifdef HOST_TEST
void xhci_host_forget(void)
{
	memset(controllers, 0, sizeof(controllers));
	memset(devices, 0, sizeof(devices));
	ncontrollers = nfound = ndevices = 0;
	probe_failure = NULL;
	probed = false;
}
#endif

struct xhci *xhci_get(u32 index)
{
	return index < ncontrollers ? &controllers[index] : NULL;
}

const char *xhci_probe_failure(void)
{
	return probe_failure;
}
