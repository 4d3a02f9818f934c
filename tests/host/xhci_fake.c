// SPDX-License-Identifier: MIT
/*
 * xhci_fake.c - the lying xHCI controller of xhci_fake.h, and the two PCI
 * calls drivers/xhci.c makes that tests/host/virtio_fake.c does not
 * answer (pci_dev_at(), pci_write32()), and udelay(), the controller's
 * tick. Coherent DMA memory, the clock and the other PCI calls are
 * virtio_fake.c's: a bus address is a host address, and pci_map_bar() of
 * this function gives its BAR.
 *
 * What stays true: the controller reads a TRB only when its cycle bit
 * says the driver gave it (xHCI 1.2, 4.9.2), follows link TRBs and their
 * Toggle Cycle, and never writes an event over one the driver has not
 * consumed (ERDP); honest answers leave in the order their TRBs were
 * fetched; every lie carries XFAKE_LIE_CODE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "pci.h"
#include "time.h"
#include "virtio_fake.h"
#include "xhci.h"
#include "xhci_fake.h"

/* The BAR: capability registers, operational at CAPLENGTH, runtime, doorbells. */
#define CAPLENGTH   0x20
#define OFF_OP      CAPLENGTH
#define OFF_RT      0x1000
#define OFF_DB      0x2000
#define BAR_SIZE    0x3000

#define OP_USBCMD   0x00
#define OP_USBSTS   0x04
#define OP_PAGESIZE 0x08
#define OP_CRCR     0x18
#define OP_PORTSC(n) (0x400 + 0x10 * ((n) - 1))
#define RT_ERSTBA   0x30
#define RT_ERDP     0x38


#define NOWHERE     0xdeadbee0ull       /* a bus address in no ring */
#define QUEUE_MAX   512

struct xfake_faults xfake_faults;
struct xfake_counts xfake_counts;
struct xfake_port xfake_ports[XFAKE_PORTS + 1];

/* A ring the controller consumes: where it reads next, and its cycle state. */
struct ring {
	u64 deq;
	bool ccs, set;
	u64 last;               /* the TRB its last honest answer named */
	bool halted, stopped;   /* an endpoint's state besides Running (xHCI 1.2, 4.8.3) */
};

struct pending {
	struct xhci_trb ev;
	u64 due;                /* the tick it is posted at */
};

static struct {
	bool up;
	struct pci_dev pci;
	u8 *bar;
	bool running;
	bool enabled[XFAKE_PORTS + 1], prc[XFAKE_PORTS + 1];
	struct ring cmd;
	u64 ev_base;
	u32 ev_n, ev_enq;
	bool ev_pcs;
	struct {
		bool used;
		struct ring ep[32];
	} slot[XFAKE_SLOTS + 1];
	struct pending q[QUEUE_MAX];
	u32 qn;
	u64 tick, last_due;
} x;

static void *host(u64 bus) { return (void *)(uintptr_t)bus; }
static u32 reg(u32 off) { u32 v; memcpy(&v, x.bar + off, 4); return v; }
static void set_reg(u32 off, u32 v) { memcpy(x.bar + off, &v, 4); }

static bool given(const struct ring *r);

/* --- the event ring ------------------------------------------------------- */

static u32 event_deq(void)
{
	u64 erdp = (reg(OFF_RT + RT_ERDP) & ~0xfu) | (u64)reg(OFF_RT + RT_ERDP + 4) << 32;

	if (erdp < x.ev_base || erdp >= x.ev_base + 16ull * x.ev_n)
		return 0;
	return (u32)((erdp - x.ev_base) / 16);
}

static void post_now(const struct xhci_trb *ev)
{
	if (!x.ev_n)
		return;
	if ((x.ev_enq + 1) % x.ev_n == event_deq()) {
		xfake_counts.events_dropped++;
		return;
	}
	struct xhci_trb *e = host(x.ev_base + 16ull * x.ev_enq);
	e->param = ev->param;
	e->status = ev->status;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->control = (ev->control & ~TRB_CYCLE) | (x.ev_pcs ? TRB_CYCLE : 0);
	if (++x.ev_enq == x.ev_n) {
		x.ev_enq = 0;
		x.ev_pcs = !x.ev_pcs;
	}
}

