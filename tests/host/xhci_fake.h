/* SPDX-License-Identifier: MIT */
/*
 * xhci_fake.h - a lying xHCI controller for the host tests of
 * drivers/xhci.c (tests/host/xhci_fake.c).
 *
 * The controller is a PCI function (class 0x0c/0x03/0x30) with one BAR
 * holding the capability, operational, runtime and doorbell registers.
 * io.h's accessors reach them through host_mmio_hook; the model answers
 * as xHCI 1.2 says: HCRST resets it, R/S runs it, a port reset enables a
 * port, a doorbell makes it fetch TRBs. It fetches the command ring and
 * the transfer rings by their cycle bits, as the driver left them in
 * memory (a bus address is a host address: the coherent allocations of
 * tests/host/virtio_fake.c), and answers by writing events into the
 * event ring the driver gave it through the ERST.
 *
 * Behind each root port sits a USB device that answers GET_DESCRIPTOR
 * (device, configuration) with the bytes in struct xfake_port and takes
 * every other control request; its interrupt IN endpoint answers a read
 * with the port's report while reports_waiting lasts, and NAKs after.
 * An interrupt read made to fail (interrupt_fails) halts its endpoint,
 * as xHCI 1.2, 4.10.2 says: the controller then fetches nothing from it
 * until Reset Endpoint (Halted -> Stopped) and Set TR Dequeue Pointer
 * (Stopped, the new dequeue pointer and cycle state), and answers either
 * command out of turn with a Context State Error.
 *
 * An honest answer is posted answer_delay udelay() calls after the
 * doorbell, in order. A lie is posted at once and carries
 * XFAKE_LIE_CODE, so a request the driver completes with that code was
 * completed by an event that was not its own.
 *
 * Time: ktime_ns() is virtio_fake.c's (FAKE_TICK_NS a call); udelay()
 * is the controller's tick: it posts what is due.
 */
#ifndef XHCI_FAKE_H
#define XHCI_FAKE_H

#include "types.h"

#define XFAKE_PORTS     4
#define XFAKE_SLOTS     3               /* HCSPARAMS1.MaxSlots: fewer than ports, so a leak shows */
#define XFAKE_LIE_CODE  200             /* the completion code of every lie (a vendor code) */
#define XFAKE_UDELAYS_MAX 2000000       /* more udelay() calls in one run: a wait that never ends */

/* An event the fake may post besides (before) an honest answer. */
enum xfake_lie {
	XLIE_NONE,
	XLIE_STALE,             /* the TRB the last answer named: a duplicate, or late */
	XLIE_NOWHERE,           /* an address in no ring */
	XLIE_NEXT,              /* the ring's next TRB, not yet given to the controller */
	XLIE_WRONG_SLOT,        /* the request's own TRB, another slot's id (transfers) */
	XLIE_COUNT
};

struct xfake_faults {
	bool frozen;            /* the controller fetches no TRB (a stuck command or endpoint) */
	bool cmd_silent;        /* commands are taken and never answered */
	bool xfer_silent;       /* transfers are taken and never answered */
	bool twice;             /* every honest answer is posted a second time (as a lie) */
	u8 cmd_lie, xfer_lie;   /* enum xfake_lie: posted before every honest answer */
	u32 answer_delay;       /* udelay() calls between a doorbell and its answers */
	u32 address_fail_ports; /* bit n: Address Device for root port n fails (transaction error) */
	u8 enable_slot_id;      /* != 0: Enable Slot names this slot id */
	u8 xfer_code;           /* != 0: control transfers answer this completion code */
	u32 residual_extra;     /* added to every transfer event's residual: a wrong length */
	u32 interrupt_fails;    /* the next n interrupt reads fail with interrupt_code, and halt */
	u8 interrupt_code;      /* their completion code (XCC_STALL if 0) */
	/* fuzzing: when set, each answer asks it for a byte saying how to lie (0: honestly) */
	u8 (*script)(void);
};

struct xfake_counts {
	u32 commands[64];               /* command TRBs taken, by type */
	u32 disabled[XFAKE_SLOTS + 1];  /* Disable Slot, by slot id */
	u32 slots_enabled;              /* slots enabled now */
	u32 transfers;                  /* TDs taken from transfer rings */
	u32 lies;                       /* lies posted */
	u32 events_dropped;             /* the event ring was full */
	u32 udelays;
	u32 reports;                    /* interrupt reads answered with a report */
	u32 clear_halts;                /* CLEAR_FEATURE(ENDPOINT_HALT) requests taken */
	u32 soft_resets;                /* Reset Endpoint commands with Transfer State Preserve */
};

/* A USB device behind a root port: what it answers. */
struct xfake_port {
	bool connected;
	u8 speed;                       /* PORTSC speed: 1 full, 2 low, 3 high, 4 super */
	u8 device[18];                  /* its device descriptor */
	u8 config[64];                  /* its configuration descriptor */
	u32 config_len;
	u8 report[8];                   /* what its next interrupt read returns ... */
	u32 reports_waiting;            /* ... this many times; none: it NAKs */
};

extern struct xfake_faults xfake_faults;
extern struct xfake_counts xfake_counts;
extern struct xfake_port xfake_ports[XFAKE_PORTS + 1];  /* 1-based, as root ports */

/*
 * Make the controller with a high-speed keyboard connected to each of
 * ports 1..nconnected (forgetting any earlier one, the driver's state,
 * and every fault); the test may change xfake_ports before xhci_init().
 */
void xfake_start(u32 nconnected);

/* Free everything, as if the machine went away: at the end of each case. */
void xfake_stop(void);

/* The controller looks at all its rings again (after frozen is cleared). */
void xfake_kick(void);

/* The completion codes of xHCI 1.2, 6.4.5 the tests use. */
#define XCC_TRANSACTION_ERROR 4
#define XCC_STALL             6
#define XCC_NO_SLOTS          9
#define XCC_SLOT_NOT_ENABLED  11
#define XCC_CONTEXT_STATE     19

#endif
