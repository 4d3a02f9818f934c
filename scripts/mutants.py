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
    # run: fuzz memmap              (or a fuzz target's corpus replayed, oracle
                                     and sanitizers on: build/fuzz-replay/NAME)
    # run: story+nodebugexit test=boot   (a topology may carry matrix flags)
    # run: matrix shell-keyboard    (or boots of tests/matrix, as listed: firmware,
                                     flags and sessions included; names or globs)
    # timeout: 150                  (optional: seconds for its boots; else the
                                     longest the matrix gives the topology)
    # expect: hang                  (optional: the kill is a hang, for a bug
                                     whose symptom is that nothing happens)
    # escapes: check-rcu --no-interrupts 2 2 2   (optional, any number: a run
                                     that must NOT kill it, which shows that
                                     what the run leaves out is what finds it)
    --- a/kernel/rcu.c
    +++ b/kernel/rcu.c
    @@ ...

"# kills:" names what must catch the bug: "suite.case" (several,
separated by commas, when any of them will do), a matrix boot that fails
as a whole (its session, its expected lines, its exit code), or "boot"
for any boot of its own "# run:" lines that fails as a whole (a panic
before the tests). Words in parentheses after a name are a note.

Every distinct "# run:" and "# escapes:" line runs once on the clean
tree and must pass there: a line that fails without the bug would "kill"
every mutant that uses it, so such a mutant is "not judged" and make
mutants fails. The clean runs go first in the one queue of work, the
mutants after them, longest first, so no core waits for the last clean
run. Each worker (one more than there are cores: part of a run is
waiting, on a session or an idle guest) copies the tree once, with its
build, to build/mutants/worker-N, and for each mutant it takes: applies
the patch, builds (only what the patch touches is rebuilt), runs its
lines, prints

    mutant NAME: killed by SUITE.CASE
    mutant NAME: SURVIVED
    mutant NAME: not killed by its test: X failed instead

and puts its tree back as the clean one is, sources and build output
both, with their mtimes (reset_tree()), so the next mutant rebuilds
only what its own patch touches.

A mutant counts as killed only when a test its "# kills:" names fails. A
boot that panics inside a named case is that case failing; a boot that
hangs kills only a mutant that says "# expect: hang", and one that
expects a hang is not killed by anything else. A mutant that an
"# escapes:" run kills as well is reported as such and counts as not
killed: the class of step the escape leaves out was not what found it.
The last line is "N mutants, N killed"; the exit status is 1 if a "# run:"
line fails on the clean tree, or any mutant was not killed by its test,
did not apply or did not build (a mutant that no longer applies must be
updated with the code it mutates).