/* Post every queued event that is due, oldest first. */
static void post_due(void)
{
	u32 kept = 0;

	for (u32 i = 0; i < x.qn; i++) {
		if (x.q[i].due <= x.tick)
			post_now(&x.q[i].ev);
		else
			x.q[kept++] = x.q[i];
	}
	x.qn = kept;
}

static void queue(const struct xhci_trb *ev, u64 due)
{
	if (x.qn == QUEUE_MAX) {
		xfake_counts.events_dropped++;
		return;
	}
	x.q[x.qn++] = (struct pending){ *ev, due };
}

static struct xhci_trb event(u64 trb, u32 status, u32 type, u32 slot, u32 dci)
{
	return (struct xhci_trb){ trb, status, TRB_TYPE(type) | dci << 16 | slot << 24 };
}

/*
 * Answer the TRB at trb of ring r: first the lie the faults (or the
 * script) ask for, at once; then, unless silent, the honest event after
 * answer_delay ticks, in order with every earlier answer; then the
 * duplicate, if asked.
 */
static void answer(struct ring *r, u64 trb, u32 status, u32 type, u32 slot, u32 dci)
{
	bool is_cmd = type == TRB_CMD_COMPLETION;
	u32 lie = is_cmd ? xfake_faults.cmd_lie : xfake_faults.xfer_lie;
	bool silent = is_cmd ? xfake_faults.cmd_silent : xfake_faults.xfer_silent;
	bool twice = xfake_faults.twice;
	u64 delay = xfake_faults.answer_delay;

	if (xfake_faults.script) {
		u8 b = xfake_faults.script();
		lie = b % XLIE_COUNT;
		silent |= (b >> 3 & 3) == 3;
		twice |= b >> 5 & 1;
		delay += (u64)(b >> 6) * 300;   /* up to 900 ticks: past a 500 ms timeout */
	}
	if ((lie == XLIE_WRONG_SLOT && is_cmd) || (lie == XLIE_NEXT && given(r)))
		lie = XLIE_NOWHERE;     /* the next TRB was given: naming it would be the truth */
	if (lie != XLIE_NONE) {
		u64 at = lie == XLIE_STALE && r->last ? r->last : lie == XLIE_NEXT ? r->deq :
			 lie == XLIE_WRONG_SLOT ? trb : NOWHERE;
		u32 lie_slot = lie == XLIE_WRONG_SLOT ? slot % XFAKE_SLOTS + 1 : slot;
		struct xhci_trb ev = event(at, (u32)XFAKE_LIE_CODE << 24, type, lie_slot, dci);
		post_now(&ev);
		xfake_counts.lies++;
	}
	if (silent)
		return;
	u64 due = x.tick + delay > x.last_due ? x.tick + delay : x.last_due;
	struct xhci_trb ev = event(trb, status, type, slot, dci);
	queue(&ev, due);
	if (twice) {
		ev.status = (u32)XFAKE_LIE_CODE << 24;
		queue(&ev, due);
		xfake_counts.lies++;
	}
	x.last_due = due;
	r->last = trb;
}

/* --- the command ring ----------------------------------------------------- */

/* The next TRB the controller may take from ring r, following links; NULL if none. */
static struct xhci_trb *fetch(struct ring *r)
{
	for (u32 links = 0; r->set && links < 4; links++) {
		struct xhci_trb *t = host(r->deq);
		u32 c = __atomic_load_n(&t->control, __ATOMIC_ACQUIRE);
		if ((bool)(c & TRB_CYCLE) != r->ccs)
			return NULL;
		if (TRB_TYPE_OF(c) != TRB_LINK)
			return t;
		r->deq = t->param & ~0xfull;
		if (c & TRB_TOGGLE_CYCLE)
			r->ccs = !r->ccs;
	}
	return NULL;
}

/* Has the driver given the controller the next TRB of r? */
static bool given(const struct ring *r)
{
	struct ring probe = *r;

	return fetch(&probe) != NULL;
}

