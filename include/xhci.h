/* SPDX-License-Identifier: MIT */
/*
 * xhci.h - the USB 3 host controller (xHCI), found through PCI class
 * 0x0c/0x03/0x30, and the USB devices on its root ports.
 *
 * The controller and the driver talk through rings of 16-byte TRBs in
 * memory (xHCI 1.2, 4.9). Each ring has a producer and a consumer; which
 * TRBs are valid is told by a cycle bit, not by an index register:
 *
 *   command ring (ours -> controller)     transfer ring, one per endpoint
 *   +------+------+-----+------+------+   (the same shape)
 *   | TRB  | TRB  | ... | TRB  | LINK |--> back to TRB 0; the link has
 *   +------+------+-----+------+------+    Toggle Cycle set, so each lap
 *     ^ enqueue, producer cycle state      the producer's cycle flips
 *
 *   event ring (controller -> ours): one segment, listed in a one-entry
 *   Event Ring Segment Table (ERST); no link TRB, the controller wraps
 *   by itself and flips its cycle; we read while a TRB's cycle bit equals
 *   our consumer cycle state and tell it how far we got through ERDP.
 *
 * A TRB written by the producer belongs to the consumer once its cycle bit
 * equals the consumer's cycle state; the producer writes the cycle bit
 * last. The pure index/cycle arithmetic is below (host-tested).
 *
 * Every piece of memory the controller reads or writes (DCBAA, scratchpad,
 * rings, ERST, contexts, transfer buffers) comes from dma_alloc_coherent()
 * with the controller's masks, which follow HCCPARAMS1.AC64: 64 bits if
 * set, else 32 (or 32 with xhci.ac64=off). Each allocation is listed in
 * struct xhci's dma[] table so the tests can check it.
 *
 * The driver polls: no interrupt is enabled. xhci_poll() consumes the
 * event ring; commands and control transfers wait for their event with a
 * deadline; the keyboard polls from the shell's input loop.
 */
#ifndef XHCI_H
#define XHCI_H

#include "dma.h"
#include "types.h"

#define XHCI_MAX_CONTROLLERS 4
#define XHCI_MAX_SLOTS       16         /* device slots enabled (CONFIG.MaxSlotsEn at most) */
#define XHCI_MAX_PORTS       32         /* root ports looked at */
#define XHCI_CMD_TRBS        16         /* command ring, link TRB included: small, so the tests wrap it */
#define XHCI_EVENT_TRBS      64         /* event ring segment */
#define XHCI_XFER_TRBS       16         /* each transfer ring, link TRB included */
#define XHCI_MAX_DMA         (8 + 4 * XHCI_MAX_SLOTS + 64)  /* allocations tracked */
#define XHCI_MAX_SCRATCH     60         /* scratchpad buffers we are willing to give */

/* TRB types (xHCI 1.2, 6.4.6) */
#define TRB_NORMAL         1
#define TRB_SETUP          2
#define TRB_DATA           3
#define TRB_STATUS         4
#define TRB_LINK           6
#define TRB_ENABLE_SLOT    9
#define TRB_DISABLE_SLOT   10
#define TRB_ADDRESS_DEVICE 11
#define TRB_CONFIGURE_EP   12
#define TRB_EVALUATE_CTX   13
#define TRB_RESET_EP       14
#define TRB_SET_TR_DEQUEUE 16
#define TRB_NOOP_CMD       23
#define TRB_TRANSFER_EVENT 32
#define TRB_CMD_COMPLETION 33
#define TRB_PORT_STATUS    34

#define TRB_CYCLE          (1u << 0)
#define TRB_TOGGLE_CYCLE   (1u << 1)    /* link TRB: flip the cycle state */
#define TRB_ISP            (1u << 2)
#define TRB_IOC            (1u << 5)
#define TRB_IDT            (1u << 6)
#define TRB_TSP            (1u << 9)    /* Reset Endpoint: Transfer State Preserve (soft) */
#define TRB_EVENT_DATA     (1u << 2)    /* a transfer event's ED: its parameter is no TRB pointer */
#define TRB_TYPE(t)        ((u32)(t) << 10)
#define TRB_TYPE_OF(c)     (((c) >> 10) & 0x3f)
#define TRB_DIR_IN         (1u << 16)

