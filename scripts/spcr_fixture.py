#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spcr_fixture.py - write the SPCR tables the spcr topologies hand QEMU.

QEMU on x86 builds no SPCR of its own; `-acpitable file=F` adds one (QEMU
recomputes its length and checksum). The layout is Microsoft's Serial Port
Console Redirection Table, revision 2, 80 bytes:

    36 interface type    0x00 = full 16550
    40 base address GAS  space (0 memory, 1 I/O), bit width, bit offset,
                         access size (1 byte .. 3 dword), u64 address
    52 interrupt type    bit 0: PC-AT 8259 IRQ
    53 IRQ               3 for COM2
    58 baud rate code    7 = 115200
    60 stop bits 1, 62 terminal type 0 (VT100)

Usage: scripts/spcr_fixture.py [OUT]  (default tests/fixtures/spcr-com2.bin:
COM2, I/O port 0x2f8, IRQ 3, 115200 baud).
"""
import struct
import sys


def spcr(space, address, bit_width=8, access_size=1, irq=3, baud_code=7):
    body = struct.pack('<B3x', 0x00)                               # 16550
    body += struct.pack('<BBBBQ', space, bit_width, 0, access_size, address)
    body += struct.pack('<BBIBBBBBB', 1, irq, irq, baud_code, 0, 1, 0, 0, 0)
    body += struct.pack('<HHBBBIB', 0xffff, 0xffff, 0, 0, 0, 0, 0)  # not a PCI UART
    body += bytes(80 - 36 - len(body))
    head = struct.pack('<4sIBB6s8sI4sI', b'SPCR', 36 + len(body), 2, 0, b'TESTBD',
                       b'SPCRCOM2', 1, b'TBED', 1)
    table = bytearray(head + body)
    table[9] = -sum(table) & 0xff
    return bytes(table)


if __name__ == '__main__':
    out = sys.argv[1] if len(sys.argv) > 1 else 'tests/fixtures/spcr-com2.bin'
    with open(out, 'wb') as f:
        f.write(spcr(space=1, address=0x2f8))
