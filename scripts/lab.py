#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lab.py - the course's labs: start one, grade it, and check them all.

A lab is a page, docs/labs/NN-NAME.md, and a patch, tests/labs/NAME.patch,
that takes a piece of the kernel's solution out and leaves a stub marked
LAB(NAME) in its place. The patch's first lines say what it is and how it
is graded, in the mutants' "# run:" form (scripts/mutants.py):

    # lab: the memory map, sanitized
    # page: docs/labs/01-memory-map.md
    # grade: 60 host memmap_sanitize      (points, then a run line)
    # grade: 40 fuzz memmap
    --- a/kernel/memmap.c
    +++ b/kernel/memmap.c
    @@ ...

    scripts/lab.py list            the labs, in the course's order
    scripts/lab.py start NAME      a branch lab/NAME from HEAD, with the
                                   patch applied and committed: the
                                   starting point (make lab-start LAB=NAME)
    scripts/lab.py grade NAME      build, run each grade line in this tree,
                                   print its points and the total, as
                                   xv6's graders do (make grade LAB=NAME);
                                   exit 0 only with every point
    scripts/lab.py check [NAME..]  what CI asks of every lab (make
                                   labs-check): its page exists and names
                                   the grader; the patch marks its stubs;
                                   this tree gets every point; in a copy of
                                   the tree, the starting point builds and
                                   every grade line fails there (no point
                                   is given for work not done)

A grade line's points are given when its run has no failure and at least
one case passed (a run that only skipped gives none, and says so).
"""
import argparse
import collections
import concurrent.futures
import contextlib
import glob
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import mutants  # noqa: E402  (scripts/mutants.py: patches, builds and runs)

LABS = os.path.join(ROOT, 'tests', 'labs')
SCRATCH = os.path.join(ROOT, 'build', 'labs')
MATRIX_LOCKS = collections.defaultdict(threading.Lock)
SHOWN = 6                       # failed cases a grade line names
REASON_MAX = 160                # characters of each one's reason


class LabError(Exception):
    pass


def read_lab(name):
    """(headers {lab, page, grade: [(points, line)]}, [(file, hunks)])."""
    path = os.path.join(LABS, f'{name}.patch')
    if not os.path.exists(path):
        known = ', '.join(lab_names()) or 'none'
        raise LabError(f'no lab "{name}" (tests/labs/{name}.patch); the labs: {known}')
    headers, files = mutants.read_patch(path, keys=('lab', 'page', 'grade'), lists=('grade',))
    if 'lab' not in headers or 'page' not in headers or not headers['grade'] or not files:
        raise LabError(f'tests/labs/{name}.patch: needs "# lab:", "# page:", '
                       '"# grade:" lines and a diff')
    grades = []
    for line in headers['grade']:
        match = re.fullmatch(r'(\d+)\s+(\S.*)', line)
        if not match:
            raise LabError(f'tests/labs/{name}.patch: "# grade: {line}" is not '
                           '"POINTS RUN-LINE"')
        grades.append((int(match.group(1)), match.group(2)))
    headers['grade'] = grades
    return headers, files


def lab_names():
    """The labs in the course's order: their pages' numbers."""
    found = []
    for path in glob.glob(os.path.join(LABS, '*.patch')):
        name = os.path.basename(path)[:-len('.patch')]
        try:
            page = read_lab(name)[0]['page']
        except LabError:
            page = ''
        found.append((os.path.basename(page), name))
    return [name for _, name in sorted(found)]


def grade(tree, name, out=print, build=True):
    """Run the lab's grade lines in tree, printing each; [(line, points
    given, points)]: none given for a line if the kernel does not build.
    build=False: the caller built it."""
    headers, _ = read_lab(name)
    specs = [line for _, line in headers['grade']]
    results = []
    try:
        if build:
            mutants.build(tree, specs)
    except mutants.MutantError as error:
        out(f'{name}: the kernel {error}')
        results = [(line, 0, points) for points, line in headers['grade']]
    for number, (points, line) in enumerate(headers['grade'] if not results else []):
        started = time.monotonic()
        kind, _, rest = line.partition(' ')
        try:
            # A matrix boot keeps its log under its own name: one at a time per tree.
            with MATRIX_LOCKS[(tree, rest.split(' ')[0])] if kind == 'matrix' else \
                    contextlib.nullcontext():
                records = mutants.run_tests(tree, f'lab-{name}-{number}', {}, [line])
            failed = [r for r in records if r['status'] == 'fail']
            passed = [r for r in records if r['status'] == 'pass']
            verdict = ('FAIL: ' + explain(failed) if failed else
                       'OK' if passed else 'no points: every case skipped (not on this machine)')
        except (mutants.MutantError, subprocess.TimeoutExpired) as error:
            verdict, passed, failed = f'FAIL: {error}', [], [True]
        mine = points if passed and not failed else 0
        results.append((line, mine, points))
        out(f'{name}: {line}: {verdict} ({time.monotonic() - started:.1f} s) '
            f'[{mine}/{points}]')
    out(f'Score: {sum(r[1] for r in results)}/{sum(r[2] for r in results)}')
    return results


def explain(failed):
    """What failed, for a student: every failed case with its reason (the
    first few), and where the whole output is."""
    shown = []
    for r in failed[:SHOWN]:
        what = mutants.describe(r) if r['suite'] else f"{r['boot']}: the boot as a whole"
        reason = ' '.join(r['reason'].split())
        reason = '' if reason == 'not ok' else reason   # the log says why
        shown.append(f'{what}' + (f' ({reason[:REASON_MAX]})' if reason else ''))
    more = f'; {len(failed) - SHOWN} more' if len(failed) > SHOWN else ''
    logs = sorted({log_of(r) for r in failed})
    return '; '.join(shown) + more + f'; the whole output: {", ".join(logs)}'


def log_of(record):
    """Where a record's output is: a boot's serial log, the host binary's,
    or the fuzz replay's own command to run the failing input again."""
    if record['boot'] == 'fuzz':
        return f"build/fuzz-replay/{record['case']} {record['reason'].split(':')[0]}"
    if record['boot'] in ('check-rcu', 'sim'):
        return f"make {record['boot']}"
    if record['boot'].startswith('build/host/'):
        return f"build/logs/host-{os.path.basename(record['boot'])}.log"
    return f"build/logs/{record['boot']}.log"