static u32 *ctx(u64 base, u32 i) { return (u32 *)host(base + 32ull * i); }

static u64 *dcbaa(void)
{
	return host(reg(OFF_OP + 0x30) | (u64)reg(OFF_OP + 0x34) << 32);
}

/* Take an endpoint's ring from an input context's endpoint context; copy it to the output context. */
static void take_endpoint(u32 slot, u32 dci, const u32 *ep)
{
	struct ring *r = &x.slot[slot].ep[dci];

	*r = (struct ring){ .deq = (ep[2] & ~0xfu) | (u64)ep[3] << 32, .ccs = ep[2] & 1, .set = true };
	u64 out = dcbaa()[slot];
	if (out)
		memcpy(ctx(out, dci), ep, 20);
}

static u8 command(u32 type, u32 slot, u32 dci, u64 param, u32 *slot_out)
{
	bool valid = slot >= 1 && slot <= XFAKE_SLOTS && x.slot[slot].used;
	struct ring *ep = valid && dci >= 1 && dci < 32 ? &x.slot[slot].ep[dci] : NULL;

	xfake_counts.commands[type & 63]++;
	*slot_out = slot;
	switch (type) {
	case TRB_ENABLE_SLOT:
		if (xfake_faults.enable_slot_id) {
			*slot_out = xfake_faults.enable_slot_id;
			return CC_SUCCESS;
		}
		for (u32 s = 1; s <= XFAKE_SLOTS; s++) {
			if (!x.slot[s].used) {
				memset(&x.slot[s], 0, sizeof(x.slot[s]));
				x.slot[s].used = true;
				xfake_counts.slots_enabled++;
				*slot_out = s;
				return CC_SUCCESS;
			}
		}
		*slot_out = 0;
		return XCC_NO_SLOTS;
	case TRB_DISABLE_SLOT:
		if (!valid)
			return XCC_SLOT_NOT_ENABLED;
		x.slot[slot].used = false;
		xfake_counts.slots_enabled--;
		xfake_counts.disabled[slot]++;
		return CC_SUCCESS;
	case TRB_ADDRESS_DEVICE: {
		if (!valid)
			return XCC_SLOT_NOT_ENABLED;
		u32 port = ctx(param, 1)[1] >> 16 & 0xff;
		if (port < 32 && xfake_faults.address_fail_ports & 1u << port)
			return XCC_TRANSACTION_ERROR;
		u64 out = dcbaa()[slot];
		if (out)
			memcpy(ctx(out, 0), ctx(param, 1), 32);
		take_endpoint(slot, 1, ctx(param, 2));
		return CC_SUCCESS;
	}
	case TRB_CONFIGURE_EP:
		if (!valid)
			return XCC_SLOT_NOT_ENABLED;
		for (u32 dci = 2; dci < 32; dci++)
			if (ctx(param, 0)[1] & 1u << dci)
				take_endpoint(slot, dci, ctx(param, 1 + dci));
		return CC_SUCCESS;
	case TRB_EVALUATE_CTX:
		return valid ? CC_SUCCESS : XCC_SLOT_NOT_ENABLED;
	case TRB_RESET_EP:
		if (!ep || !ep->set || !ep->halted)
			return valid ? XCC_CONTEXT_STATE : XCC_SLOT_NOT_ENABLED;
		ep->halted = false;
		ep->stopped = true;
		return CC_SUCCESS;
	case TRB_SET_TR_DEQUEUE:
		if (!ep || !ep->set || !ep->stopped)
			return valid ? XCC_CONTEXT_STATE : XCC_SLOT_NOT_ENABLED;
		ep->deq = param & ~0xfull;
		ep->ccs = param & 1;
		ep->stopped = false;            /* runs again at its doorbell */
		return CC_SUCCESS;
	case TRB_NOOP_CMD:
		return CC_SUCCESS;
	}
	return 5;                               /* TRB Error */
}

