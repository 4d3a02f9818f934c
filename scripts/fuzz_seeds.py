#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fuzz_seeds.py - write the seed corpora of tests/fuzz/corpus/.

Real firmware tables: boots QEMU's story (SeaBIOS), story-q35 (OVMF) and
wide (SeaBIOS, with a SLIT) with acpi.dump=all and turns the kernel's hex
dumps back into the tables, one file per table and machine. Synthetic
inputs for the rest, shaped like what QEMU and GRUB give: a multiboot2
information block with its tags, an E820 map, command lines, small
programs for the format, swiotlb and virtqueue targets, ioremap ranges,
and the tables QEMU's x86 machines do not build: a DMAR (Intel IOMMU),
an IVRS (AMD IOMMU) and an SPCR (the console's UART, as
scripts/spcr_fixture.py writes it for the spcr topologies).

Run it again when a target's input format changes; libFuzzer grows the
corpora from these (scripts/fuzz.py save).
"""
import os
import re
import struct
import subprocess
import sys

import spcr_fixture

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, 'tests', 'fuzz', 'corpus')
DUMP = re.compile(r'acpi: dump (\w{4}) ([0-9a-f]{4}): ((?:[0-9a-f]{2} ?)+)$')
TABLE_TARGET = {'APIC': 'madt', 'SRAT': 'srat', 'SLIT': 'slit', 'MCFG': 'mcfg',
                'HPET': 'hpet', 'FACP': 'fadt', 'DSDT': 'dsdt_s5'}


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), 'wb') as f:
        f.write(data)


def dumped_tables(topo, firmware):
    """{signature: bytes} from one boot with acpi.dump=all."""
    sys.path.insert(0, os.path.join(ROOT, 'tests'))
    import run
    cmd = [sys.executable, 'tests/run.py', 'run', '--topo', topo, '--firmware', firmware,
           '--args', 'acpi.dump=all story=off shell=off exit=on']
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=300).stdout.decode(
        'utf-8', errors='replace')
    tables = {}
    for line in run.clean_log(out):
        m = DUMP.search(line)
        if m:
            sig, offset = m.group(1), int(m.group(2), 16)
            data = bytes.fromhex(m.group(3))
            blob = tables.setdefault(sig, bytearray())
            if offset == len(blob):
                blob += data
    return tables


def real_tables():
    for topo, firmware in (('story', 'bios'), ('story-q35', 'uefi'), ('wide', 'bios')):
        tables = dumped_tables(topo, firmware)
        for sig, data in tables.items():
            if sig in TABLE_TARGET:
                write(TABLE_TARGET[sig], f'{topo}-{sig.lower()}', bytes(data))
        root = tables.get('XSDT') or tables.get('RSDT')
        if 'RSDP' in tables and root:
            rsdp = bytes(tables['RSDP'])[:36].ljust(36, b'\0')
            write('acpi_root', f'{topo}-rsdp-root', rsdp + bytes(root))


def tag(kind, payload):
    body = struct.pack('<II', kind, 8 + len(payload)) + payload
    return body + b'\0' * (-len(body) % 8)


def mb2_info():
    e820 = [(0, 0x9fc00, 1), (0x9fc00, 0x400, 2), (0xf0000, 0x10000, 2),
            (0x100000, 0xbfedf000, 1), (0xbffdf000, 0x21000, 2), (0xfeffc000, 0x4000, 2),
            (0x100000000, 0xc0000000, 1)]
    mmap = struct.pack('<II', 24, 0) + b''.join(struct.pack('<QQII', b, n, t, 0) for b, n, t in e820)
    rsdp = b'RSD PTR ' + bytes([0x5a]) + b'BOCHS ' + bytes([0]) + struct.pack('<I', 0xbffe1b2c)
    fb = struct.pack('<QIIIBBH', 0xfd000000, 4096, 1024, 768, 32, 1, 0) + bytes([16, 8, 8, 8, 0, 8])
    tags = (tag(1, b'test=all exit=on\0') + tag(2, b'GRUB 2.06-13+deb12u1\0') +
            tag(4, struct.pack('<II', 639, 3144576)) + tag(6, mmap) + tag(8, fb) +
            tag(14, rsdp) + tag(21, struct.pack('<I', 0x200000)) + tag(0, b''))
    return struct.pack('<II', 8 + len(tags), 0) + tags, e820


def acpi_table(sig, revision, table_id, body):
    """A table with ACPI's 36-byte header, OEM TESTBD, its checksum right."""
    head = struct.pack('<4sIBB6s8sI4sI', sig, 36 + len(body), revision, 0, b'TESTBD',
                       table_id, 1, b'TEST', 1)
    table = bytearray(head + body)
    table[9] = -sum(table) & 0xff
    return bytes(table)


