// SPDX-License-Identifier: MIT
/*
 * pci_test.c - configuration-space accesses and MSI/MSI-X setup, checked
 * against a function the test builds itself (see pci.h).
 *
 * A struct fake_fn is 256 bytes of configuration space behind the
 * pci_config_ops hook, with the one rule that matters here from the PCI
 * Local Bus spec (3.0, 6.2.3): the Status register's error bits are
 * "write 1 to clear". A driver that writes Command (16 bits) as part of a
 * 32-bit dword writes Status too, and clears whatever errors it held. The
 * MSI-X table lives in an ordinary kernel buffer posing as the mapped BAR.
 *
 * The last case reads the real functions of whatever machine this is:
 * byte and word reads must agree with the dword they are part of, through
 * ECAM or through ports 0xcf8/0xcfc + (offset & 3).
 */
#include "format.h"
#include "kstring.h"
#include "fbcon.h"
#include "mb2.h"
#include "ktest.h"
#include "pci.h"
#include "percpu.h"
#include "slab.h"

#define STATUS_RW1C 0xf900      /* parity, target/master aborts, SERR, detected parity */
#define CAP_MSI     0x50
#define CAP_MSIX    0x70

struct fake_fn {
	struct pci_dev dev;
	u8 cfg[256];
	u32 writes;             /* how many accesses wrote */
	u32 status_writes;      /* ... and how many of them touched Status */
};

static struct fake_fn *fake_of(const struct pci_dev *d)
{
	return container_of(d, struct fake_fn, dev);
}

static u32 fake_read(const struct pci_dev *d, u32 off, u32 size)
{
	const struct fake_fn *f = fake_of(d);
	u32 v = 0;

	for (u32 i = 0; i < size && off + i < 256; i++)
		v |= (u32)f->cfg[off + i] << (8 * i);
	return v;
}

static void fake_write(const struct pci_dev *d, u32 off, u32 size, u32 v)
{
	struct fake_fn *f = fake_of(d);
	bool status = false;

	f->writes++;
	for (u32 i = 0; i < size && off + i < 256; i++) {
		u8 b = (u8)(v >> (8 * i)), mask;
		switch (off + i) {
		case 0x06: case 0x07:                   /* Status: error bits are RW1C */
			status = true;
			mask = (u8)(STATUS_RW1C >> (8 * (off + i - 6)));
			f->cfg[off + i] &= (u8)~(b & mask);
			break;
		default:
			f->cfg[off + i] = b;
		}
	}
	f->status_writes += status;
}

static const struct pci_config_ops fake_ops = { fake_read, fake_write };

static void put16(struct fake_fn *f, u32 off, u16 v) { f->cfg[off] = (u8)v; f->cfg[off + 1] = (u8)(v >> 8); }
static void put32(struct fake_fn *f, u32 off, u32 v) { put16(f, off, (u16)v); put16(f, off + 2, (u16)(v >> 16)); }
static u16 get16(const struct fake_fn *f, u32 off) { return (u16)(f->cfg[off] | f->cfg[off + 1] << 8); }
static u32 get32(const struct fake_fn *f, u32 off) { return get16(f, off) | (u32)get16(f, off + 2) << 16; }

/*
 * A function with a detected-parity error pending in Status, a 64-bit
 * maskable MSI capability (vector 0 masked, as after reset) and an MSI-X
 * capability of 4 entries at BAR1 + 0x800, enabled by "the firmware".
 */
static struct fake_fn *fake_new(void *msix_table, u64 bar1_size)
{
	struct fake_fn *f = kmalloc(sizeof(*f), 0);

	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->dev.config = &fake_ops;
	kstrlcpy(f->dev.name, "fake", sizeof(f->dev.name));
	put32(f, 0x00, 0x11e81234);
	put16(f, 0x06, 0x8000 | 0x0010);                /* detected parity error, caps list */
	f->cfg[0x34] = CAP_MSI;
	f->cfg[CAP_MSI] = PCI_CAP_MSI;
	f->cfg[CAP_MSI + 1] = CAP_MSIX;
	put16(f, CAP_MSI + 2, 0x0100 | 0x0080);         /* per-vector masking, 64-bit */
	put32(f, CAP_MSI + 16, 1);                      /* vector 0 masked */
	f->cfg[CAP_MSIX] = PCI_CAP_MSIX;
	f->cfg[CAP_MSIX + 1] = 0;
	put16(f, CAP_MSIX + 2, 0x8000 | 3);             /* enabled, 4 entries */
	put32(f, CAP_MSIX + 4, 0x800 | 1);              /* table at BAR1 + 0x800 */
	f->dev.cap_msi = pci_find_cap(&f->dev, PCI_CAP_MSI, 0);
	f->dev.cap_msix = pci_find_cap(&f->dev, PCI_CAP_MSIX, 0);
	f->dev.bar[1] = (struct pci_bar){ .base = 0xfe000000, .size = bar1_size,
					  .va = msix_table ? (u8 __force __iomem *)msix_table - 0x800 : NULL };
	return f;
}