static void run_commands(void)
{
	struct xhci_trb *t;

	if (!x.running || xfake_faults.frozen)
		return;
	while ((t = fetch(&x.cmd))) {
		u64 at = x.cmd.deq;
		u32 slot_out;
		u8 code = command(TRB_TYPE_OF(t->control), t->control >> 24, t->control >> 16 & 0x1f,
				  t->param, &slot_out);
		if (TRB_TYPE_OF(t->control) == TRB_RESET_EP && code == CC_SUCCESS &&
		    t->control & TRB_TSP)
			xfake_counts.soft_resets++;
		x.cmd.deq += 16;
		answer(&x.cmd, at, (u32)code << 24, TRB_CMD_COMPLETION, slot_out, 0);
	}
}

/* --- the devices and their endpoints -------------------------------------- */

/* A control request to the device behind port: the bytes it returns into data (len at most). */
static u32 control(u32 port, u64 setup, u8 *data, u32 len)
{
	const struct xfake_port *p = &xfake_ports[port];
	u8 reqtype = (u8)setup, req = (u8)(setup >> 8);
	u16 value = (u16)(setup >> 16);
	const u8 *from = NULL;
	u32 n = 0;

	if (reqtype == 0x02 && req == 1 && value == 0)
		xfake_counts.clear_halts++;     /* CLEAR_FEATURE(ENDPOINT_HALT) */
	if (reqtype == 0x80 && req == 6 && value >> 8 == 1) {
		from = p->device;
		n = sizeof(p->device);
	} else if (reqtype == 0x80 && req == 6 && value >> 8 == 2) {
		from = p->config;
		n = p->config_len;
	}
	n = n < len ? n : len;
	if (from && data)
		memcpy(data, from, n);
	return n;
}

static u32 port_of(u32 slot)
{
	u64 out = dcbaa()[slot];

	return out ? (ctx(out, 0)[1] >> 16 & 0xff) : 0;
}

/*
 * An interrupt read (a normal TRB) on (slot, dci): made to fail, it halts
 * the endpoint, its dequeue pointer left on the TRB; with a report
 * waiting, the report; else false: the device NAKs and the TRB stays.
 */
static bool interrupt_read(struct ring *r, const struct xhci_trb *t, u32 slot, u32 dci)
{
	u32 port = port_of(slot);
	struct xfake_port *p = port >= 1 && port <= XFAKE_PORTS ? &xfake_ports[port] : NULL;
	u32 len = t->status & 0x1ffff;

	if (xfake_faults.interrupt_fails) {
		xfake_faults.interrupt_fails--;
		r->halted = true;
		u8 code = xfake_faults.interrupt_code ? xfake_faults.interrupt_code : XCC_STALL;
		answer(r, r->deq, (u32)code << 24 | len, TRB_TRANSFER_EVENT, slot, dci);
		return true;
	}
	if (!p || !p->reports_waiting)
		return false;
	u32 n = len < sizeof(p->report) ? len : sizeof(p->report);
	memcpy(host(t->param), p->report, n);
	p->reports_waiting--;
	xfake_counts.reports++;
	u64 at = r->deq;
	r->deq += 16;
	answer(r, at, (u32)CC_SUCCESS << 24 | (len - n), TRB_TRANSFER_EVENT, slot, dci);
	return true;
}

/* Take the TDs on (slot, dci): a control TD is setup, data, status; a normal TRB waits for a report. */
static void run_endpoint(u32 slot, u32 dci)
{
	struct ring *r = &x.slot[slot].ep[dci];
	u64 setup = 0, data = 0;
	u32 len = 0;
	struct xhci_trb *t;

	if (!x.running || xfake_faults.frozen || slot > XFAKE_SLOTS || !x.slot[slot].used || dci > 31)
		return;
	while (!r->halted && !r->stopped && (t = fetch(r))) {
		u32 type = TRB_TYPE_OF(t->control);
		u64 at = r->deq;
		if (type == TRB_NORMAL) {
			if (!interrupt_read(r, t, slot, dci))
				return;         /* no report: the device NAKs, the TRB stays */
			continue;
		}
		r->deq += 16;
		if (type == TRB_SETUP) {
			setup = t->param;
			data = 0;
			len = 0;
		} else if (type == TRB_DATA) {
			data = t->param;
			len = t->status & 0x1ffff;
		} else if (type == TRB_STATUS) {
			u32 port = port_of(slot);
			u32 got = port >= 1 && port <= XFAKE_PORTS ?
				  control(port, setup, data ? host(data) : NULL, len) : 0;
			u8 code = xfake_faults.xfer_code ? xfake_faults.xfer_code : CC_SUCCESS;
			xfake_counts.transfers++;
			answer(r, at, (u32)code << 24 | ((len - got + xfake_faults.residual_extra) & 0xffffff),
			       TRB_TRANSFER_EVENT, slot, dci);
		}
	}
}

