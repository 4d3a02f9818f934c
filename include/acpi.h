/* SPDX-License-Identifier: MIT */
/*
 * acpi.h - the ACPI tables testbed reads, and what it takes from them.
 *
 * Firmware describes the machine in tables reached from the RSDP:
 *
 *   RSDP ("RSD PTR ") --> RSDT (32-bit pointers) or XSDT (64-bit pointers)
 *                           --> FACP (FADT), APIC (MADT), SRAT, SLIT, MCFG, HPET, ...
 *
 * Every table starts with the same 36-byte header; its bytes, header
 * included, sum to 0 (mod 256). The parsers below are pure: each takes one
 * table's bytes and fills a struct, checking every length before reading,
 * so the host tests can feed them QEMU's real tables and corrupt ones
 * (kernel/acpi_parse.c). acpi_init() is the kernel side (kernel/acpi.c): find the RSDP, map and check every table,
 * and run the parsers on the ones we use. A table that fails its checks is
 * reported and skipped, except a bad checksum, which (as in Linux) only
 * warns unless acpi.checksum=strict; more entries than testbed's arrays
 * hold are counted, never a reason to skip a table. ACPI problems are
 * never fatal.
 */
#ifndef ACPI_H
#define ACPI_H

#include "mb2.h"
#include "param.h"
#include "types.h"

