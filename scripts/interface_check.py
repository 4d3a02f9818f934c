#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""interface_check.py - docs/interface.md says what the code does.

Checked, both ways where it can be:
  - every kernel command-line key that kernel/, drivers/ or lab/ registers
    (PARAM_CHOICE, PARAM_ENUM, PARAM_U64, PARAM_SIZE, PARAM_STR) has a row in
    the table under "## Kernel command line keys", and every row there is a
    registered key;
  - for a choice key, every choice (for PARAM_ENUM, every row name of its
    table) is written in the row's values as `choice`;
  - every target in the Makefile's .PHONY line is in the make targets table
    as `make <target>`;
  - every shell command of lab/shell.c is in the shell's table.
Prints what disagrees and exits 1 if anything does.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, 'docs', 'interface.md')
SOURCES = ['kernel', 'drivers', 'lab']       # what the kernel links; not tests/host
PARAM = re.compile(r'\bPARAM_(CHOICE|ENUM|U64|SIZE|STR)\(\s*"([^"]+)"\s*,\s*(\w+)\s*(?:,(.*?))?\);', re.S)


def sources():
    for top in SOURCES:
        for path in sorted(glob.glob(os.path.join(ROOT, top, '**', '*.c'), recursive=True)):
            with open(path) as f:
                yield os.path.relpath(path, ROOT), f.read()


def enum_table_names(table, texts):
    """The .name of each row of the table called table, in order."""
    for _, text in texts:
        m = re.search(r'\b' + re.escape(table) + r'\[[^\]]*\]\s*=\s*\{(.*?)\n\};', text, re.S)
        if m:
            return re.findall(r'\.name\s*=\s*"([^"]+)"', m.group(1))
    return None


def registered_keys():
    """{key: (kind, [choices] or None, file)} for every key the kernel registers."""
    texts = list(sources())
    keys = {}
    for path, text in texts:
        for kind, key, var, rest in PARAM.findall(text):
            choices = None
            if kind == 'CHOICE':
                choices = re.findall(r'"([^"]*)"', rest)
            elif kind == 'ENUM':
                choices = enum_table_names(rest.strip(), texts)
            keys[key] = (kind, choices, path)
    return keys


def section(text, heading):
    """The lines of text under heading, up to the next heading of any level."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith('#'):
            if inside:
                break
            inside = line.strip() == heading
            continue
        if inside:
            out.append(line)
    return out


def table_rows(lines):
    """The cells of each row of the first table in lines (header and rule skipped)."""
    rows = []
    for line in lines:
        if not line.startswith('|'):
            if rows:
                break
            continue
        cells = [c.strip() for c in re.split(r'(?<!\\)\|', line.strip())[1:-1]]
        if all(re.fullmatch(r':?-+:?', c) for c in cells):
            continue
        rows.append(cells)
    return rows[1:]             # without the header


def check_keys(page, problems):
    keys = registered_keys()
    rows = table_rows(section(page, '## Kernel command line keys'))
    documented = {}
    for cells in rows:
        m = re.fullmatch(r'`([^`]+)`', cells[0])
        if not m:
            problems.append(f'keys table: first column is not one `key`: {cells[0]}')
            continue
        documented[m.group(1)] = cells[1] if len(cells) > 1 else ''
    for key in sorted(set(keys) - set(documented)):
        problems.append(f'{keys[key][2]}: key {key} is not in docs/interface.md\'s keys table')
    for key in sorted(set(documented) - set(keys)):
        problems.append(f'docs/interface.md: key {key} is documented but no file registers it')
    for key in sorted(set(keys) & set(documented)):
        kind, choices, path = keys[key]
        if choices is None and kind == 'ENUM':
            problems.append(f'{path}: cannot find the table behind {key}')
        for choice in choices or []:
            if f'`{choice}`' not in documented[key]:
                problems.append(f'docs/interface.md: {key} does not list its choice `{choice}`')
    return len(keys)


def check_make_targets(page, problems):
    with open(os.path.join(ROOT, 'Makefile')) as f:
        makefile = f.read()
    makefile = makefile.replace('\\\n', ' ')          # continued lines
    phony = re.search(r'^\.PHONY:(.*)$', makefile, re.M).group(1).split()
    text = '\n'.join(section(page, '### Targets'))
    for target in phony:
        if f'`make {target}`' not in text:
            problems.append(f'Makefile: target {target} is not in docs/interface.md\'s targets table')
    return len(phony)


def check_shell(page, problems):
    with open(os.path.join(ROOT, 'lab', 'shell.c')) as f:
        shell = f.read()
    table = re.search(r'static const struct command commands\[\] = \{(.*?)\n\};', shell, re.S)
    names = re.findall(r'\{\s*"([^"]+)",', table.group(1))
    documented = {re.match(r'`([^\s`]+)', cells[0]).group(1)
                  for cells in table_rows(section(page, '### The shell'))}
    for name in names:
        if name not in documented:
            problems.append(f'lab/shell.c: command {name} is not in docs/interface.md\'s shell table')
    for name in sorted(documented - set(names)):
        problems.append(f'docs/interface.md: shell command {name} does not exist')
    return len(names)


def main():
    with open(PAGE) as f:
        page = f.read()
    problems = []
    nkeys = check_keys(page, problems)
    ntargets = check_make_targets(page, problems)
    ncommands = check_shell(page, problems)
    for p in problems:
        print(p)
    if problems:
        print(f'interface: {len(problems)} disagreements')
        return 1
    print(f'interface: {nkeys} keys, {ntargets} make targets, {ncommands} shell commands, '
          'as docs/interface.md says')
    return 0


if __name__ == '__main__':
    sys.exit(main())