Usage: scripts/mutants.py [--jobs N] [NAME-GLOB ...]
"""
import argparse
import collections
import concurrent.futures
import fnmatch
import functools
import glob
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
import run as runner  # noqa: E402  (tests/run.py: its matrix parser)

MUTANTS = os.path.join(ROOT, 'tests', 'mutants')
SCRATCH = os.path.join(ROOT, 'build', 'mutants')
BOOT_TIMEOUT = 90                # seconds, for a topology the matrix does not boot
HUNK = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


# The kinds of "# run:" line that are not a boot (a boot's is its topology).
NOT_BOOTS = ('host', 'check-rcu', 'sim', 'matrix', 'fuzz')


class MutantError(Exception):
    pass


def read_patch(path, keys=('why', 'kills', 'run', 'escapes', 'timeout', 'expect'),
               lists=('run', 'escapes')):
    """(headers, [(file, [(old text, new text)])]) of a patch whose first
    lines are "# KEY: value" headers (keys in lists may repeat), as the
    mutants and the labs (scripts/lab.py) keep them."""
    headers = {key: [] for key in lists}
    files, current = [], None
    with open(path) as f:
        lines = f.read().splitlines(keepends=True)
    i = 0
    header = re.compile(r'# (' + '|'.join(keys) + r'): (.*)')
    while i < len(lines):
        line = lines[i]
        match = header.match(line)
        if match and not files:
            key, value = match.group(1), match.group(2).strip()
            if key in lists:
                headers[key].append(value)
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
    return headers, files


def read_mutant(path):
    """(name, headers {why, kills, run: [..]}, [(file, hunks)])."""
    name = os.path.basename(path)[:-len('.patch')]
    headers, files = read_patch(path)
    if not files or not headers['run'] or 'why' not in headers or 'kills' not in headers:
        raise MutantError(f'{name}: needs "# why:", "# kills:", "# run:" and a diff')
    if headers.get('expect', 'fail') not in ('fail', 'hang'):
        raise MutantError(f'{name}: "# expect:" is "hang" or nothing')
    numbered = [n for n in kill_names(headers['kills']) if '#' in n]
    if numbered:
        raise MutantError(f'{name}: "# kills:" names a case by its number ({numbered[0]}): '
                          'name it (its "# RUN" line says how)')
    names = kill_names(headers['kills'])
    if not any(path in READS_TEST for path, _ in files):
        headers['run'] = [narrow(spec, names) for spec in headers['run']]
        headers['escapes'] = [narrow(spec, names) for spec in headers.get('escapes', [])]
    return name, headers, files


# The code that reads test=: a mutant of it runs its lines as written,
# since narrow() would change the very text the bug is in the reading of.
READS_TEST = ('kernel/cmdline.c', 'kernel/ktest.c', 'kernel/main.c')


def narrow(spec, names):
    """A boot's "# run:" line cut down to the cases that can kill: its
    test= keeps only the named cases it selects. A named leaks_nothing
    keeps its whole suite (it judges what the suite's other cases took);
    a mutant killed by a boot as a whole, and the host, matrix, check-rcu
    and sim lines, run as written. The clean-tree run of the narrowed
    line shows the named cases pass without the rest of their suite."""
    kind, _, rest = spec.partition(' ')
    words = rest.split()
    tests = [w for w in words if w.startswith('test=')]
    if any('.' not in n for n in names):
        return spec
    suites = {n.partition('.')[0] for n in names}
    if kind == 'matrix' and len(words) == 1 and len(suites) == 1:
        # run.py's --filter narrows the matrix line's test= to one glob
        whole = any(n.endswith('.leaks_nothing') for n in names) or len(names) > 1
        return f'{spec} --filter {suites.pop() if whole else names[0]}'
    if kind in NOT_BOOTS or len(tests) != 1:
        return spec
    selection = tests[-1][len('test='):].split(',')

    def selects(name):
        suite, _, case = name.partition('.')
        for word in selection:
            w_suite, _, w_case = word.partition('.')
            if fnmatch.fnmatchcase(suite, w_suite) and (not w_case or fnmatch.fnmatchcase(case, w_case)):
                return True
        return False
    picked = []
    for name in filter(selects, names):
        suite, _, case = name.partition('.')
        word = suite if case == 'leaks_nothing' else name
        if word not in picked:
            picked.append(word)
    whole = {w for w in picked if '.' not in w}     # a whole suite covers its cases
    picked = [w for w in picked if '.' not in w or w.partition('.')[0] not in whole]
    if not picked:
        return spec
    return ' '.join([kind] + [f'test={",".join(picked)}' if w.startswith('test=') else w
                              for w in words])


def kill_names(kills):
    """The names of "# kills:", notes in parentheses dropped."""
    return [re.sub(r'\s*\(.*', '', word).strip() for word in
            re.split(r',\s*(?![^()]*\))', kills) if word.strip()]


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


# What a boot or a run leaves in build/ that is not build output, and what
# no mutant builds (libFuzzer's binaries, the clang kernel: three quarters
# of build/'s files): neither copied into a worker's tree nor put back by
# reset_tree(). Names at the top of build/ only.
NOT_BUILT = ('mutants', 'labs', 'logs', 'disks', 'vars', 'plots', 'qmp', 'mutant-*', 'lab-*',
             'fuzz', 'clang')


def not_built(names):
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in NOT_BUILT)]


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
    top = os.path.join(ROOT, 'build')
    shutil.copytree(top, os.path.join(tree, 'build'), symlinks=True,
                    ignore=lambda directory, names: not_built(names) if directory == top else [])


def build_files(tree):
    """{path under build/: (size, mtime in ns)} of the build's output."""
    found = {}
    top = os.path.join(tree, 'build')
    for directory, subdirs, files in os.walk(top):
        if directory == top:
            subdirs[:] = sorted(set(subdirs) - set(not_built(subdirs)))
            files = sorted(set(files) - set(not_built(files)))
        for name in files:
            full = os.path.join(directory, name)
            info = os.lstat(full)
            found[os.path.relpath(full, top)] = (info.st_size, info.st_mtime_ns)
    return found


@functools.lru_cache(maxsize=None)
def clean_build_files():
    """build_files() of the clean tree: its build does not change while
    the mutants run (they build in their own trees), so it is read once."""
    return build_files(ROOT)


def reset_tree(tree, files):
    """Put a worker's tree back as the clean tree has it, for the next
    mutant: the files the patch changed, and every build output that
    differs from the clean build's (content and mtime copied, so make
    finds nothing to do); outputs the clean build lacks are removed."""
    for path, _ in files:
        shutil.copy2(os.path.join(ROOT, path), os.path.join(tree, path))
    clean, mine = clean_build_files(), build_files(tree)
    for path in set(clean) | set(mine):
        if clean.get(path) == mine.get(path):
            continue
        target = os.path.join(tree, 'build', path)
        if path not in clean:
            os.remove(target)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, "build", path), target, follow_symlinks=False)


