// SPDX-License-Identifier: MIT
/*
 * xhci_events.c - fuzz target: the xHCI driver (drivers/xhci.c) against
 * the lying controller of tests/host/xhci_fake.h, whose every answer the
 * input chooses: honest, silent, late (up to 900 ticks, past a 500 ms
 * timeout), twice, or after a lie (a stale TRB, one in no ring, one not
 * yet given, another slot's id). The input also picks how many devices
 * are connected and may replace the first one's device and configuration
 * descriptors with its own bytes. Enumeration runs with these lies, then
 * the input's requests: control transfers, No-Op and Enable Slot
 * commands, a controller that stops fetching and resumes.
 *
 * Oracle: no memory error (ASan, UBSan); no hang: every wait ends by
 * the fake's clock (the fake aborts past XFAKE_UDELAYS_MAX ticks); and
 * no request is completed by an event whose TRB pointer is not its own:
 * every lie carries XFAKE_LIE_CODE, which no request may return and no
 * device's or command's last completion may hold.
 */
#include "fuzz.h"
#include "xhci.h"
#include "xhci_fake.h"

static struct fuzz_input in;

/* How the controller answers next: a byte of the input (0, honest, past its end). */
static u8 next_answer(void)
{
	return (u8)fuzz_take(&in, 1);
}

static void no_lie_completed(struct xhci *hc)
{
	FUZZ_CHECK(hc->cmd_done.code != XFAKE_LIE_CODE);
	for (u32 s = 1; s <= XHCI_MAX_SLOTS; s++)
		if (hc->slots[s])
			for (u32 dci = 0; dci < 32; dci++)
				FUZZ_CHECK(hc->slots[s]->ev[dci].code != XFAKE_LIE_CODE);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	in = (struct fuzz_input){ data, size, 0 };
	fuzz_quiet();
	u8 shape = (u8)fuzz_take(&in, 1);
	xfake_start(shape % XFAKE_PORTS + 1);
	if (shape & 0x80) {                     /* the first device's descriptors, as the input says */
		for (u32 i = 0; i < sizeof(xfake_ports[1].device); i++)
			xfake_ports[1].device[i] = (u8)fuzz_take(&in, 1);
		xfake_ports[1].config_len = (u32)fuzz_take(&in, 1) % (sizeof(xfake_ports[1].config) + 1);
		for (u32 i = 0; i < xfake_ports[1].config_len; i++)
			xfake_ports[1].config[i] = (u8)fuzz_take(&in, 1);
	}
	xfake_faults.residual_extra = (u32)fuzz_take(&in, 1) << 8;
	xfake_faults.script = next_answer;
	xhci_init();
	struct xhci *hc = xhci_get(0);
	FUZZ_CHECK(hc != NULL);                 /* the registers do not lie: it comes up */
	no_lie_completed(hc);
	for (u32 ops = 0; fuzz_more(&in) && ops < 64; ops++) {
		u8 op = (u8)fuzz_take(&in, 1);
		struct usb_device *dev = hc->slots[op >> 4 & 3];
		u8 code = 0;
		switch (op & 3) {
		case 0:
			if (dev)
				code = usb_control(dev, 0x80, 6, (op & 4 ? 2 : 1) << 8, 0, op & 8 ? 64 : 18);
			break;
		case 1:
			code = xhci_command(hc, 0, TRB_TYPE(TRB_NOOP_CMD), NULL);
			break;
		case 2:
			xfake_faults.frozen = !xfake_faults.frozen;
			xfake_kick();
			break;
		case 3: {
			u8 slot = 0;
			code = xhci_command(hc, 0, TRB_TYPE(TRB_ENABLE_SLOT), &slot);
			break;
		}
		}
		FUZZ_CHECK(code != XFAKE_LIE_CODE);
		no_lie_completed(hc);
	}
	xfake_stop();
	return 0;
}
