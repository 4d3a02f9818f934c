#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mutants.py - make mutants: every test suite proves it can fail.

A mutant is a small, plausible bug, kept as a patch in tests/mutants/
(NAME.patch). Its first lines say why it matters, which test should kill
it, and where to run:

    # why: a callback queued while a grace period runs joins it
    # kills: rcu.late_callback_waits_for_a_whole_grace_period
    # run: pair test=rcu            (a topology and a kernel command line)
    # run: host rcu                 (or the host unit tests, with a selection)
    # run: check-rcu                (or make check-rcu, optionally with flags and a
                                     world: --no-migration 3 2 2)
    # run: sim readers              (or make sim, with its arguments)
    # run: story+nodebugexit test=boot   (a topology may carry matrix flags)
    # run: matrix shell-keyboard    (or boots of tests/matrix, as listed: firmware,
                                     flags and sessions included; names or globs)
    # timeout: 20                   (optional: seconds for its boots, default 45)
    # escapes: check-rcu --no-interrupts 2 2 2   (optional, any number: a run
                                     that must NOT kill it, which shows that
                                     what the run leaves out is what finds it)
    --- a/kernel/rcu.c
    +++ b/kernel/rcu.c
    @@ ...

For each mutant: copy the tree (with its build, so only what the patch
touches is rebuilt) to build/mutants/NAME, apply the patch, build, run the
named suites, and print

    mutant NAME: killed by SUITE.CASE
    mutant NAME: SURVIVED

A boot that hangs or panics kills its mutant too. A mutant that an
"# escapes:" run kills as well is reported as such and counts as not killed:
the class of step the escape leaves out was not what found it. The last line is
"N mutants, N killed"; the exit status is 1 if any mutant survived, did not
apply or did not build (a mutant that no longer applies must be updated
with the code it mutates).

Usage: scripts/mutants.py [--jobs N] [NAME-GLOB ...]
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(ROOT, 'tests', 'mutants')
SCRATCH = os.path.join(ROOT, 'build', 'mutants')
BOOT_TIMEOUT = 45                # seconds; a mutant may set its own (# timeout:)
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


class MutantError(Exception):
    pass


def read_mutant(path):
    """(name, headers {why, kills, run: [..]}, [(file, hunks)])."""
    name = os.path.basename(path)[:-len('.patch')]
    headers = {'run': []}
    files, current = [], None
    with open(path) as f:
        lines = f.read().splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        match = re.match(r'# (why|kills|run|escapes|timeout): (.*)', line)
        if match and not files:
            key, value = match.group(1), match.group(2).strip()
            if key in ('run', 'escapes'):
                headers.setdefault(key, []).append(value)
            else:
                headers[key] = value
        elif line.startswith('--- '):
            target = lines[i + 1][4:].strip()
            current = (target[2:] if target.startswith('b/') else target, [])
            files.append(current)
            i += 1
        elif HUNK.match(line):
            old, new = [], []
            i += 1
            while i < len(lines) and lines[i][:1] in (' ', '-', '+', '\\'):
                body = lines[i][1:]
                if lines[i][0] in ' -':
                    old.append(body)
                if lines[i][0] in ' +':
                    new.append(body)
                i += 1
            current[1].append((''.join(old), ''.join(new)))
            continue
        i += 1
    if not files or not headers['run'] or 'why' not in headers:
        raise MutantError(f'{name}: needs "# why:", "# run:" and a diff')
    return name, headers, files


def apply(tree, files):
    """Apply each hunk where its old text stands once in the file."""
    for path, hunks in files:
        full = os.path.join(tree, path)
        with open(full) as f:
            text = f.read()
        for old, new in hunks:
            if text.count(old) != 1:
                raise MutantError(f'does not apply to {path} (the code changed?)')
            text = text.replace(old, new)
        with open(full, 'w') as f:
            f.write(text)


def copy_tree(tree):
    """The working tree's tracked and new files, and its build (mtimes kept)."""
    if os.path.exists(tree):
        shutil.rmtree(tree)
    listed = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard', '-z'],
                            cwd=ROOT, capture_output=True, check=True).stdout
    for path in filter(None, listed.decode().split('\0')):
        source = os.path.join(ROOT, path)
        if not os.path.isfile(source):
            continue
        os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
        shutil.copy2(source, os.path.join(tree, path))
    shutil.copytree(os.path.join(ROOT, 'build'), os.path.join(tree, 'build'),
                    symlinks=True, ignore=shutil.ignore_patterns(
                        'mutants', 'logs', 'disks', 'vars', 'plots', 'qmp'))


def run(cmd, tree, timeout=None):
    return subprocess.run(cmd, cwd=tree, capture_output=True, text=True,
                          timeout=timeout)


def killer_of(records, expected=''):
    """The failed test in run.py's JSON records: the expected one if it
    failed, else the first, as "suite.case"; or "boot NAME: reason" when a
    boot failed as a whole (a hang, a panic)."""
    if any(r['status'] == 'fail' and f"{r['suite']}.{r['case']}" == expected
           for r in records):
        return expected
    for r in records:
        if r['status'] != 'fail':
            continue
        if r['suite']:
            return f"{r['suite']}.{r['case']}"
        if r['case'] in ('boot', 'binary'):
            return f"{r['boot']}: {r['reason'][:100]}"
        raise MutantError(f'"{r["case"]}" picks no test: fix its "# run:" line')
    return None