def read_json(path):
    """run.py's records in path; none if it wrote none."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)


def run(cmd, tree, timeout=None):
    return subprocess.run(cmd, cwd=tree, capture_output=True, text=True,
                          timeout=timeout)


def describe(record):
    """A failed record as "suite.case", or "BOOT: reason" for a whole boot."""
    if record['suite']:
        return f"{record['suite']}.{record['case']}"
    return f"{record['boot']}: {record['reason'][:100]}"


def failures(records):
    """The failed records, each 'hang' or 'fail': a hang is a boot that
    did not end in time, and a case it cut short (it was running, no
    result); a case that said "not ok" failed, whatever came after it."""
    hung = {r['boot'] for r in records if r['status'] == 'fail'       # on the boot, or on
            and re.search(r'(^|; )hang: ', r['reason'])}              # the case it cut short
    found = []
    for r in records:
        if r['status'] != 'fail':
            continue
        if not r['suite'] and r['case'] == 'emulator':
            raise MutantError(f'{r["boot"]}: {r["reason"][:160]} (run it again)')
        if not r['suite'] and r['case'] not in ('boot', 'binary'):
            raise MutantError(f'"{r["case"]}" picks no test: fix its "# run:" line')
        cut_short = not r['suite'] or 'did not finish' in r['reason']
        found.append((r, 'hang' if r['boot'] in hung and cut_short else 'fail'))
    return found


def named(record, names, own_boots):
    if record['suite']:
        return f"{record['suite']}.{record['case']}" in names
    return record['boot'] in names or ('boot' in names and record['boot'] in own_boots)


def killer_of(records, names=None, expect='fail', own_boots=()):
    """(killer, other): the first failed test that "# kills:" names and that
    failed the way the mutant expects; else the first other failure, or
    None. Without names, any failure is the killer (for the clean runs and
    the escapes)."""
    found = failures(records)
    for r, how in found:
        if names is None or (named(r, names, own_boots) and how == expect):
            return describe(r), None
    return None, (f'{describe(found[0][0])}' + (' (a hang)' if found[0][1] == 'hang'
                                                else '')) if found else None


@functools.lru_cache(maxsize=None)
def matrix_boots():
    """tests/matrix's boots by name (read once)."""
    path = os.path.join(ROOT, 'tests', 'matrix')
    return {boot.name: boot for boot in runner.parse_matrix(runner.read_text(path), path)}