/* Completion codes (xHCI 1.2, 6.4.5) */
#define CC_SUCCESS         1
#define CC_BABBLE          3
#define CC_TRANSACTION_ERR 4
#define CC_STALL           6
#define CC_SPLIT_ERR       18
#define CC_SHORT_PACKET    13

struct xhci_trb {
	u64 param;
	u32 status;
	u32 control;
};

/* --- ring arithmetic (pure) ------------------------------------------------------- */

/*
 * A producer's place in a ring of n TRBs whose last is a link TRB back to
 * the first. After filling TRB enq, xhci_ring_advance() moves on; when the
 * next slot is the link TRB it returns true, and the caller must hand the
 * link to the consumer with the *old* cycle (before the flip done here):
 * the link's Toggle Cycle makes the consumer flip too.
 */
struct xhci_ring_pos {
	u32 enq;                /* next TRB to fill, 0..n-2 */
	u32 n;                  /* TRBs in the ring, link included */
	bool cycle;             /* producer cycle state: written into each TRB */
};

static inline bool xhci_ring_advance(struct xhci_ring_pos *p)
{
	p->enq++;
	if (p->enq < p->n - 1)
		return false;
	p->enq = 0;
	p->cycle = !p->cycle;
	return true;
}

/*
 * What the controller owns on a producer ring of n TRBs (link included):
 * the TRBs from deq, the oldest it has not reported done, up to enq. The
 * producer never writes over them: it writes only while fewer than n - 2
 * are owned (so enq never comes round to deq), and refuses otherwise. A
 * controller that stopped fetching after a timeout keeps its TRBs until
 * an event says it has passed them (xHCI 1.2, 4.9.2: the ring is full
 * when the enqueue pointer would reach the dequeue pointer).
 */
static inline u32 xhci_ring_owned(u32 deq, u32 enq, u32 n)
{
	return (enq + (n - 1) - deq) % (n - 1);
}

static inline bool xhci_ring_has_room(u32 deq, u32 enq, u32 n, u32 need)
{
	return xhci_ring_owned(deq, enq, n) + need <= n - 2;
}

/* Is TRB i one of those from `from` up to enq (not included)? */
static inline bool xhci_ring_between(u32 from, u32 enq, u32 n, u32 i)
{
	return (i + (n - 1) - from) % (n - 1) < (enq + (n - 1) - from) % (n - 1);
}

/*
 * The consumer side of the event ring: TRB deq is valid when its cycle bit
 * equals ccs; after the last TRB of the segment the controller wraps and
 * flips, so do we.
 */
struct xhci_event_pos {
	u32 deq, n;
	bool ccs;               /* consumer cycle state, starts true */
};

static inline bool xhci_event_valid(const struct xhci_event_pos *p, u32 control)
{
	return (bool)(control & TRB_CYCLE) == p->ccs;
}

static inline void xhci_event_advance(struct xhci_event_pos *p)
{
	if (++p->deq == p->n) {
		p->deq = 0;
		p->ccs = !p->ccs;
	}
}

/*
 * Does a register block of len bytes at off lie inside a BAR of bar_size
 * bytes? The capability registers say where the other blocks are; a
 * controller that lies (or a BAR sized wrong) could point past the BAR,
 * and a write there would land in whatever the direct map holds next.
 */
static inline bool xhci_regs_in_bar(u64 bar_size, u64 off, u64 len)
{
	return off <= bar_size && len <= bar_size - off;
}