def iommu_and_uart_tables():
    """DMAR, IVRS and SPCR seeds: no QEMU machine here builds them."""
    def drhd(flags, base, scope=b''):           # type 0, INCLUDE_PCI_ALL is flags bit 0
        return struct.pack('<HHBBHQ', 0, 16 + len(scope), flags, 0, 0, base) + scope
    rmrr = struct.pack('<HHHHQQ', 1, 24, 0, 0, 0x70000000, 0x7001ffff)
    ioapic_scope = struct.pack('<BBHBBBB', 3, 8, 0, 0, 0, 0x1e, 0)     # I/O APIC at 00:1e.0

    def dmar_head(flags):                       # host address width 39 bits; bit 1: x2APIC opt-out
        return struct.pack('<BB10x', 38, flags)
    write('dmar', 'seed-0', acpi_table(b'DMAR', 1, b'SYNTHTBL', dmar_head(3) + drhd(0, 0xfed90000) +
                                       rmrr + drhd(1, 0xfed91000)))
    write('dmar', 'seed-1', acpi_table(b'DMAR', 1, b'SYNTHTBL',
                                       dmar_head(1) + drhd(1, 0xfed90000, ioapic_scope)))
    ivinfo = struct.pack('<I8x', 0x00203041)
    ivhd10 = struct.pack('<BBHHHQHHI', 0x10, 0xb0, 24, 2, 0x40, 0xfd200000, 0, 0, 0)
    ivhd11 = struct.pack('<BBHHHQHHIQ8x', 0x11, 0xb0, 40, 2, 0x40, 0xfd200000, 0, 0, 0, 0)
    # an IVMD block (not an IVHD: passed over), whose length runs 4 bytes past the table's end
    ivmd = struct.pack('<BBHHHQQ4x', 0x20, 0, 32, 0, 0, 0x9d000000, 0x1000)
    write('ivrs', 'seed-0', acpi_table(b'IVRS', 2, b'SYNTHTBL', ivinfo + ivhd10 + ivhd11 + ivmd))
    write('spcr', 'seed-com2', spcr_fixture.spcr(space=1, address=0x2f8))
    write('spcr', 'seed-mmio', spcr_fixture.spcr(space=0, address=0xfe030000, bit_width=32,
                                                 access_size=3, baud_code=0))


def ioremap_ranges():
    """(phys, size) pairs as firmware names them, and the edges."""
    direct_map = 1 << 46
    for name, pairs in (
            ('lapic', [(0xfee00000, 0x1000)]),
            ('low-and-small', [(0xb008, 4)]),
            ('last-page-below-2-64', [(0xfffffffffffff800, 0x100), (0xfffffffffffff000, 0xfff),
                                      (0xfffffffffffffff0, 8)]),
            ('direct-map-end', [(direct_map - 0x1000, 0x1000), (direct_map - 0x1000, 0x2000),
                                (direct_map, 0x1000), (direct_map - 1, 1)]),
            ('empty-and-whole', [(0, 0), (0, direct_map), (1, direct_map - 1),
                                 (0, 0xffffffffffffffff)]),
            ('high-mmio', [(0xe000000000, 0x1000), (0xfebf1000, 0x10)])):
        write('ioremap_range', name, b''.join(struct.pack('<QQ', a, b) for a, b in pairs))


def synthetic():
    info, e820 = mb2_info()
    write('mb2', 'grub-bios', info)
    write('memmap', 'qemu-e820', b''.join(struct.pack('<QQB', b, n, t) for b, n, t in e820))
    write('memmap', 'overlaps', struct.pack('<QQBQQBQQB', 0x1000, 0x10000, 1, 0x8000, 0x1000, 2,
                                            0xfffffffffffff000, 0x2000, 1))
    for name, line in (('story', b'story=on rcu.mode=rc4 storm=200000 storm.cpus=0'),
                       ('bad', b'rcu.mode=nope storm=0x storm=99999999999999999999 test='),
                       ('sizes', b'swiotlb.size=64M swiotlb.size=1G swiotlb.size=4k test=rcu*')):
        write('cmdline', name, line)
    write('format', 'mixed', bytes(range(0, 240, 3)))
    write('format', 'strings', bytes([20, 7, 0, 3, 10, 5] + [65] * 16 + [30, 7, 0, 0, 0xf6, 0xff] + [66] * 16))
    write('swiotlb_slots', 'maps-and-unmaps', bytes([3, 1, 0, 16, 0, 1, 0, 2, 0, 0, 0, 0, 1, 0x40, 0, 0]))
    write('virtqueue', 'round-trip', bytes([4, 0, 2, 5] + [0] * 30 + [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1]))
    write('dsdt_s5', 'minimal', b'DSDT' + b'\0' * 32 + b'\x08_S5_\x12\x06\x04\x0a\x05\x00\x00\x00')
    write('acpi_root', 'empty', b'')
    dist = bytes([10, 20, 30, 20, 10, 20, 30, 20, 10])
    body = struct.pack('<Q', 3) + dist
    slit = b'SLIT' + struct.pack('<I', 36 + len(body)) + bytes([1, 0]) + b'BOCHS BXPCSLIT' + \
        struct.pack('<I', 1) + b'BXPC' + struct.pack('<I', 1) + body
    write('slit', 'three-nodes', slit[:9] + bytes([(-sum(slit)) & 0xff]) + slit[10:])
    iommu_and_uart_tables()
    ioremap_ranges()


def main():
    synthetic()
    real_tables()
    for target in sorted(os.listdir(CORPUS)):
        print(f'{target}: {len(os.listdir(os.path.join(CORPUS, target)))} seeds')
    return 0


if __name__ == '__main__':
    sys.exit(main())