@functools.lru_cache(maxsize=None)
def matrix_timeouts():
    """The longest timeout the matrix gives each topology."""
    longest = {}
    for boot in matrix_boots().values():
        longest[boot.topology] = max(longest.get(boot.topology, 0), int(boot.timeout))
    return longest


def boot_timeout(headers, topology):
    """The mutant's "# timeout:", else the longest the matrix gives the
    topology. A short one cannot make a kill: a boot that runs out of time
    is a hang, which kills only a mutant that expects one, and the line's
    clean-tree run, under the same timeout, shows that a boot without the
    bug ends within it."""
    if 'timeout' in headers:
        return int(headers['timeout'])
    return matrix_timeouts().get(topology, BOOT_TIMEOUT)


def own_boots(name, specs):
    """The names run_tests() gives the boots of these "# run:" lines."""
    return {f'{name}-{i}' for i, spec in enumerate(s for s in specs
            if s.split(' ', 1)[0] not in NOT_BOOTS)}


def run_tests(tree, name, headers, specs):
    """Run specs ("# run:" lines) in tree; run.py's JSON records."""
    records = []
    out = os.path.join(tree, 'build', f'mutant-{name}.json')
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
        elif kind == 'fuzz':
            corpus = os.path.join('tests', 'fuzz', 'corpus', rest)
            done = run([os.path.join('build', 'fuzz-replay', rest), corpus], tree, timeout=600)
            lines = done.stderr.splitlines()
            failed = [line[len('replay: '):] for line in lines
                      if line.startswith('replay: ')] if done.returncode else []
            broke = [line.strip() for line in lines if 'check failed' in line or
                     'ERROR: AddressSanitizer' in line or 'runtime error' in line]
            if failed and broke:                # the input, and which rule it broke
                failed[-1] += ': ' + broke[0]
            broken = done.returncode and not failed     # it did not get to an input
            records.append({'status': 'fail' if done.returncode else 'pass',
                            'suite': '' if broken else 'fuzz', 'case':
                            'binary' if broken else rest, 'boot': 'fuzz',
                            'reason': (failed or [(done.stderr.strip() or '?')[-100:]])[-1]
                            if done.returncode else ''})
        elif kind == 'matrix':
            only, _, glob = rest.partition(' --filter ')
            run([sys.executable, 'tests/run.py', 'test', '--matrix', 'tests/matrix',
                 '--only', only, '--json', out] + (['--filter', glob] if glob else []),
                tree, timeout=900)
            found = read_json(out)
            if not found:
                raise MutantError(f'"{spec}" picks no matrix boot: fix its "# run:" line')
            records += found
        elif kind == 'host':
            run([sys.executable, 'tests/run.py', 'test', '--matrix', '/dev/null', '--host',
                 'build/host/unit', '--filter', rest or 'all', '--json', out], tree,
                timeout=600)
            found = read_json(out)
            if not found:
                raise MutantError(f'"{spec}" picks no host test: fix its "# run:" line')
            records += found
        else:
            boots.append((kind, rest))
    if boots:
        matrix = os.path.join(tree, 'build', f'mutant-{name}.matrix')
        with open(matrix, 'w') as f:
            for i, (topology, args) in enumerate(boots):
                topology, plus, flags = topology.partition('+')   # story+nodebugexit
                timeout = boot_timeout(headers, topology)
                f.write(f'{name}-{i} {topology} bios {timeout} pass{plus}{flags} {args}\n')
        run([sys.executable, 'tests/run.py', 'test', '--matrix', matrix, '--json', out], tree,
            timeout=600)
        records += read_json(out)
    return records