def git(*args, check=True):
    return subprocess.run(['git', *args], cwd=ROOT, capture_output=True, text=True,
                          check=check)


def start(name):
    """A branch lab/NAME from HEAD with the starting point committed."""
    headers, files = read_lab(name)
    if git('status', '--porcelain', '--untracked-files=no').stdout.strip():
        raise LabError('commit or stash your changes first: the lab starts from a clean tree')
    branch = f'lab/{name}'
    if git('rev-parse', '--verify', '--quiet', branch, check=False).returncode == 0:
        raise LabError(f'branch {branch} exists: "git switch {branch}" to go on with it, '
                       f'or "git branch -D {branch}" to start again')
    try:
        mutants.apply(ROOT, files)
    except mutants.MutantError as error:
        raise LabError(f'the lab does not apply to this tree: {error}')
    git('switch', '-q', '-c', branch)
    identity = [] if git('config', 'user.email', check=False).stdout.strip() else \
        ['-c', 'user.name=testbed lab', '-c', 'user.email=lab@testbed.invalid']
    git(*identity, 'commit', '-q', '-a', '-m', f'lab: start {name}',
        '-m', f'The starting point of {headers["page"]}: the stubs are marked LAB({name}).')
    stubs = [path for path, hunks in files if any(f'LAB({name})' in new for _, new in hunks)]
    print(f'lab {name}: on branch {branch}; {headers["lab"]}')
    print(f'lab {name}: read {headers["page"]}; the stubs: {", ".join(stubs)} '
          f'(grep -n "LAB({name})")')
    print(f'lab {name}: grade your work with "make grade LAB={name}"')


