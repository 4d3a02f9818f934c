/* SPDX-License-Identifier: MIT */
/*
 * virtio_fake.h - a lying virtio-blk PCI function for the host tests of
 * drivers/virtio.c and drivers/virtio_blk.c (tests/host/virtio_fake.c).
 *
 * The function has one memory BAR holding the four structures its vendor
 * capabilities point at (common configuration, notification, ISR status,
 * device configuration: virtio 1.1, 4.1.4), a configuration space with
 * those capabilities, and a disk of FAKE_SECTORS sectors. Its registers
 * are plain memory that io.h's accessors reach through host_mmio_hook:
 * the model answers a write as a device would (status 0 resets it, a
 * doorbell makes it take the avail ring). DMA memory comes from malloc
 * and a bus address is the host address, so the model reads the rings
 * and buffers the driver gave it exactly where they are, and ASan sees
 * it touch anything the driver freed.
 *
 * Time is the model's: ktime_ns() advances FAKE_TICK_NS a call, and a
 * wait for a completion lets the device run, delivers its interrupt, and
 * either returns at once or lets the whole timeout pass.
 *
 * The lies, each a field of struct fake_faults, set by a test at any time.
 */
#ifndef VIRTIO_FAKE_H
#define VIRTIO_FAKE_H

#include "types.h"

#define FAKE_SECTORS  64
#define FAKE_TICK_NS  (1000UL * 1000)           /* what one ktime_ns() call lets pass */

struct fake_faults {
	bool stall;             /* take requests from the avail ring, never finish them */
	bool refuse_features_ok;        /* clear FEATURES_OK when the driver sets it */
	bool queue_size_zero;           /* queue 0 does not exist */
	bool bad_notify_off;            /* queue_notify_off far outside the notify capability */
	bool needs_reset;               /* on every doorbell: set DEVICE_NEEDS_RESET and interrupt */
	bool never_reset;               /* a write of 0 to device_status is never acknowledged */
	bool generation_moves;          /* config_generation changes on every read */
	bool complete_twice;            /* every used element is written twice */
	bool garbage_used;              /* used elements name a descriptor never given */
	int fail_coherent;              /* > 0: the n-th next coherent allocation fails */
};

/* How the function looks when it is made: capability lengths, MSI-X. */
struct fake_shape {
	bool msix;              /* the driver gets an MSI-X vector (else it polls) */
	u32 common_len;         /* 0: 0x38, the virtio 1.1 structure */
	u32 device_len;         /* 0: 8, the capacity alone; the BAR ends with it */
};

struct fake_counts {
	u32 resets;             /* writes of 0 to device_status */
	u32 resets_in_irq;      /* ...while the driver's interrupt handler ran */
	u32 notifies;           /* doorbell writes */
	u32 interrupts;         /* the handler was called */
	u32 requests;           /* chains the device took from the avail ring */
	u32 generation_reads;
	u32 coherent_live;      /* coherent allocations not freed */
	u32 mapped;             /* streaming mappings not unmapped */
	u32 yields_in_a_row;
};

extern struct fake_faults fake_faults;
extern struct fake_counts fake_counts;

/* Make the function (forgetting any earlier one and the driver's state). */
void fake_start(const struct fake_shape *shape);

/* Free everything, as if the machine went away: at the end of each case. */
void fake_stop(void);

/* The device reads its avail ring and writes its used ring once more, as DMA would. */
void fake_touch_rings(void);

/*
 * The device writes a used element of its own choosing (id, len) at the
 * next used index, or at index + skip, then interrupts: what a fuzzer
 * plays. Nothing if the queue is not enabled.
 */
void fake_write_used(u32 id, u32 len, u16 skip);

/* Time passes for the device: it takes its avail ring and interrupts. */
void fake_run(void);

/* Bus mastering is on in the command register. */
bool fake_bus_master(void);

u8 fake_status(void);

#endif
