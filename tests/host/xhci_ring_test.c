// SPDX-License-Identifier: MIT
/*
 * xhci_ring_test.c - the xHCI ring arithmetic of xhci.h: a producer's
 * enqueue index and cycle state across the link TRB, the event ring's
 * consumer, the endpoint Interval encoding, and the input contexts at
 * both context sizes (32 bytes, 64 with CSZ).
 */
#include <string.h>

#include "ktest.h"
#include "xhci.h"

static void the_producer_flips_its_cycle_at_the_link(struct ktest *t)
{
	struct xhci_ring_pos p = { .enq = 0, .n = 4, .cycle = true };   /* TRBs 0-2, link at 3 */
	u32 links = 0;

	for (u32 i = 0; i < 3 * 3; i++) {
		bool was = p.cycle;
		u32 at = p.enq;
		EXPECT_EQ(t, at, i % 3);                        /* never the link's slot */
		EXPECT_EQ(t, was, (i / 3) % 2 == 0);            /* lap 0 true, lap 1 false, ... */
		if (xhci_ring_advance(&p)) {
			links++;
			EXPECT_EQ(t, at, 2);                    /* only after the last TRB */
			EXPECT_EQ(t, p.cycle, !was);
		}
	}
	EXPECT_EQ(t, links, 3);
	EXPECT_EQ(t, p.enq, 0);
	EXPECT_EQ(t, p.cycle, false);                           /* three flips */
}

static void the_event_consumer_follows_the_controller(struct ktest *t)
{
	struct xhci_event_pos p = { .deq = 0, .n = 3, .ccs = true };

	EXPECT_TRUE(t, xhci_event_valid(&p, TRB_CYCLE));
	EXPECT_FALSE(t, xhci_event_valid(&p, 0));              /* a zeroed ring: nothing yet */
	for (u32 i = 0; i < 3; i++)
		xhci_event_advance(&p);
	EXPECT_EQ(t, p.deq, 0);
	EXPECT_FALSE(t, p.ccs);
	EXPECT_FALSE(t, xhci_event_valid(&p, TRB_CYCLE));      /* last lap's event: stale */
	EXPECT_TRUE(t, xhci_event_valid(&p, 0));
}

static void the_interval_is_a_power_of_two_of_microframes(struct ktest *t)
{
	EXPECT_EQ(t, xhci_interval(1, 1), 3);           /* full speed 1 ms = 8 x 125 us */
	EXPECT_EQ(t, xhci_interval(1, 10), 6);          /* 10 ms: 8 ms, the power of two below */
	EXPECT_EQ(t, xhci_interval(2, 8), 6);           /* low speed 8 ms */
	EXPECT_EQ(t, xhci_interval(1, 255), 10);        /* 255 ms: 128 ms at most */
	EXPECT_EQ(t, xhci_interval(1, 0), 3);
	EXPECT_EQ(t, xhci_interval(3, 4), 3);           /* high speed: 2^(4-1) microframes */
	EXPECT_EQ(t, xhci_interval(3, 7), 6);
	EXPECT_EQ(t, xhci_interval(4, 1), 0);
}

/* Address Device's input context, at both context sizes: the fields land where CSZ puts them. */
static void the_input_context_follows_the_context_size(struct ktest *t)
{
	static u32 in[33 * 64 / 4];

	for (u32 size = 32; size <= 64; size += 32) {
		u32 *w = in;
		u32 slot = size / 4, ep0 = 2 * size / 4;        /* in words */
		memset(in, 0xee, sizeof(in));
		xhci_input_address(in, size, 3, 5, 0x123456789a0ull, 64);
		EXPECT_EQ(t, w[1], 3);                          /* add: slot and EP0 */
		EXPECT_EQ(t, w[slot] >> 20 & 0xf, 3);           /* speed */
		EXPECT_EQ(t, w[slot] >> 27, 1);                 /* one context entry */
		EXPECT_EQ(t, w[slot + 1] >> 16 & 0xff, 5);      /* root port */
		EXPECT_EQ(t, w[ep0 + 1] >> 3 & 7, XHCI_EP_CONTROL);
		EXPECT_EQ(t, w[ep0 + 1] >> 16, 64);             /* max packet size */
		EXPECT_EQ(t, w[ep0 + 2], 0x456789a0u | 1);      /* dequeue pointer, DCS */
		EXPECT_EQ(t, w[ep0 + 3], 0x123);
		EXPECT_EQ(t, w[33 * size / 4 - 1], 0);          /* all 33 contexts cleared */
		if (size == 64)
			EXPECT_EQ(t, w[8 + 1], 0);              /* bytes 32-63: still the control context */
	}
}

