#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fuzz.py - run the fuzz targets (make fuzz) or replay their corpora (make test).

  fuzz.py run --seconds S TARGET...   libFuzzer, S seconds each, on a work
      corpus in $B/fuzz/corpus/TARGET ($B: the build directory, default build) seeded from tests/fuzz/corpus/TARGET;
      crashes land in build/fuzz/crashes/. One line per target: executions,
      edges covered, corpus size, and any crash. Exits 1 on a crash.
  fuzz.py replay TARGET...            every saved input through the gcc build
      (build/fuzz-replay/TARGET), under ASan and UBSan. Exits 1 on a failure.
  fuzz.py save TARGET...              merge what the work corpus found into
      tests/fuzz/corpus/TARGET, minimized (libFuzzer -merge=1), to commit.

A crash found by run is fixed with its input kept: minimize it
(build/fuzz/TARGET -minimize_crash=1 -runs=10000 CRASH), copy it into
tests/fuzz/corpus/TARGET/, and write the host unit test it calls for.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join('tests', 'fuzz', 'corpus')
BUILD = os.environ.get('B', 'build')     # the Makefile's build directory
WORK = os.path.join(BUILD, 'fuzz', 'corpus')
CRASHES = os.path.join(BUILD, 'fuzz', 'crashes')


def run_target(target, seconds):
    """(ok, line) for one libFuzzer run."""
    work, seeds = os.path.join(WORK, target), os.path.join(SEEDS, target)
    os.makedirs(os.path.join(ROOT, work), exist_ok=True)
    os.makedirs(os.path.join(ROOT, CRASHES), exist_ok=True)
    cmd = [os.path.join(BUILD, 'fuzz', target), f'-max_total_time={seconds}',
           '-print_final_stats=1', f'-artifact_prefix={CRASHES}/{target}-', work]
    if os.path.isdir(os.path.join(ROOT, seeds)):
        cmd.append(seeds)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    log = done.stderr
    with open(os.path.join(ROOT, BUILD, 'fuzz', f'{target}.log'), 'w') as f:
        f.write(log)
    execs = re.search(r'stat::number_of_executed_units:\s*(\d+)', log)
    cov = re.findall(r'\bcov: (\d+)', log)
    corpus = re.findall(r'\bcorp: (\d+)', log)
    what = (f'{int(execs.group(1)) if execs else 0} execs in {seconds} s, '
            f'{cov[-1] if cov else "?"} edges, corpus {corpus[-1] if corpus else "?"}')
    if done.returncode:
        artifact = re.findall(r'Test unit written to (\S+)', log)
        reason = re.findall(r'(ERROR: \w+Sanitizer: [^\n]*|check failed: [^\n]*|'
                            r'runtime error: [^\n]*|format "[^\n]*)', log)
        return False, (f'fuzz {target}: CRASH after {what}: '
                       f'{reason[0] if reason else "exit " + str(done.returncode)}'
                       f'{"; input " + artifact[0] if artifact else ""}')
    return True, f'fuzz {target}: {what}; no crash'


def replay_target(target):
    """(ok, line) for one corpus replay."""
    seeds = os.path.join(SEEDS, target)
    if not os.path.isdir(os.path.join(ROOT, seeds)) or not os.listdir(os.path.join(ROOT, seeds)):
        return False, f'replay {target}: no saved corpus in {seeds}'
    done = subprocess.run([os.path.join(BUILD, 'fuzz-replay', target), seeds], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    count = re.search(r': (\d+) inputs', done.stdout)
    if done.returncode:
        last = [line for line in done.stderr.splitlines() if line.startswith('replay: ')]
        tail = '\n'.join(done.stderr.splitlines()[-12:])
        return False, (f'replay {target}: FAILED on {last[-1][8:] if last else "?"}\n'
                       f'{tail}')
    return True, f'replay {target}: {count.group(1) if count else "?"} inputs'


def save_target(target):
    seeds = os.path.join(SEEDS, target)
    os.makedirs(os.path.join(ROOT, seeds), exist_ok=True)
    done = subprocess.run([os.path.join(BUILD, 'fuzz', target), '-merge=1', seeds,
                           os.path.join(WORK, target)], cwd=ROOT, capture_output=True, text=True)
    added = re.search(r'MERGE-OUTER: (\d+) new files', done.stderr)
    return done.returncode == 0, f'save {target}: {added.group(1) if added else "?"} new inputs'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=('run', 'replay', 'save'))
    parser.add_argument('targets', nargs='+')
    parser.add_argument('--seconds', type=int, default=60)
    options = parser.parse_args(argv)
    failed = 0
    for target in options.targets:
        if options.action == 'run':
            ok, line = run_target(target, options.seconds)
        elif options.action == 'replay':
            ok, line = replay_target(target)
        else:
            ok, line = save_target(target)
        failed += not ok
        print(line, flush=True)
    what = {'run': 'crashed', 'replay': 'failed', 'save': 'failed'}[options.action]
    print(f'{options.action}: {len(options.targets)} targets, {failed} {what}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