def run_tests(tree, name, headers, specs):
    """Run specs ("# run:" lines) in tree; run.py's JSON records."""
    records = []
    out = os.path.join(tree, 'build', 'mutant.json')
    boots = []
    for spec in specs:
        kind, _, rest = spec.partition(' ')
        if kind == 'check-rcu':
            world = [f'RCU_WORLD={rest}'] if rest else []
            done = run(['make', '-s', 'check-rcu'] + world, tree, timeout=600)
            violation = next((line for line in done.stdout.splitlines()
                              if 'VIOLATION' in line), None)
            records.append({'status': 'fail' if done.returncode else 'pass',
                            'suite': 'check-rcu' if violation else '', 'case':
                            'violation' if violation else 'binary', 'boot': 'check-rcu',
                            'reason': violation or (done.stderr.strip() or '?')[-100:]})
        elif kind == 'sim':
            done = run(['build/sim/rcu_sim'] + rest.split(), tree, timeout=600)
            violation = next((line for line in done.stdout.splitlines()
                              if 'VIOLATION' in line or 'DISAGREE' in line), None)
            records.append({'status': 'fail' if done.returncode else 'pass',
                            'suite': 'sim' if violation else '', 'case':
                            (rest or 'all') if violation else 'binary', 'boot': 'sim',
                            'reason': violation or (done.stderr.strip() or '?')[-100:]})
        elif kind == 'matrix':
            run(['python3', 'tests/run.py', 'test', '--matrix', 'tests/matrix',
                 '--only', rest, '--json', out], tree, timeout=900)
            found = json.load(open(out)) if os.path.exists(out) else []
            if not found:
                raise MutantError(f'"{spec}" picks no matrix boot: fix its "# run:" line')
            records += found
        elif kind == 'host':
            run(['python3', 'tests/run.py', 'test', '--matrix', '/dev/null', '--host',
                 'build/host/unit', '--filter', rest or 'all', '--json', out], tree,
                timeout=600)
            found = json.load(open(out)) if os.path.exists(out) else []
            if not found:
                raise MutantError(f'"{spec}" picks no host test: fix its "# run:" line')
            records += found
        else:
            boots.append((kind, rest))
    if boots:
        matrix = os.path.join(tree, 'build', 'mutant.matrix')
        with open(matrix, 'w') as f:
            for i, (topology, args) in enumerate(boots):
                timeout = headers.get('timeout', BOOT_TIMEOUT)
                topology, plus, flags = topology.partition('+')   # story+nodebugexit
                f.write(f'{name}-{i} {topology} bios {timeout} pass{plus}{flags} {args}\n')
        run(['python3', 'tests/run.py', 'test', '--matrix', matrix, '--json', out], tree,
            timeout=600)
        records += json.load(open(out)) if os.path.exists(out) else []
    return records


def try_mutant(path):
    """Returns (name, verdict line, killed)."""
    try:
        name, headers, files = read_mutant(path)
    except MutantError as error:
        return os.path.basename(path), f'mutant {error}', False
    tree = os.path.join(SCRATCH, name)
    started = time.monotonic()
    try:
        copy_tree(tree)
        apply(tree, files)
        kinds = [r.split(' ', 1)[0] for r in headers['run']]
        host = 'host' in kinds
        boots = any(k not in ('host', 'check-rcu', 'sim') for k in kinds)
        targets = (['build/host/unit'] if host else []) + (['iso'] if boots else []) + \
            (['build/sim/rcu_sim'] if 'sim' in kinds else [])
        built = run(['make', '-s'] + targets, tree)
        if built.returncode:
            raise MutantError('does not build: ' +
                              (built.stderr.strip().splitlines() or ['?'])[-1])
        killer = killer_of(run_tests(tree, name, headers, headers['run']),
                           headers.get('kills', ''))
        if not killer:
            return name, f'mutant {name}: SURVIVED ({headers["why"]})', False
        for spec in headers.get('escapes', []):
            if killer_of(run_tests(tree, name, headers, [spec])):
                return name, f'mutant {name}: killed by {killer}, but "{spec}" kills it ' \
                    'too: what that run leaves out is not what finds it', False
        expected = headers.get('kills', '')
        note = '' if killer == expected else f'; expected {expected}' if expected else ''
        return name, f'mutant {name}: killed by {killer} ' \
            f'({time.monotonic() - started:.0f} s{note})', True
    except (MutantError, subprocess.TimeoutExpired) as error:
        return name, f'mutant {name}: {error}', False
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('names', nargs='*', help='mutants to try (globs)')
    parser.add_argument('--jobs', type=int, default=2)
    options = parser.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(MUTANTS, '*.patch')))
    if options.names:
        paths = [p for p in paths if any(
            fnmatch.fnmatchcase(os.path.basename(p)[:-6], n) for n in options.names)]
    if not os.path.exists(os.path.join(ROOT, 'build', 'testbed.iso')):
        print('mutants: build the tree first (make iso build/host/unit)', file=sys.stderr)
        return 2
    os.makedirs(SCRATCH, exist_ok=True)
    killed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        for name, line, ok in pool.map(try_mutant, paths):
            print(line, flush=True)
            killed += ok
    print(f'{len(paths)} mutants, {killed} killed')
    return 0 if paths and killed == len(paths) else 1


if __name__ == '__main__':
    sys.exit(main())