/*
 * The register blocks the capability registers place (xHCI 1.2, 5.3:
 * CAPLENGTH, RTSOFF and DBOFF are offsets from BAR 0), checked against
 * BAR 0's size before any is touched: the operational registers with a
 * port register set per port used (5.4.8: 0x400 + 0x10 per port), the
 * runtime registers through interrupter 0 (5.5.2: 0x20 + 0x20), the
 * controller's doorbell and one per slot used (5.6). NULL if all fit,
 * else the name of the first that does not.
 */
static inline const char *xhci_layout_error(u64 bar_size, u32 caplength, u32 rtsoff, u32 dboff,
					    u32 nports, u32 max_slots)
{
	if (!xhci_regs_in_bar(bar_size, caplength, 0x400 + 0x10 * (u64)nports))
		return "operational registers";
	if (!xhci_regs_in_bar(bar_size, rtsoff, 0x40))
		return "runtime registers";
	if (!xhci_regs_in_bar(bar_size, dboff, 4 * ((u64)max_slots + 1)))
		return "doorbells";
	return NULL;
}

/*
 * EP0's packet size from a device descriptor's bMaxPacketSize0, or 0 if
 * the value is impossible at that speed: at SuperSpeed and above it is an
 * exponent and must be 9 (512 bytes, USB 3.2 9.6.1); below, a size of 8,
 * 16, 32 or 64 (USB 2.0 9.6.1). A shift by the device's byte as given
 * would be undefined for 32 and more.
 */
static inline u16 xhci_ep0_max_packet_from(u32 speed, u8 b)
{
	if (speed >= 4)
		return b == 9 ? 512 : 0;
	return b == 8 || b == 16 || b == 32 || b == 64 ? b : 0;
}

/*
 * The endpoint context's Interval field (xHCI 1.2, 6.2.3.6): a period of
 * 2^Interval x 125 us. Full/low-speed interrupt endpoints give bInterval in
 * ms (1..255); high and super speed give 2^(bInterval-1) microframes.
 */
static inline u32 xhci_interval(u32 speed, u32 binterval)
{
	u32 e = 3;

	if (speed >= 3)                         /* high or super speed */
		return binterval >= 1 && binterval <= 16 ? binterval - 1 : 3;
	if (!binterval)
		binterval = 1;
	while (e < 10 && (8u << (e - 2)) <= binterval * 8u)   /* 2^(e+1) <= 8*bInterval */
		e++;
	return e;
}

/* --- contexts (pure) ------------------------------------------------------------- */

/*
 * Context i of a context block whose contexts are ctx_size bytes (32, or 64
 * with HCCPARAMS1.CSZ; xHCI 1.2, 6.2). A device context is slot (0), then
 * endpoint DCI 1..31; an input context is the input control context (0),
 * then the slot (1), then DCI n at n + 1.
 */
static inline u32 *xhci_ctx(void *base, u32 ctx_size, u32 i)
{
	return (u32 *)((u8 *)base + i * ctx_size);
}

#define XHCI_EP_CONTROL      4          /* endpoint context EP Type (6.2.3) */
#define XHCI_EP_INTERRUPT_IN 7

/* An endpoint context: type, max packet size, Interval, the ring's dequeue pointer with DCS 1. */
static inline void xhci_ep_ctx(u32 *ep, u32 type, u32 mps, u32 interval, u64 ring, u32 avg_trb)
{
	ep[0] = interval << 16;
	ep[1] = 3u << 1 | type << 3 | mps << 16;        /* CErr 3: retry an error three times */
	ep[2] = (u32)ring | 1;
	ep[3] = (u32)(ring >> 32);
	ep[4] = avg_trb | (type == XHCI_EP_INTERRUPT_IN ? mps << 16 : 0);   /* Max ESIT Payload */
}

/*
 * The input context of Address Device (4.3.3): add the slot and EP0; the
 * slot has the port's speed, one context entry, the root port; EP0 is a
 * control endpoint of max packet mps on ring ep0_ring. in is zeroed first
 * (33 contexts).
 */