def try_mutant(path, trees):
    """Returns (name, verdict line, killed). trees holds the workers' own
    copies of the tree: one is taken for the mutant and put back clean."""
    try:
        name, headers, files = read_mutant(path)
    except MutantError as error:
        return os.path.basename(path), f'mutant {error}', False
    tree = trees.take()
    started = time.monotonic()
    try:
        apply(tree, files)
        build(tree, headers['run'])
        build_time = time.monotonic() - started
        expect = headers.get('expect', 'fail')
        killer, other = killer_of(run_tests(tree, name, headers, headers['run']),
                                  kill_names(headers['kills']), expect,
                                  own_boots(name, headers['run']))
        if not killer and other:
            return name, f'mutant {name}: not killed by its test: {other} failed ' \
                f'instead of {headers["kills"]}' + \
                (' (a hang, which "# expect: hang" would allow)' if other.endswith('(a hang)')
                 else ''), False
        if not killer:
            return name, f'mutant {name}: SURVIVED ({headers["why"]})', False
        for spec in headers.get('escapes', []):
            if any(killer_of(run_tests(tree, name, headers, [spec]))):
                return name, f'mutant {name}: killed by {killer}, but "{spec}" kills it ' \
                    'too: what that run leaves out is not what finds it', False
        hang = ', a hang as expected' if expect == 'hang' else ''
        return name, f'mutant {name}: killed by {killer} ' \
            f'({time.monotonic() - started:.0f} s, build {build_time:.1f} s{hang})', True
    except (MutantError, subprocess.TimeoutExpired) as error:
        return name, f'mutant {name}: {error}', False
    finally:
        try:
            reset_tree(tree, files)
            trees.put(tree)
        except OSError as error:        # the tree is lost: the next mutant gets a new one
            print(f'mutants: {tree}: {error}; copying it again', flush=True)
            copy_tree(tree)
            trees.put(tree)


class Trees:
    """The workers' own copies of the tree, made when first needed: a
    worker that finds none free copies a new one (at most one per worker,
    since each holds one while it runs a mutant)."""

    def __init__(self, ready=()):
        self.free, self.made, self.lock = queue.Queue(), 0, threading.Lock()
        for tree in ready:
            self.free.put(tree)

    def take(self):
        try:
            return self.free.get_nowait()
        except queue.Empty:
            with self.lock:
                tree = os.path.join(SCRATCH, f'worker-{self.made}')
                self.made += 1
            copy_tree(tree)
            return tree

    def put(self, tree):
        self.free.put(tree)