static void capabilities_are_found(struct ktest *t)
{
	struct fake_fn *f = fake_new(NULL, 0);

	ASSERT_TRUE(t, f != NULL);
	EXPECT_EQ(t, f->dev.cap_msi, CAP_MSI);
	EXPECT_EQ(t, f->dev.cap_msix, CAP_MSIX);
	EXPECT_EQ(t, pci_find_cap(&f->dev, PCI_CAP_PCIE, 0), 0);
	f->cfg[CAP_MSIX + 1] = CAP_MSI;                 /* a loop in the list */
	EXPECT_EQ(t, pci_find_cap(&f->dev, PCI_CAP_PCIE, 0), 0);
	f->cfg[CAP_MSIX + 1] = 0x20;                    /* a pointer into the header */
	EXPECT_EQ(t, pci_find_cap(&f->dev, PCI_CAP_PCIE, 0), 0);
	kfree(f);
}

/* Turning on decoding and bus mastering writes Command alone: the error stays for whoever reads it. */
static void command_write_leaves_status_alone(struct ktest *t)
{
	struct fake_fn *f = fake_new(NULL, 0);

	ASSERT_TRUE(t, f != NULL);
	pci_enable(&f->dev, true);
	EXPECT_EQ(t, get16(f, 0x04), 0x0400 | 0x4 | 0x2 | 0x1);
	EXPECT_EQ(t, get16(f, 0x06), 0x8010);           /* the parity error is still recorded */
	EXPECT_EQ(t, f->status_writes, 0);
	kfree(f);
}

static void byte_and_word_writes_touch_only_their_bytes(struct ktest *t)
{
	struct fake_fn *f = fake_new(NULL, 0);

	ASSERT_TRUE(t, f != NULL);
	put32(f, 0x3c, 0x0000010b);                     /* pin A, line 11 */
	pci_write8(&f->dev, 0x3c, 5);
	EXPECT_EQ(t, get32(f, 0x3c), 0x00000105);
	pci_write16(&f->dev, 0x0e, 0xffff);             /* an odd-half word: bytes 0x0e-0x0f */
	EXPECT_EQ(t, pci_read16(&f->dev, 0x0e), 0xffff);
	EXPECT_EQ(t, pci_read16(&f->dev, 0x0c), 0);
	EXPECT_EQ(t, pci_read8(&f->dev, 0x3d), 1);
	EXPECT_EQ(t, f->status_writes, 0);
	kfree(f);
}

/* MSI: address and data written, the masked vector unmasked, MSI-X (left on by firmware) off. */
static void msi_unmasks_its_vector_and_turns_msix_off(struct ktest *t)
{
	struct fake_fn *f = fake_new(NULL, 0);
	u32 cpu = smp_processor_id();

	ASSERT_TRUE(t, f != NULL);
	ASSERT_TRUE(t, pci_enable_msi(&f->dev, 0x61, cpu));
	EXPECT_EQ(t, get32(f, CAP_MSI + 4), 0xfee00000u | (percpu[cpu].apic_id & 0xff) << 12);
	EXPECT_EQ(t, get32(f, CAP_MSI + 8), 0);
	EXPECT_EQ(t, get16(f, CAP_MSI + 12), 0x61);
	EXPECT_EQ(t, get32(f, CAP_MSI + 16) & 1, 0);    /* unmasked */
	EXPECT_EQ(t, get16(f, CAP_MSI + 2) & 0x71, 0x01); /* enabled, one vector */
	EXPECT_EQ(t, get16(f, CAP_MSIX + 2) & 0x8000, 0); /* never both */
	EXPECT_EQ(t, get16(f, 0x06), 0x8010);
	kfree(f);
}

/* A 32-bit MSI capability without masking: data at +8, nothing written at +12. */
static void msi_32bit_layout(struct ktest *t)
{
	struct fake_fn *f = fake_new(NULL, 0);

	ASSERT_TRUE(t, f != NULL);
	put16(f, CAP_MSI + 2, 0);
	put32(f, CAP_MSI + 12, 0xdeadbeef);             /* not a register here */
	ASSERT_TRUE(t, pci_enable_msi(&f->dev, 0x62, smp_processor_id()));
	EXPECT_EQ(t, get16(f, CAP_MSI + 8), 0x62);
	EXPECT_EQ(t, get32(f, CAP_MSI + 12), 0xdeadbeef);
	EXPECT_EQ(t, get16(f, CAP_MSI + 2) & 1, 1);
	kfree(f);
}