static inline void xhci_input_address(void *in, u32 ctx_size, u32 speed, u32 port, u64 ep0_ring,
				      u32 mps)
{
	__builtin_memset(in, 0, 33 * ctx_size);
	xhci_ctx(in, ctx_size, 0)[1] = 1u << 0 | 1u << 1;
	u32 *slot = xhci_ctx(in, ctx_size, 1);
	slot[0] = speed << 20 | 1u << 27;               /* route string 0, speed, context entries 1 */
	slot[1] = port << 16;                           /* root hub port number */
	xhci_ep_ctx(xhci_ctx(in, ctx_size, 2), XHCI_EP_CONTROL, mps, 0, ep0_ring, 8);
}

/*
 * The input context of Configure Endpoint (4.3.5) for one interrupt IN
 * endpoint at DCI dci: add the slot (copied from the device context out,
 * its context entries raised to dci) and the endpoint.
 */
static inline void xhci_input_interrupt_in(void *in, const void *out, u32 ctx_size, u32 dci,
					   u32 mps, u32 interval, u64 ring)
{
	__builtin_memset(in, 0, 33 * ctx_size);
	xhci_ctx(in, ctx_size, 0)[1] = 1u << 0 | 1u << dci;
	u32 *slot = xhci_ctx(in, ctx_size, 1);
	__builtin_memcpy(slot, xhci_ctx((void *)out, ctx_size, 0), 16);
	u32 entries = (slot[0] >> 27) > dci ? slot[0] >> 27 : dci;
	slot[0] = (slot[0] & ~(0x1fu << 27)) | entries << 27;
	slot[3] = 0;                                    /* slot state and address: the controller's */
	xhci_ep_ctx(xhci_ctx(in, ctx_size, 1 + dci), XHCI_EP_INTERRUPT_IN, mps, interval, ring, 8);
}

struct pci_dev;

struct xhci_ring {
	struct xhci_trb *trbs;
	dma_addr_t dma;
	struct xhci_ring_pos pos;
	u32 deq;                /* the oldest TRB the controller owns; deq == pos.enq: none */
	u32 td;                 /* the first TRB of the request waited for (it ends at pos.enq) */
};

/* What the last event for one endpoint said. */
struct xhci_ep_event {
	u32 count;              /* events seen so far */
	u8 code;                /* completion code */
	u32 residual;           /* bytes not transferred */
};

/* USB standard device descriptor (USB 2.0, 9.6.1) */
struct usb_device_desc {
	u8 bLength, bDescriptorType;
	u16 bcdUSB;
	u8 bDeviceClass, bDeviceSubClass, bDeviceProtocol, bMaxPacketSize0;
	u16 idVendor, idProduct, bcdDevice;
	u8 iManufacturer, iProduct, iSerialNumber, bNumConfigurations;
} __packed;

#define USB_CONFIG_MAX 256              /* configuration descriptor bytes kept */

struct usb_device {
	struct xhci *hc;
	u8 slot, port;          /* port: 1-based root port number */
	u8 speed;               /* PORTSC speed: 1 full, 2 low, 3 high, 4 super */
	void *out_ctx, *in_ctx; /* the device context (the controller's) and the input context */
	dma_addr_t out_ctx_dma, in_ctx_dma;
	struct xhci_ring ep0;
	struct xhci_ring ep_in;         /* one interrupt IN endpoint, once configured */
	u8 ep_in_dci;                   /* its device context index, 0 until configured */
	u32 ep_in_failures;             /* its reads that failed in a row (usb_interrupt_next()) */
	u32 ep_in_recoveries;           /* times it was halted and taken back (Reset Endpoint) */
	u8 *buf;                        /* a page for control data and interrupt reports */
	dma_addr_t buf_dma;
	struct xhci_ep_event ev[32];    /* per DCI */
	struct usb_device_desc desc;
	u8 config[USB_CONFIG_MAX];
	u32 config_len;
};

struct xhci_dma {
	void *va;
	dma_addr_t dma;
	u64 size;
	const char *what;
};

