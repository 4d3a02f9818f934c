/*
 * xhci_ring_test.c - the xHCI ring arithmetic of xhci.h: a producer's
 * enqueue index and cycle state across the link TRB, the event ring's
 * consumer, and the endpoint Interval encoding.
 */
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

static const struct ktest_case xhci_ring_cases[] = {
	KTEST(the_producer_flips_its_cycle_at_the_link),
	KTEST(the_event_consumer_follows_the_controller),
	KTEST(the_interval_is_a_power_of_two_of_microframes),
	{},
};
KTEST_SUITE(xhci_ring, xhci_ring_cases);