/* QEMU's xHCI: a 16 KiB BAR, CAPLENGTH 0x40, runtime at 0x1000, doorbells at 0x2000. */
static void register_blocks_must_lie_inside_bar_0(struct ktest *t)
{
	EXPECT_TRUE(t, xhci_layout_error(0x4000, 0x40, 0x1000, 0x2000, 8, 64) == NULL);
	EXPECT_STREQ(t, xhci_layout_error(0x4000, 0x40, 0x4000, 0x2000, 8, 64),
		     "runtime registers");
	EXPECT_STREQ(t, xhci_layout_error(0x4000, 0x40, 0x1000, 0x3f00, 8, 64), "doorbells");
	EXPECT_STREQ(t, xhci_layout_error(0x4000, 0x40, 0x1000, 0xfffffffc, 8, 64), "doorbells");
	EXPECT_STREQ(t, xhci_layout_error(0x400, 0x40, 0x100, 0x200, 8, 8),
		     "operational registers");
	EXPECT_TRUE(t, xhci_layout_error(0x4000, 0x40, 0x3fc0, 0x3000, 8, 255) == NULL);
	EXPECT_STREQ(t, xhci_layout_error(0x4000, 0x40, 0x3fe0, 0x3000, 8, 255),
		     "runtime registers");                  /* interrupter 0 ends at 0x4020 */
	EXPECT_TRUE(t, xhci_regs_in_bar(0x4000, 0x3ff0, 16));
	EXPECT_FALSE(t, xhci_regs_in_bar(0x4000, 0x3ff4, 16));
	EXPECT_FALSE(t, xhci_regs_in_bar(0x4000, ~0ull - 4, 16));
}

/* bMaxPacketSize0: an exponent at SuperSpeed, a size below; anything else is refused. */
static void ep0_packet_size_comes_only_from_possible_values(struct ktest *t)
{
	EXPECT_EQ(t, xhci_ep0_max_packet_from(4, 9), 512);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(5, 9), 512);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(4, 64), 0);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(4, 32), 0);      /* 1u << 32: undefined before */
	EXPECT_EQ(t, xhci_ep0_max_packet_from(4, 255), 0);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(4, 6), 0);        /* 64 bytes: not at SuperSpeed */
	EXPECT_EQ(t, xhci_ep0_max_packet_from(3, 64), 64);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(2, 8), 8);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(1, 32), 32);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(3, 9), 0);
	EXPECT_EQ(t, xhci_ep0_max_packet_from(1, 0), 0);
}

static void configure_endpoint_adds_the_endpoint_at_its_dci(struct ktest *t)
{
	static u32 in[33 * 64 / 4], out[32 * 64 / 4];

	for (u32 size = 32; size <= 64; size += 32) {
		u32 dci = 3;                                    /* endpoint 1 IN */
		u32 *ep = in + (1 + dci) * size / 4, *slot = in + size / 4;
		memset(out, 0, sizeof(out));
		out[0] = 3u << 20 | 1u << 27;                   /* the device's slot: high speed, 1 entry */
		out[1] = 5u << 16;
		out[3] = 2u << 27 | 1;                          /* addressed, address 1 */
		xhci_input_interrupt_in(in, out, size, dci, 8, xhci_interval(3, 4), 0x5000);
		EXPECT_EQ(t, in[1], 1u | 1u << dci);
		EXPECT_EQ(t, slot[0] >> 27, dci);               /* context entries up to the endpoint */
		EXPECT_EQ(t, slot[0] >> 20 & 0xf, 3);
		EXPECT_EQ(t, slot[1], 5u << 16);
		EXPECT_EQ(t, slot[3], 0);
		EXPECT_EQ(t, ep[1] >> 3 & 7, XHCI_EP_INTERRUPT_IN);
		EXPECT_EQ(t, ep[0] >> 16 & 0xff, 3);
		EXPECT_EQ(t, ep[2], 0x5001);
		EXPECT_EQ(t, ep[4] >> 16, 8);                   /* max ESIT payload: one packet */
	}
}

static const struct ktest_case xhci_ring_cases[] = {
	KTEST(the_producer_flips_its_cycle_at_the_link),
	KTEST(the_event_consumer_follows_the_controller),
	KTEST(the_interval_is_a_power_of_two_of_microframes),
	KTEST(the_input_context_follows_the_context_size),
	KTEST(configure_endpoint_adds_the_endpoint_at_its_dci),
	KTEST(register_blocks_must_lie_inside_bar_0),
	KTEST(ep0_packet_size_comes_only_from_possible_values),
	{},
};
KTEST_SUITE(xhci_ring, xhci_ring_cases);