struct xhci {
	struct pci_dev *pci;
	u8 __iomem *cap, *op, *rt;     /* registers: readl() and writel() (io.h) */
	u32 __iomem *db;
	u16 version;
	u32 hcsparams1, hcsparams2, hccparams1;
	u32 max_slots, nports, ctx_size, nscratch;
	u64 bar_size;           /* BAR 0's: every register offset lies below it */
	bool ac64;              /* the controller says it takes 64-bit addresses */
	u8 port_major[XHCI_MAX_PORTS + 1];      /* 2 or 3 from the protocol capability, 0 unknown */
	u64 *dcbaa;
	dma_addr_t dcbaa_dma;
	struct xhci_ring cmd;
	struct xhci_trb *events;
	dma_addr_t events_dma;
	struct xhci_event_pos evpos;
	struct {                /* the last command completion */
		u32 count;
		u64 trb;
		u8 code, slot;
	} cmd_done;
	u32 port_resets_ok, port_resets_failed;
	u32 stray_events;       /* events naming no TRB the controller owns: ignored */
	u32 late_events;        /* completions of requests that had timed out: retired, ignored */
	struct usb_device *slots[XHCI_MAX_SLOTS + 1];
	struct xhci_dma dma[XHCI_MAX_DMA];
	u32 ndma;
};

/* Probe every xHCI on the PCI bus, take each over and enumerate its root ports. Once. */
void xhci_init(void);

/* Controllers found and running; the index-th or NULL. Why a present one failed, or NULL. */
u32 xhci_count(void);
struct xhci *xhci_get(u32 index);
const char *xhci_probe_failure(void);
u32 xhci_found(void);           /* xHCI functions on the PCI bus, usable or not */
bool xhci_ac64_forced_off(void);        /* xhci.ac64=off was given */
bool xhci_disabled(void);               /* xhci=off was given */

/* Consume every pending event; returns how many. */
u32 xhci_poll(struct xhci *hc);

/* Issue a command TRB and wait (bounded) for its completion; the completion code, 0 on timeout. */
u8 xhci_command(struct xhci *hc, u64 param, u32 control, u8 *slot_out);

/*
 * A control transfer on EP0: setup (+ data of len bytes into or from
 * dev->buf) + status. The completion code (CC_SUCCESS...), 0 on timeout.
 * A short data stage is not an error (no ISP): the status stage's code is
 * returned; descriptors carry their own lengths.
 */
u8 usb_control(struct usb_device *dev, u8 reqtype, u8 req, u16 value, u16 index, u16 len);

/* Configure the interrupt IN endpoint (address ep, e.g. 0x81) and SET_CONFIGURATION. */
bool usb_configure_interrupt_in(struct usb_device *dev, u8 config_value, u8 ep, u16 mps,
				u8 binterval);

/* Queue one read of len bytes (into dev->buf + off) on the interrupt IN endpoint. */
void usb_interrupt_queue(struct usb_device *dev, u32 off, u32 len);

/*
 * After the interrupt IN endpoint's last event: if it failed in a way
 * that halts the endpoint (a STALL, a transaction error, babble), take
 * the endpoint back (Reset Endpoint, Set TR Dequeue Pointer, and for a
 * STALL the device's CLEAR_FEATURE(ENDPOINT_HALT)); then queue the next
 * read, as usb_interrupt_queue(). After XHCI_EP_FAILURES failures in a
 * row it gives up, says so once, and queues nothing: false.
 */
#define XHCI_EP_FAILURES 8
bool usb_interrupt_next(struct usb_device *dev, u32 off, u32 len);

/* Root port n's protocol, "usb2", "usb3" or "usb?" */
const char *xhci_port_protocol(const struct xhci *hc, u32 port);

/* PORTSC of root port n (1-based). */
u32 xhci_portsc(const struct xhci *hc, u32 port);

#ifdef HOST_TEST
/* Forget every controller and device, so that a host test can probe again (tests/host/xhci_fake.c). */
void xhci_host_forget(void);
#endif
#endif