/* MSI-X: the entry is written while masked and left unmasked; MSI off; the function's mask-all cleared. */
static void msix_entry_is_written_and_msi_turned_off(struct ktest *t)
{
	u32 *table = kmalloc(4 * 16, 0);
	ASSERT_TRUE(t, table != NULL);
	struct fake_fn *f = fake_new(table, 0x1000);
	u32 cpu = smp_processor_id();

	ASSERT_TRUE(t, f != NULL);
	memset(table, 0, 4 * 16);
	for (u32 i = 0; i < 4; i++)
		table[4 * i + 3] = 1;                   /* masked, as after reset */
	put16(f, CAP_MSI + 2, get16(f, CAP_MSI + 2) | 1);  /* MSI left on */
	put16(f, CAP_MSIX + 2, 0x4000 | 3);             /* function masked, MSI-X off */
	ASSERT_TRUE(t, pci_enable_msix(&f->dev, 2, 0x63, cpu));
	EXPECT_EQ(t, table[8], 0xfee00000u | (percpu[cpu].apic_id & 0xff) << 12);
	EXPECT_EQ(t, table[9], 0);
	EXPECT_EQ(t, table[10], 0x63);
	EXPECT_EQ(t, table[11], 0);                     /* entry 2 unmasked */
	EXPECT_EQ(t, table[7], 1);                      /* the others untouched */
	EXPECT_EQ(t, table[15], 1);
	EXPECT_EQ(t, get16(f, CAP_MSIX + 2) & 0xc000, 0x8000);
	EXPECT_EQ(t, get16(f, CAP_MSI + 2) & 1, 0);
	EXPECT_FALSE(t, pci_enable_msix(&f->dev, 4, 0x63, cpu));        /* no entry 4 */
	kfree(f);
	kfree(table);
}

/* A table the BAR cannot hold is refused before anything is written through it. */
static void msix_table_outside_its_bar_is_refused(struct ktest *t)
{
	u32 *table = kmalloc(4 * 16, 0);
	ASSERT_TRUE(t, table != NULL);
	struct fake_fn *f = fake_new(table, 0x800 + 3 * 16);   /* one entry short */

	ASSERT_TRUE(t, f != NULL);
	memset(table, 0x5a, 4 * 16);
	u32 writes = f->writes;
	EXPECT_FALSE(t, pci_enable_msix(&f->dev, 0, 0x64, smp_processor_id()));
	EXPECT_EQ(t, table[0], 0x5a5a5a5au);
	EXPECT_EQ(t, f->writes, writes);
	put32(f, CAP_MSIX + 4, 0x800 | 6);              /* BIR 6 is reserved */
	EXPECT_FALSE(t, pci_enable_msix(&f->dev, 0, 0x64, smp_processor_id()));
	kfree(f);
	kfree(table);
}

/* On this machine's real functions: narrow reads are slices of the dword. */
static void narrow_reads_agree_with_dwords(struct ktest *t)
{
	u32 checked = 0;

	for (u32 i = 0; pci_dev_at(i); i++) {
		const struct pci_dev *d = pci_dev_at(i);
		for (u32 off = 0; off < 0x40; off += 4) {
			if (off == 0x04)
				continue;               /* Status can change between reads */
			u32 dw = pci_read32(d, off);
			for (u32 b = 0; b < 4; b++)
				EXPECT_EQ(t, pci_read8(d, off + b), (u8)(dw >> (8 * b)));
			EXPECT_EQ(t, pci_read16(d, off), (u16)dw);
			EXPECT_EQ(t, pci_read16(d, off + 2), (u16)(dw >> 16));
		}
		checked++;
	}
	if (!checked)
		KTEST_SKIP(t, "no PCI functions");
	ktest_log(t, "%u functions", checked);
}

/*
 * The display function fbcon draws through, and every host bridge, kept
 * their BARs unsized (pci_sizing()); and fbcon still draws after the scan.
 */
static void framebuffer_and_host_bridges_left_alone(struct ktest *t)
{
	bool fb_owner = false, bridges = false;
	struct fbcon_info info;
	struct pci_dev *d;

	for (u32 i = 0; (d = pci_dev_at(i)); i++) {
		bool host_bridge = d->class_code == 0x06 && d->subclass == 0x00;

		if (host_bridge) {
			bridges = true;
			EXPECT_TRUE(t, d->not_sized != NULL);
		}
		if (d->class_code == 0x03 && d->not_sized)
			fb_owner = true;
		if (d->not_sized)
			for (u32 b = 0; b < 6; b++)
				EXPECT_EQ(t, d->bar[b].size, 0);
	}
	if (!bridges)
		ktest_log(t, "no host bridge on this machine");
	fbcon_get_info(&info);
	if (!boot_info.has_fb || boot_info.fb.type != MB2_FB_RGB || !info.active)
		KTEST_SKIP(t, "no pixel framebuffer");
	EXPECT_TRUE(t, fb_owner);
	u32 col = info.cols - 1, row = info.rows - 1, wrong;

	fbcon_draw_cell(col, row, '@');
	wrong = fbcon_cell_mismatches(col, row, '@');
	fbcon_draw_cell(col, row, ' ');
	EXPECT_EQ(t, wrong, 0);
}

static const struct ktest_case pci_cases[] = {
	KTEST(capabilities_are_found),
	KTEST(command_write_leaves_status_alone),
	KTEST(byte_and_word_writes_touch_only_their_bytes),
	KTEST(msi_unmasks_its_vector_and_turns_msix_off),
	KTEST(msi_32bit_layout),
	KTEST(msix_entry_is_written_and_msi_turned_off),
	KTEST(msix_table_outside_its_bar_is_refused),
	KTEST(narrow_reads_agree_with_dwords),
	KTEST(framebuffer_and_host_bridges_left_alone),
	{},
};
KTEST_SUITE(pci, pci_cases);