def check_one(name, trees):
    """One lab as CI wants it; its problems, as lines. trees holds the
    scratch copies of the tree a starting point is built in."""
    try:
        headers, files = read_lab(name)
    except LabError as error:
        return [str(error)]
    problems = []
    page = os.path.join(ROOT, headers['page'])
    if not os.path.exists(page):
        problems.append(f'{name}: its page {headers["page"]} does not exist')
    elif f'make grade LAB={name}' not in mutants.runner.read_text(page):
        problems.append(f'{name}: {headers["page"]} never says "make grade LAB={name}"')
    if not any(f'LAB({name})' in new for _, hunks in files for _, new in hunks):
        problems.append(f'{name}: the patch marks no stub with LAB({name})')
    lines = []
    done = grade(ROOT, name, out=lines.append, build=False)
    if any(got != points for _, got, points in done):
        problems.append(f'{name}: this tree does not get every point:\n    ' +
                        '\n    '.join(lines))
    tree = trees.take()
    try:
        mutants.apply(tree, files)
        lines = []
        started = grade(tree, name, out=lines.append)
        if any('the kernel does not build' in line for line in lines):
            problems.append(f'{name}: the starting point does not build: {lines[0]}')
        free = [line for line, got, _ in started if got]
        if free:
            problems.append(f'{name}: the starting point already gets the points of '
                            + ', '.join(f'"{line}"' for line in free))
        print(f'lab {name}: this tree {sum(d[1] for d in done)}/{sum(d[2] for d in done)}, '
              f'the starting point {sum(d[1] for d in started)}/'
              f'{sum(d[2] for d in started)}', flush=True)
    except mutants.MutantError as error:
        problems.append(f'{name}: {error}')
    finally:
        mutants.reset_tree(tree, files)
        trees.put(tree)
    return problems


def check(names, jobs=(os.cpu_count() or 2) + 1):
    """Every lab as CI wants it, several at once (as the mutants run: a
    grade line waits on its boot part of the time); the problems, as
    lines. This tree is built once first, for every lab's lines."""
    specs = []
    for name in names:
        try:
            specs += [line for _, line in read_lab(name)[0]['grade']]
        except LabError:
            pass                # check_one() says so
    try:
        mutants.build(ROOT, specs)
    except mutants.MutantError as error:
        return [f'this tree {error}']
    trees = Trees()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return [line for lines in pool.map(lambda name: check_one(name, trees), names)
                for line in lines]


class Trees(mutants.Trees):
    """The scratch copies of the tree, build/labs/tree-N, made when needed."""

    def take(self):
        try:
            return self.free.get_nowait()
        except mutants.queue.Empty:
            with self.lock:
                tree = os.path.join(SCRATCH, f'tree-{self.made}')
                self.made += 1
            mutants.copy_tree(tree)
            return tree


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=('list', 'start', 'grade', 'check'))
    parser.add_argument('names', nargs='*')
    options = parser.parse_args(argv)
    try:
        if options.action == 'list':
            for name in lab_names():
                headers, _ = read_lab(name)
                print(f'{name:16} {headers["lab"]} ({headers["page"]})')
            return 0
        if options.action == 'check':
            problems = check(options.names or lab_names())
            for line in problems:
                print(f'labs: {line}')
            print(f'labs: {len(options.names or lab_names())} checked, {len(problems)} problems')
            return 1 if problems else 0
        if len(options.names) != 1:
            raise LabError(f'{options.action} takes one lab: LAB=NAME (scripts/lab.py list)')
        if options.action == 'start':
            start(options.names[0])
            return 0
        done = grade(ROOT, options.names[0])
        return 0 if all(got == points for _, got, points in done) else 1
    except LabError as error:
        print(f'lab: {error}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