struct acpi_header {
	char signature[4];
	u32 length;             /* of the whole table, header included */
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

/* Generic Address Structure: where a register lives. */
struct acpi_gas {
	u8 space_id;            /* ACPI_GAS_MEMORY, ACPI_GAS_IO, ... */
	u8 bit_width;
	u8 bit_offset;
	u8 access_size;
	u64 address;
} __packed;

#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO     1

BUILD_BUG_ON(sizeof(struct acpi_header) != 36);
BUILD_BUG_ON(sizeof(struct acpi_gas) != 12);

/* True if len bytes at p sum to 0 mod 256. */
bool acpi_checksum_ok(const void *p, size_t len);

/*
 * What a table with a bad checksum is worth (acpi.checksum=). Linux only
 * warns ("Incorrect checksum in table [APIC] - 0x12, should be 0x34",
 * ACPICA tbprint.c, acpi_tb_verify_checksum(); ACPI_CHECKSUM_ABORT is
 * FALSE) and uses the table: so does testbed by default. Strict refuses it.
 */
enum acpi_checksum_policy {
	ACPI_CHECKSUM_WARN,     /* warn as Linux does, use the table */
	ACPI_CHECKSUM_STRICT,   /* warn and refuse the table */
};

/*
 * Whether the table t of len bytes (header included) may be used: true if
 * its checksum is good, or bad under ACPI_CHECKSUM_WARN; a bad one is
 * warned about in Linux's words either way.
 */
bool acpi_table_checksum_accepted(const void *t, u32 len, enum acpi_checksum_policy policy);

/*
 * Check an RSDP (signature, the ACPI 1.0 checksum over 20 bytes and, from
 * revision 2, the extended checksum over its length) and return the root
 * table: the XSDT when revision >= 2 and its address is set, else the RSDT.
 * 0 on success, -1 (with a warning) if the RSDP is bad.
 */
int acpi_parse_rsdp(const void *rsdp, size_t len, u64 *root, bool *is_xsdt);

/*
 * Physical memory as the table code sees it: the kernel maps it
 * (memremap), the host tests hand out buffers. Returns len readable bytes
 * at physical address pa, or NULL if there are none.
 */
typedef const void *(*acpi_map_fn)(void *ctx, u64 pa, u32 len);

/* The root table chosen, mapped whole. */
struct acpi_root {
	u64 pa;
	bool is_xsdt;
	const u8 *table;
	u32 len;
};

/*
 * Check the RSDP (as acpi_parse_rsdp() does) and choose the root table:
 * the XSDT when the RSDP names one and it is good (mappable, signature
 * "XSDT", length 36 to ACPI_TABLE_MAX, checksum as the policy wants), else
 * the RSDT under the same checks, with a warning saying why the XSDT was
 * passed over. 0 on success, -1 (warned) if neither is usable.
 */
int acpi_choose_root(const void *rsdp, size_t len, acpi_map_fn map, void *ctx,
		     enum acpi_checksum_policy policy, struct acpi_root *out);

/*
 * The table addresses in an RSDT (4-byte entries) or XSDT (8-byte entries)
 * of len bytes: up to max of them into out; returns how many there are.
 */
u32 acpi_root_entries(const void *root, size_t len, bool is_xsdt, u64 *out, u32 max);

/* --- MADT ("APIC"): CPUs, I/O APICs, interrupt overrides, NMIs ---------- */

struct madt_cpu {
	u32 apic_id;            /* x2APIC entries may exceed 255 */
	u32 acpi_uid;
	bool enabled;           /* flags bit 0: usable now */
	bool online_capable;    /* flags bit 1: may be enabled later */
	bool x2apic;            /* from a type 9 entry */
};

struct madt_ioapic {
	u8 id;
	u32 address;
	u32 gsi_base;
};

struct madt_override {
	u8 bus;
	u8 source_irq;          /* ISA IRQ */
	u32 gsi;                /* where it really arrives */
	u16 flags;              /* polarity (bits 0-1), trigger mode (bits 2-3) */
};

struct madt_nmi {
	u32 acpi_uid;           /* 0xff (type 4) or 0xffffffff (type 10): all CPUs */
	u8 lint;                /* LINT0 or LINT1 */
	u16 flags;
};

struct madt_info {
	u64 lapic_address;      /* type 5 override applied */
	u32 flags;              /* bit 0 PCAT_COMPAT: legacy 8259 PICs present */
	struct madt_cpu cpus[MAX_CPUS];         /* types 0 and 9, in table order */
	u32 ncpus;
	struct madt_ioapic ioapics[MAX_IOAPICS];
	u32 nioapics;
	struct madt_override overrides[MAX_IRQ_OVERRIDES];
	u32 noverrides;
	struct madt_nmi nmis[MAX_LAPIC_NMIS];
	u32 nnmis;
	/* Entries past the limits above: counted and reported, never kept. */
	u32 ncpus_dropped;              /* CPU entries not kept (past MAX_CPUS) */
	u32 ncpus_dropped_enabled;      /* ... of them enabled: CPUs that will not run */
	u32 nioapics_dropped, noverrides_dropped, nnmis_dropped;
};

/*
 * Returns the number of problems found (each warned about), or -1 if
 * unusable. Entries past a limit are not problems: each kind gets one
 * line, "ACPI: MADT: 6 of 1030 CPU entries dropped (MAX_CPUS 1024), 2 of
 * them enabled", and the rest of the table is used.
 */
int acpi_parse_madt(const void *table, size_t len, struct madt_info *out);

/* --- SRAT: which proximity domain (node) each CPU and memory range is in -- */

struct srat_cpu {
	u32 apic_id;
	u32 pxm;                /* proximity domain */
	bool x2apic;            /* from a type 2 entry */
};

struct srat_mem {
	u64 base, end;          /* end exclusive */
	u32 pxm;
	bool hotplug, nonvolatile;
};

struct srat_info {
	struct srat_cpu cpus[MAX_CPUS];         /* enabled entries only */
	u32 ncpus;
	struct srat_mem mem[MAX_MEM_AFFINITY];  /* enabled entries only, length > 0 */
	u32 nmem;
	u32 ncpus_dropped, nmem_dropped;        /* enabled entries past the limits */
};

int acpi_parse_srat(const void *table, size_t len, struct srat_info *out);

/* --- SLIT: relative distances between localities (10 = local) ------------ */

struct slit_info {
	u32 n;                  /* localities, at most MAX_NODES */
	u8 dist[MAX_NODES][MAX_NODES];
};

int acpi_parse_slit(const void *table, size_t len, struct slit_info *out);

/* --- MCFG: PCI Express ECAM windows --------------------------------------- */

struct mcfg_entry {
	u64 base;
	u16 segment;
	u8 bus_start, bus_end;
};

struct mcfg_info {
	struct mcfg_entry e[MAX_MCFG];
	u32 n;
};

int acpi_parse_mcfg(const void *table, size_t len, struct mcfg_info *out);

/* --- HPET and FADT ------------------------------------------------------ */

struct hpet_info {
	u64 address;            /* MMIO base of the event timer block */
	u8 number;
	u16 min_tick;
};

int acpi_parse_hpet(const void *table, size_t len, struct hpet_info *out);

struct fadt_info {
	u16 sci_irq;
	u32 smi_cmd;
	u8 acpi_enable;
	u32 pm1a_cnt;           /* I/O port of PM1a control: sleep (poweroff) */
	struct acpi_gas pm_timer;       /* the ACPI PM timer, 3.579545 MHz */
	bool pm_timer_32bit;    /* flags bit 8 TMR_VAL_EXT; else 24 bits */
	struct acpi_gas reset_reg;      /* write reset_value here to reset */
	u8 reset_value;
	bool reset_supported;   /* flags bit 10 RESET_REG_SUP */
	u64 dsdt;
};

int acpi_parse_fadt(const void *table, size_t len, struct fadt_info *out);

/*
 * SLP_TYPa for S5 from a DSDT of len bytes, header included: the AML of
 * Name(\_S5, Package() {a, ...}) is "_S5_" 0x12 (PackageOp) PkgLength
 * NumElements, then a as BytePrefix (0x0a) value, or ZeroOp (0x00) / OneOp
 * (0x01). A byte scan, not an AML interpreter: enough for the firmware we
 * boot on; -1 if not found.
 */
int acpi_dsdt_s5_type(const void *dsdt, size_t len);

/* --- DMAR (Intel VT-d) and IVRS (AMD-Vi): the IOMMUs firmware describes ------ */

/*
 * DMAR: VT-d specification 3.x, chapter 8. After the header: host address
 * width (u8 @36, the DMA address width minus one), flags (u8 @37), 10
 * reserved bytes, then remapping structures (u16 type, u16 length) from
 * @48. A DRHD (type 0) is one remapping unit: flags (u8 @4, bit 0
 * INCLUDE_PCI_ALL), segment (u16 @6), register base (u64 @8).
 */
#define DMAR_INTR_REMAP         (1u << 0)       /* interrupt remapping supported */
#define DMAR_X2APIC_OPT_OUT     (1u << 1)       /* firmware asks the OS not to use x2APIC */

struct dmar_drhd {
	u64 base;               /* the unit's 4 KiB register page */
	u16 segment;
	bool include_all;       /* every device of its segment not claimed by another unit */
};

struct dmar_info {
	u8 host_address_width;  /* DMA addresses are this + 1 bits wide */
	u8 flags;               /* DMAR_INTR_REMAP, DMAR_X2APIC_OPT_OUT, ... */
	struct dmar_drhd drhd[MAX_DRHD];
	u32 ndrhd, ndrhd_dropped;
	u32 nrmrr;              /* reserved memory regions: DMA the firmware keeps doing */
};

int acpi_parse_dmar(const void *table, size_t len, struct dmar_info *out);

/*
 * IVRS: AMD I/O Virtualization Technology specification (48882), 5.2.
 * After the header: IVinfo (u32 @36), 8 reserved bytes, then blocks (u8
 * type, u8 flags, u16 length) from @48. IVHD blocks (types 0x10, 0x11,
 * 0x40) each describe one IOMMU: base address u64 @8, segment u16 @16;
 * firmware lists the same IOMMU once per IVHD type it supports, so IOMMUs
 * are counted by base address.
 */
struct ivrs_info {
	u32 ivinfo;
	u64 iommu_base[MAX_IVHD];       /* distinct IOMMUs */
	u32 niommus, niommus_dropped;
	u32 nivhd;                      /* IVHD blocks of any type */
};

int acpi_parse_ivrs(const void *table, size_t len, struct ivrs_info *out);

/* --- SPCR: the serial port firmware redirects its console to ------------- */

/*
 * Microsoft's Serial Port Console Redirection Table (revisions 1-4):
 * interface type u8 @36, base address GAS @40, interrupt type @52, IRQ @53,
 * GSI u32 @54, baud rate code @58 (0 as is, 3 9600, 4 19200, 6 57600, 7
 * 115200), parity @59, stop bits @60, flow control @61, terminal @62; 80
 * bytes in all. testbed drives only 16550-compatible UARTs: interface types
 * 0x00 (full 16550), 0x01 (16450 subset) and 0x12 (16550 with its register
 * layout in the GAS), in I/O or memory space.
 */
#define SPCR_16550              0x00
#define SPCR_16450              0x01
#define SPCR_16550_GAS          0x12

struct spcr_info {
	u8 interface_type;
	bool mmio;              /* memory space, else I/O ports */
	u64 address;            /* base port or physical address */
	u8 reg_stride;          /* bytes between registers: 1, 2 or 4 */
	u8 access_bytes;        /* each register read and written as 1, 2 or 4 bytes */
	u32 baud;               /* 0: keep the rate firmware set */
	u32 gsi;
	bool usable;            /* a 16550 in I/O or memory space at a sane address */
};

/* 0 if parsed (usable or not: usable says), -1 if the table is unreadable. */
int acpi_parse_spcr(const void *table, size_t len, struct spcr_info *out);

/* --- kernel side ----------------------------------------------------------- */

/* What acpi_init() found: each has_X says whether table X was there and good. */
struct acpi_facts {
	u64 rsdp;               /* physical addresses, 0 if none */
	u64 root;
	bool is_xsdt;
	bool has_madt, has_srat, has_slit, has_mcfg, has_hpet, has_fadt, has_dmar, has_ivrs;
	bool has_spcr;
	struct madt_info madt;
	struct srat_info srat;
	struct slit_info slit;
	struct mcfg_info mcfg;
	struct hpet_info hpet;
	struct fadt_info fadt;
	struct dmar_info dmar;
	struct ivrs_info ivrs;
	struct spcr_info spcr;
	u32 ntables, nbad;      /* tables listed in the root, and those skipped */
};

extern struct acpi_facts acpi;

/*
 * Find the RSDP (multiboot2 tags: ACPI 2.0 first, then 1.0; on BIOS
 * machines the EBDA and 0xe0000-0xfffff), check the root table and every
 * table it lists, print one line per table as Linux does, and parse
 * FADT, MADT, SRAT, SLIT, MCFG, HPET, DMAR, IVRS and SPCR into `acpi`.
 * Needs vm_init().
 */
void acpi_init(const struct boot_info *bi);

/* Whether acpi_init() uses a table of len bytes: its checksum under acpi.checksum=. */
bool acpi_table_usable(const void *t, u32 len);

/* The first good table with this signature (mapped), or NULL; *len = its length. */
const void *acpi_find(const char *sig, u32 *len);

/* The signatures of the good tables, each once, blank-separated, into buf (cut to size). */
void acpi_table_signatures(char *buf, size_t size);

/* Hex-dump a table (false if there is none with this signature). */
bool acpi_dump(const char *sig);

/* Reset: the FADT's reset register, then the keyboard controller. Returns if both fail. */
void acpi_reboot(void);

/* Power off: SLP_TYP of \_S5 (found in the DSDT) into PM1a control. Returns if it fails. */
void acpi_poweroff(void);

#endif