void xfake_kick(void)
{
	run_commands();
	for (u32 s = 1; s <= XFAKE_SLOTS; s++)
		for (u32 dci = 1; dci < 32; dci++)
			if (x.slot[s].used && x.slot[s].ep[dci].set)
				run_endpoint(s, dci);
	post_due();
}

/* --- its registers -------------------------------------------------------- */

static bool mine(const volatile void *addr, u32 *off)
{
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)x.bar;

	if (!x.up || a < b || a >= b + BAR_SIZE)
		return false;
	*off = (u32)(a - b);
	return true;
}

static u32 portsc(u32 n)
{
	const struct xfake_port *p = &xfake_ports[n];

	return (p->connected ? 1u | (u32)p->speed << 10 : 0) | (x.enabled[n] ? 1u << 1 : 0) |
	       1u << 9 | (x.prc[n] ? 1u << 21 : 0);
}

static bool reg_read(const volatile void *addr, u32 size, u64 *v)
{
	u32 off;

	if (!mine(addr, &off))
		return false;
	if (off == OFF_OP + OP_USBSTS) {
		*v = x.running ? 0 : 1;         /* HCHalted; never CNR, never HSE */
		return true;
	}
	if (off >= OFF_OP + OP_PORTSC(1) && off < OFF_OP + OP_PORTSC(XFAKE_PORTS + 1) && !(off & 0xf)) {
		*v = portsc((off - OFF_OP - OP_PORTSC(1)) / 0x10 + 1);
		return true;
	}
	return false;                           /* plain memory */
}

static void reset(void)
{
	x.running = false;
	x.cmd = (struct ring){ 0 };
	x.ev_n = 0;
	x.qn = 0;
	memset(x.slot, 0, sizeof(x.slot));
	memset(x.enabled, 0, sizeof(x.enabled));
	memset(x.prc, 0, sizeof(x.prc));
	xfake_counts.slots_enabled = 0;
}

static bool reg_write(volatile void *addr, u32 size, u64 v)
{
	u32 off;

	if (!mine(addr, &off))
		return false;
	if (off == OFF_OP + OP_USBCMD) {
		if (v & 2) {                    /* HCRST: done at once */
			reset();
			set_reg(off, 0);
			return true;
		}
		x.running = v & 1;
		return false;
	}
	if (off == OFF_OP + OP_USBSTS)
		return true;                    /* write 1 to clear: nothing to clear */
	if (off >= OFF_OP + OP_PORTSC(1) && off < OFF_OP + OP_PORTSC(XFAKE_PORTS + 1) && !(off & 0xf)) {
		u32 n = (off - OFF_OP - OP_PORTSC(1)) / 0x10 + 1;
		if (v & 1u << 21)
			x.prc[n] = false;
		if ((v & 1u << 4) && xfake_ports[n].connected)
			x.enabled[n] = x.prc[n] = true;         /* the reset ends at once */
		return true;
	}
	if (off == OFF_OP + OP_CRCR + 4) {      /* the high half, written last: the ring's start */
		set_reg(off, (u32)v);
		u32 lo = reg(OFF_OP + OP_CRCR);
		x.cmd = (struct ring){ .deq = (lo & ~0x3fu) | v << 32, .ccs = lo & 1, .set = true };
		return true;
	}
	if (off == OFF_RT + RT_ERSTBA + 4) {    /* ERSTBA's high half: the event ring starts */
		set_reg(off, (u32)v);
		const u64 *erst = host(reg(OFF_RT + RT_ERSTBA) | v << 32);
		x.ev_base = erst[0];
		x.ev_n = (u32)(erst[1] & 0xffff);
		x.ev_enq = 0;
		x.ev_pcs = true;
		return true;
	}
	if (off >= OFF_DB && off < OFF_DB + 4 * (XFAKE_SLOTS + 1)) {
		u32 slot = (off - OFF_DB) / 4;
		if (slot == 0)
			run_commands();
		else
			run_endpoint(slot, (u32)v & 0xff);
		post_due();
		return true;
	}
	return false;
}