@functools.lru_cache(maxsize=None)
def clean_version():
    """The clean tree's version, as its Makefile computes it: given to each
    mutant's make, which then runs no git of its own (a worker's tree has
    no .git: git would search, and stat, the whole clean tree each time)."""
    return subprocess.run(['git', 'describe', '--always', '--dirty'], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip() or 'unknown'


def build(tree, specs):
    """Build in tree what these "# run:" lines need (make rebuilds only
    what changed); MutantError with the compiler's last line if it fails."""
    kinds = [spec.split(' ', 1)[0] for spec in specs]
    targets = (['build/host/unit'] if 'host' in kinds else []) + \
        (['iso'] if any(k not in NOT_BOOTS or k == 'matrix' for k in kinds) else []) + \
        (['build/sim/rcu_sim'] if 'sim' in kinds else []) + \
        [f'build/fuzz-replay/{spec.split(" ", 1)[1]}' for spec in specs
         if spec.startswith('fuzz ')]
    built = run(['make', '-s', f'VERSION={clean_version()}'] + targets, tree) \
        if targets else None
    if built and built.returncode:
        raise MutantError('does not build: ' +
                          (built.stderr.strip().splitlines() or ['?'])[-1])


# Roughly how long a mutant's runs take, by kind, in seconds: the longest
# start first, so that no long one is left for one worker at the end.
COST = {'matrix': 8, 'story-icount': 8, 'check-rcu': 7, 'story': 5, 'pair': 5,
        'single': 5, 'host': 3, 'fuzz': 2, 'sim': 1}
SESSION_COST = 6                # a boot a session types into waits on the guest


def spec_cost(spec, headers):
    """Roughly the seconds a "# run:" line takes: by kind; a matrix boot
    under UEFI, or with a session typing into it, takes longer."""
    if headers.get('expect') == 'hang' or 'timeout' in headers:
        return int(headers.get('timeout', 60))
    kind, _, rest = spec.partition(' ')
    cost = COST.get(kind.split('+')[0], 5) + SESSION_COST * ('+session=' in kind)
    if kind == 'matrix':
        boot = matrix_boots().get(rest.split(' ')[0])
        cost += 4 * (boot is not None and boot.firmware == 'uefi') + \
            4 * (boot is not None and bool(boot.session))
    return cost


def expected_cost(path):
    try:
        _, headers, _ = read_mutant(path)
    except MutantError:
        return 0
    return sum(spec_cost(spec, headers) for spec in headers['run'])


SELECTION_MAX = 200             # of test='s 255 characters, for one shared clean boot


def shared_boots(specs):
    """[(line, headers, [the lines it stands for])]: the boot lines that
    differ only in test= (same topology, arguments and timeout) share one
    clean boot with their selections joined; a boot that passes vouches
    for each, one that fails is split again by run_clean(). Other lines
    run alone."""
    runs, groups, merged = [], {}, {}
    for spec, headers in sorted(specs.items()):
        kind, _, rest = spec.partition(' ')
        words = rest.split()
        tests = [w for w in words if w.startswith('test=')]
        # The host binary's selections join into one run; so do a matrix
        # boot's filters (run.py --filter takes several).
        boot, _, pick = rest.partition(' --filter ')
        if kind == 'host' and rest:          # (a timeout is for boots: not used here)
            merged.setdefault(('host', ''), []).append((spec, rest))
            continue
        if kind == 'matrix' and pick and len(boot.split()) == 1:
            merged.setdefault(('matrix', boot), []).append((spec, pick))
            continue
        if kind in NOT_BOOTS or len(tests) != 1:
            runs.append((spec, headers, [spec]))
            continue
        key = (kind, tuple(w for w in words if not w.startswith('test=')),
               headers.get('timeout'))
        groups.setdefault(key, []).append((spec, tests[0][len('test='):].split(',')))
    for (kind, others, timeout), members in groups.items():
        batch, words = [], []
        for spec, selection in members + [(None, [])]:
            joined = words + [w for w in selection if w not in words]
            if spec is None or (batch and len(','.join(joined)) > SELECTION_MAX):
                runs.append((' '.join([kind, 'test=' + ','.join(words), *others]),
                             {'timeout': timeout} if timeout else {}, batch))
                batch, joined = [], list(selection)
            if spec is not None:
                batch.append(spec)
                words = joined
    for (kind, boot), members in merged.items():
        picks = ','.join(dict.fromkeys(pick for _, pick in members))
        line = f'host {picks}' if kind == 'host' else f'matrix {boot} --filter {picks}'
        runs.append((line, {}, [spec for spec, _ in members]))
    return runs


def clean_runs(paths):
    """The clean-tree runs of these mutants' distinct "# run:" and
    "# escapes:" lines, each a function that runs it and returns what
    failed as [(line, message)]: lines that differ only in test= share a
    boot (shared_boots())."""
    specs = {}
    for path in paths:
        try:
            _, headers, _ = read_mutant(path)
        except MutantError:
            continue            # try_mutant() reports it
        for spec in headers['run'] + headers.get('escapes', []):
            # The shortest timeout any of them gives it: passing there, it passes in all.
            budgets = [int(h['timeout']) for h in (headers, specs.get(spec, {})) if 'timeout' in h]
            specs[spec] = {'timeout': str(min(budgets))} if budgets else {}
    # A matrix boot keeps its log and disk under its own name: one run of it at a time.
    locks = collections.defaultdict(threading.Lock)

    def run_one(tag, spec, headers):
        kind, _, rest = spec.partition(' ')
        with locks[rest.split(' ')[0] if kind == 'matrix' else tag]:
            try:
                return killer_of(run_tests(ROOT, tag, headers, [spec]))[0]
            except (MutantError, subprocess.TimeoutExpired) as error:
                return str(error)

    def run_clean(index, spec, headers, members):
        killer = run_one(f'clean-{index}', spec, headers)
        if not killer:
            return []
        if len(members) == 1:
            return [(spec, f'mutants: "# run: {spec}" fails on the clean tree: {killer}')]
        found = []              # the shared boot failed: each line alone says which
        for number, member in enumerate(members):
            killer = run_one(f'clean-{index}-{number}', member, headers)
            if killer:
                found.append((member, f'mutants: "# run: {member}" fails on the clean '
                              f'tree: {killer}'))
        return found

    runs = sorted(shared_boots(specs), key=lambda run: spec_cost(run[0], run[1]),
                  reverse=True)
    return len(specs), [functools.partial(run_clean, index, *run)
                        for index, run in enumerate(runs)]


def judged(verdict, paths, broken):
    """A mutant's verdict, unless one of its lines failed on the clean
    tree: then what it did says nothing, and it is not counted killed."""
    name, line, ok = verdict
    path = next((p for p in paths if os.path.basename(p) == f'{name}.patch'), None)
    try:
        _, headers, _ = read_mutant(path)
    except (MutantError, TypeError):     # one that cannot be read says so already
        return verdict
    failed = [spec for spec in headers['run'] + headers.get('escapes', []) if spec in broken]
    if failed:
        return name, f'mutant {name}: not judged: "{failed[0]}" fails on the clean tree', False
    return verdict


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('names', nargs='*', help='mutants to try (globs)')
    parser.add_argument('--jobs', type=int, default=(os.cpu_count() or 2) + 1,
                        help='workers (default: one more than there are cores)')
    options = parser.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(MUTANTS, '*.patch')))
    if options.names:
        paths = [p for p in paths if any(
            fnmatch.fnmatchcase(os.path.basename(p)[:-6], n) for n in options.names)]
    if not os.path.exists(os.path.join(ROOT, 'build', 'testbed.iso')):
        print('mutants: build the tree first (make iso build/host/unit)', file=sys.stderr)
        return 2
    os.makedirs(SCRATCH, exist_ok=True)
    distinct, cleans = clean_runs(paths)
    trees = Trees()
    started = time.monotonic()
    # One queue for both: the clean runs first, then the mutants, longest
    # first, so that no core waits for the last clean run to end. A
    # mutant's verdict is judged once its lines' clean runs are all in.
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        clean = [pool.submit(run) for run in cleans]
        tried = [pool.submit(try_mutant, path, trees)
                 for path in sorted(paths, key=expected_cost, reverse=True)]
        broken = {}
        for done in clean:
            broken.update(done.result())
        print(f'mutants: {distinct} distinct runs pass on the clean tree '
              f'({time.monotonic() - started:.0f} s)' if not broken else
              f'mutants: {len(broken)} of {distinct} distinct runs fail on the clean tree',
              flush=True)
        for message in broken.values():
            print(message, flush=True)
        killed = 0
        for done in concurrent.futures.as_completed(tried):
            name, line, ok = judged(done.result(), paths, broken)
            print(line, flush=True)
            killed += ok
    print(f'mutants: {len(paths)} tried in {time.monotonic() - started:.0f} s', flush=True)
    print(f'{len(paths)} mutants, {killed} killed')
    return 0 if paths and killed == len(paths) and not broken else 1


if __name__ == '__main__':
    sys.exit(main())
