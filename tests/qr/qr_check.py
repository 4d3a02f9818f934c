#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""qr_check.py - kernel/qr.c against an independent decoder (make test).

build/host/qr_encode (kernel/qr.c built for the host) writes a PNG for
each case; zbarimg (zbar-tools) decodes it; the decoded text must be the
bytes encoded.  The cases cover, at levels L and M, every version 1..20
(the longest text of each version and the shortest that needs it, so the
version choice is checked too), and every one of the 8 masks forced on a
version-1 and a version-7 symbol (version 7 is the first with version
information).

Usage: tests/qr/qr_check.py [QR_ENCODE]      (default build/host/qr_encode)
Prints one line per failure and "qr: N decoded, N failed"; exit 1 on any.
"""
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALPHABET = ''.join(chr(c) for c in range(32, 127)) + '\n'


def capacities(tool, level):
    out = subprocess.run([tool, '-c', '-l', level], capture_output=True, text=True,
                         check=True).stdout
    return {int(v): int(n) for _, v, n in (line.split() for line in out.splitlines())}


def encode_decode(tool, text, level, mask, png):
    """(version, decoded text or None)."""
    args = [tool, '-l', level] + (['-m', str(mask)] if mask is not None else []) + [png]
    done = subprocess.run(args, input=text.encode(), capture_output=True, timeout=30)
    if done.returncode:
        return None, None
    version = int(done.stdout.split()[1])
    read = subprocess.run(['zbarimg', '-q', '--raw', png], capture_output=True, timeout=30)
    if read.returncode:
        return version, None
    decoded = read.stdout.decode('utf-8', errors='replace')
    return version, decoded[:-1] if decoded.endswith('\n') else decoded


def cases(tool):
    rng = random.Random(18004)
    text = lambda n: ''.join(rng.choice(ALPHABET) for _ in range(n))
    for level in 'LM':
        cap = capacities(tool, level)
        for v in sorted(cap):
            yield f'{level} v{v} full', text(cap[v]), level, None, v
            shortest = cap[v - 1] + 1 if v > 1 else 1
            yield f'{level} v{v} shortest', text(shortest), level, None, v
        for mask in range(8):
            yield f'{level} v1 mask {mask}', text(cap[1]), level, mask, 1
            yield f'{level} v7 mask {mask}', text(cap[7]), level, mask, 7


def main():
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build/host/qr_encode')
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, 'qr.png')
        for name, text, level, mask, want_version in cases(tool):
            version, decoded = encode_decode(tool, text, level, mask, png)
            if version != want_version:
                problem = f'version {version}, expected {want_version}'
            elif decoded is None:
                problem = 'zbarimg found no QR code'
            elif decoded != text:
                problem = f'decoded {decoded[:40]!r}..., encoded {text[:40]!r}...'
            else:
                passed += 1
                continue
            failed += 1
            print(f'qr: FAIL {name} ({len(text)} bytes): {problem}')
    print(f'qr: {passed} decoded, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