static const struct host_mmio_hook hook = { reg_read, reg_write };

/* --- making and unmaking it ----------------------------------------------- */

static const u8 keyboard_device[18] = {
	18, 1, 0x00, 0x02, 0, 0, 0, 64, 0x34, 0x12, 0x78, 0x56, 0x00, 0x01, 0, 0, 0, 1,
};

static const u8 keyboard_config[34] = {
	9, 2, 34, 0, 1, 1, 0, 0xa0, 50,                 /* configuration 1 */
	9, 4, 0, 0, 1, 3, 1, 1, 0,                      /* interface 0: HID boot keyboard */
	9, 0x21, 0x11, 0x01, 0, 1, 0x22, 63, 0,         /* HID */
	7, 5, 0x81, 3, 8, 0, 10,                        /* endpoint 0x81, interrupt, 8 bytes */
};

void xfake_start(u32 nconnected)
{
	xfake_stop();
	x.up = true;
	x.bar = calloc(1, BAR_SIZE);
	set_reg(0x00, 0x0100u << 16 | CAPLENGTH);
	set_reg(0x04, XFAKE_SLOTS | 1u << 8 | (u32)XFAKE_PORTS << 24);
	set_reg(0x08, 0);                       /* no scratchpad */
	set_reg(0x10, 1);                       /* AC64; 32-byte contexts; no extended capabilities */
	set_reg(0x14, OFF_DB);
	set_reg(0x18, OFF_RT);
	set_reg(OFF_OP + OP_PAGESIZE, 1);
	for (u32 n = 1; n <= XFAKE_PORTS; n++) {
		struct xfake_port *p = &xfake_ports[n];
		*p = (struct xfake_port){ .connected = n <= nconnected, .speed = 3,
					  .config_len = sizeof(keyboard_config) };
		memcpy(p->device, keyboard_device, sizeof(keyboard_device));
		memcpy(p->config, keyboard_config, sizeof(keyboard_config));
	}
	x.pci = (struct pci_dev){ .vendor = 0x1b36, .device = 0x000d, .slot = 5, .class_code = 0x0c,
				  .subclass = 0x03, .prog_if = 0x30 };
	strcpy(x.pci.name, "00:05.0");
	x.pci.bar[0] = (struct pci_bar){ .base = (u64)(uintptr_t)x.bar, .size = BAR_SIZE };
	x.pci.dma = (struct device){ .name = x.pci.name };
	host_mmio_hook = &hook;
	host_log_clear();
}

void xfake_stop(void)
{
	fake_stop();                            /* virtio_fake.c: the coherent memory, the clock */
	xhci_host_forget();
	free(x.bar);
	memset(&x, 0, sizeof(x));
	memset(&xfake_faults, 0, sizeof(xfake_faults));
	memset(&xfake_counts, 0, sizeof(xfake_counts));
}

/* --- what the driver calls ------------------------------------------------ */

struct pci_dev *pci_dev_at(u32 index)
{
	return x.up && index == 0 ? &x.pci : NULL;
}

void pci_write32(const struct pci_dev *d, u32 off, u32 v) { }

/* A tick of the controller: what is due is posted. */
void udelay(u64 us)
{
	if (++xfake_counts.udelays > XFAKE_UDELAYS_MAX) {
		fprintf(stderr, "xhci_fake: udelay() %u times: a wait that never ends\n",
			XFAKE_UDELAYS_MAX);
		abort();
	}
	x.tick++;
	if (x.up)
		post_due();
}
