#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs_check.py - every function a page of docs/ (or the README) names
exists in the code.

A name counts when it is written as code with parentheses, like
`call_rcu()`: it must be defined (or declared as a macro) somewhere in
boot/, kernel/, drivers/, include/, lab/, scripts/ or tests/. Prints what is missing and
exits 1 if anything is.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ['boot', 'kernel', 'drivers', 'include', 'lab', 'scripts', 'tests']
NAMED = re.compile(r'`([A-Za-z_][A-Za-z0-9_]*)\(\)`')


def defined_names():
    names = set()
    for top in SOURCES:
        for path in glob.glob(os.path.join(ROOT, top, '**', '*'), recursive=True):
            if not path.endswith(('.c', '.h', '.asm', '.py')):
                continue
            with open(path, errors='replace') as f:
                text = f.read()
            names.update(re.findall(r'^[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\(', text, re.M))
            names.update(re.findall(r'#define\s+([A-Za-z_]\w*)\(', text))
            names.update(re.findall(r'^\s*def\s+(\w+)\(', text, re.M))
            names.update(re.findall(r'^([A-Za-z_]\w*):', text, re.M))      # asm labels
    return names


def main():
    names = defined_names()
    missing = []
    for page in sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')) + [os.path.join(ROOT, 'README.md')]):
        with open(page) as f:
            for number, line in enumerate(f, 1):
                for name in NAMED.findall(line):
                    if name not in names:
                        missing.append(f'{os.path.relpath(page, ROOT)}:{number}: {name}() is not in the code')
    for m in missing:
        print(m)
    print(f'docs: {"every function named exists" if not missing else f"{len(missing)} names missing"}')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
