#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench.py - boot the benchmarks, keep their lines as JSON, compare ratios.

    bench.py run [--topo T] [--firmware F] [--accel A] [--args ARGS] [--json FILE]
                 [--backed-boots N]
        one boot with "bench=all story=off exit=on ARGS" (ARGS last, so
        ARGS="bench=rdtsc" replaces bench=all); the serial output goes to
        this terminal as it comes, and every "bench:" line is kept in FILE
        (default build/bench.json). Then --backed-boots N (default 3) boots
        of the same topology (story=off exit=on ARGS, no benchmarks) with
        all guest memory backed before they start (run.py --backed): the
        median of their "boot:" lines is the boot time without the host's
        first-touch faults, said next to the benchmarks' boot's own, lazily
        backed (docs/performance.md); both go into FILE under "boot". Then
        one boot of --icount-topo (default story-icount; "none": no boot),
        whose clock is the guest's own instruction count: its boot line's
        guest ms to all CPUs online, under "boot" "icount"
    bench.py compare [--baseline FILE] [--json FILE] [--update]
        the boots the baseline lists (tests/bench-baseline.json), each once.
        A boot's "gated" ratios are measured on a topology whose clock is
        QEMU's instruction counter (-icount): the guest's time is its own
        instruction count, so they repeat exactly from run to run and host
        to host; so does the guest's time to all CPUs online there (the
        kernel's "boot:" line, as the gated value boot_cpus_online_ms,
        in ms). Each is compared one-sided with its baseline value: it
        fails only when it got worse (per its "better": "higher" or
        "lower") by more than the baseline's band (at most 5%); better by
        more than the band is said, so the baseline can follow in the
        commit that made it so. A boot's "printed" ratios are TCG
        wall-clock figures: printed beside their last values, never
        gated. Exit 1 if a gated ratio got worse or is missing, or a boot
        failed. --update writes the measured values into the baseline.

Only ratios are compared (both sides of a ratio are measured in the same run
of the same boot), and on an -icount boot the guest's ms to all CPUs online,
which no host can move. A baseline value moves only in a commit whose body
names the ratio (scripts/check_commits.py checks it).

A bench line (docs/interface.md):
    bench: <name> <value> <unit>
    bench: <name> <value> <unit> (median of <k>, <lo>-<hi>)
"""
import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
import run  # noqa: E402  (tests/run.py: its topology parser)
RUN_PY = os.path.join(ROOT, 'tests', 'run.py')
DEFAULT_JSON = os.path.join('build', 'bench.json')
DEFAULT_BASELINE = os.path.join('tests', 'bench-baseline.json')
BOOT_TIMEOUT = 600              # seconds: bench=all on story takes about a minute

LINE = re.compile(r'bench: (?P<name>[A-Za-z0-9_]+) (?P<value>\d+\.\d{3}) (?P<unit>\S+)'
                  r'(?: \(median of (?P<runs>\d+), (?P<lo>\d+\.\d{3})-(?P<hi>\d+\.\d{3})\))?$')
PREFIX = re.compile(r'^\[\s*\d+\.\d+\] ')
BOOT_RESULT = 'boot_cpus_online_ms'   # the boot line's figure, as a result of its boot
BOOT_LINE = re.compile(r'boot: (?P<cpus>\d+) cpus online after (?P<ms>\d+) ms '
                       r'\((?P<consoles>\d+) ms of it writing to the consoles\)$')


def parse_lines(text):
    """Every bench result line of a boot's output: name -> its fields."""
    results = {}
    for raw in text.splitlines():
        line = PREFIX.sub('', raw.replace('\r', '').strip())
        m = LINE.match(line)
        if not m:
            continue
        entry = {'value': float(m['value']), 'unit': m['unit']}
        if m['runs']:
            entry.update(runs=int(m['runs']), lo=float(m['lo']), hi=float(m['hi']))
        results[m['name']] = entry
    return results


def parse_boot(text):
    """The kernel's "boot: N cpus online after M ms (C ms ...)" line: {cpus, ms, consoles_ms}."""
    for raw in text.splitlines():
        m = BOOT_LINE.match(PREFIX.sub('', raw.replace('\r', '').strip()))
        if m:
            return {'cpus': int(m['cpus']), 'ms': int(m['ms']),
                    'consoles_ms': int(m['consoles'])}
    return None


def boot_result(text):
    """The boot line's ms as a result like the bench lines': {BOOT_RESULT: ...} or {}."""
    got = parse_boot(text)
    return {BOOT_RESULT: {'value': float(got['ms']), 'unit': 'ms'}} if got else {}


def topology_memory(topo):
    """The guest memory of a topology, in bytes (its "memory:" line); None if not known."""
    try:
        return run.disk_bytes(run.load_topology(topo).memory)
    except run.SetupError:
        return None


def host_memory_available():
    """MemAvailable of /proc/meminfo, in bytes; None if it cannot be read."""
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return None


def backing_refused(topo):
    """Why a backed boot of topo should not run here (None: it may)."""
    need, have = topology_memory(topo), host_memory_available()
    if need is None or have is None:
        return 'the guest memory or the host\'s free memory is not known'
    if need + (1 << 30) > have:     # and 1 GiB for QEMU and the rest of the host
        return (f'the guest\'s {need >> 20} MiB would not fit in the host\'s '
                f'{have >> 20} MiB available with 1 GiB to spare')
    return None


def boot(topo, firmware, accel, args, echo=True, backed=False, bench='all'):
    """Boot once with the benchmarks (bench=none: without); (exit status, output)."""
    words = f'bench={bench} story=off exit=on' if bench != 'none' else 'story=off exit=on'
    cmd = [sys.executable, RUN_PY, 'run', '--topo', topo, '--accel', accel, '--no-menu',
           '--args', f'{words} {args}'.strip()]
    if firmware:
        cmd += ['--firmware', firmware]
    if backed:
        cmd += ['--backed']
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    out = []

    def on_alarm(signum, frame):
        os.killpg(proc.pid, signal.SIGKILL)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(BOOT_TIMEOUT)
    try:
        for chunk in iter(lambda: proc.stdout.readline(), b''):
            text = chunk.decode('utf-8', 'replace')
            out.append(text)
            if echo:
                sys.stdout.write(text)
                sys.stdout.flush()
        rc = proc.wait()
    finally:
        signal.alarm(0)
    if rc < 0:
        print(f'bench: the boot did not end within {BOOT_TIMEOUT} s', file=sys.stderr)
    return rc, ''.join(out)


def write_json(path, boots):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, 'w') as f:
        json.dump({'date': datetime.datetime.now(datetime.timezone.utc).isoformat(
                       timespec='seconds'),
                   'boots': boots}, f, indent=1, sort_keys=True)
        f.write('\n')


def median(values):
    """The middle value (the lower middle of an even count)."""
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2]


def boot_times(options, text):
    """The benchmarks' boot's own boot time and the backed boots': (dict for the JSON, summary).

    The benchmarks' boot comes first and is lazily backed like every other
    boot; the backed boots come after it, since each leaves the host with
    free huge pages that make the next lazily backed boot look fast.
    """
    lazy = parse_boot(text)
    times = {'lazily_backed': lazy}
    if options.backed_boots == 0:
        return times, 'bench: boot time with guest memory backed beforehand: not measured'
    why = backing_refused(options.topo)
    if why:
        return times, f'bench: boot time with guest memory backed beforehand: not measured ({why})'
    args = ' '.join(w for w in options.args.split() if not w.startswith(('bench=', 'bench.')))
    backed = []
    for _ in range(options.backed_boots):
        rc, text2 = boot(options.topo, options.firmware, options.accel, args,
                         echo=False, backed=True, bench='none')
        got = parse_boot(text2) if rc == 0 else None
        if not got:
            return times, f'bench: a backed boot gave no boot: line (status {rc})'
        backed.append(got)
    ms, consoles = [b['ms'] for b in backed], [b['consoles_ms'] for b in backed]
    times['backed'] = {'cpus': backed[0]['cpus'], 'ms': median(ms), 'lo': min(ms), 'hi': max(ms),
                       'consoles_ms': median(consoles), 'boots': len(backed)}
    said = (f'bench: boot: {backed[0]["cpus"]} cpus online after {median(ms)} ms with guest memory '
            f'backed beforehand (median of {len(ms)} boots, {min(ms)}-{max(ms)}; '
            f'{median(consoles)} ms of it writing to the consoles)')
    if lazy:
        said += (f'; {lazy["ms"]} ms in the benchmarks\' boot, lazily backed '
                 f'({lazy["consoles_ms"]} ms the consoles)')
    return times, said


def icount_boot_time(options):
    """One boot of options.icount_topo without benchmarks: (dict for the JSON, summary)."""
    topo = options.icount_topo
    args = ' '.join(w for w in options.args.split() if not w.startswith(('bench=', 'bench.')))
    rc, text = boot(topo, '', options.accel, args, echo=False, bench='none')
    got = parse_boot(text) if rc == 0 else None
    if not got:
        return None, f'bench: the {topo} boot gave no boot: line (status {rc})'
    got['topo'] = topo
    return got, (f'bench: boot: {got["cpus"]} cpus online after {got["ms"]} ms of guest time on '
                 f'{topo} (-icount: the guest\'s own instructions; {got["consoles_ms"]} ms of it '
                 f'writing to the consoles)')


def cmd_run(options):
    rc, text = boot(options.topo, options.firmware, options.accel, options.args)
    results = parse_lines(text)
    times, said = boot_times(options, text) if rc == 0 else ({}, None)
    if rc == 0 and options.icount_topo != 'none':
        times['icount'], icount_said = icount_boot_time(options)
        said = f'{said}\n{icount_said}' if said else icount_said
    write_json(options.json, [{'topo': options.topo, 'firmware': options.firmware or '',
                               'accel': options.accel, 'args': options.args,
                               'results': results, 'boot': times}])
    if said:
        print(said)
    print(f'bench: {len(results)} results written to {options.json}')
    return rc if rc > 0 else (0 if results else 1)


MAX_BAND = 0.05


def icount_topology(topo):
    """Does the topology's QEMU line count instructions for time (-icount)?"""
    return any('-icount' in word for word in run.load_topology(topo).qemu)


def check_baseline(baseline):
    """What is wrong with a baseline's shape (a list of sentences)."""
    found = []
    band = baseline.get('band')
    if not isinstance(band, (int, float)) or not 0 < band <= MAX_BAND:
        found.append(f'"band" must be above 0 and at most {MAX_BAND}')
    for spec in baseline.get('boots', []):
        gated = spec.get('gated', {})
        if gated and not icount_topology(spec['topo']):
            found.append(f'{spec["topo"]}: gated ratios need an -icount topology')
        for name, entry in gated.items():
            if entry.get('better') not in ('higher', 'lower') or \
                    not isinstance(entry.get('value'), (int, float)):
                found.append(f'{spec["topo"]}: {name}: needs "value" and "better" '
                             '("higher" or "lower")')
    return found


def judge(value, entry, band):
    """A gated ratio's verdict: 'ok', 'better' or 'WORSE'; and its signed change."""
    base = entry['value']
    change = (value - base) / base if base else (0.0 if value == base else float('inf'))
    gain = change if entry['better'] == 'higher' else -change
    return ('WORSE' if gain < -band else 'better' if gain > band else 'ok'), change


def cmd_compare(options):
    with open(options.baseline) as f:
        baseline = json.load(f)
    shape = check_baseline(baseline)
    if shape:
        for sentence in shape:
            print(f'bench-compare: {options.baseline}: {sentence}')
        return 1
    band = baseline['band']
    measured, worse, missing, rows = [], [], [], []
    for spec in baseline['boots']:
        topo, args = spec['topo'], spec.get('args', '')
        rc, text = boot(topo, spec.get('firmware', ''), options.accel, args, echo=False)
        results = parse_lines(text)
        if icount_topology(topo):
            results.update(boot_result(text))
        measured.append({'topo': topo, 'args': args, 'results': results})
        if rc != 0:
            print(f'bench-compare: {topo} ({args}): the boot ended with status {rc}')
            missing.append(f'{topo}: boot')
            continue
        for name, entry in sorted(spec.get('gated', {}).items()):
            if name not in results:
                missing.append(f'{topo}: {name}')
                rows.append((topo, name, 'gate', entry['value'], None, None, 'MISSING'))
                continue
            verdict, change = judge(results[name]['value'], entry, band)
            if verdict == 'WORSE':
                worse.append(f'{topo}: {name}')
            elif verdict == 'better':
                verdict = 'better: move the baseline in the commit that did it'
            rows.append((topo, name, 'gate', entry['value'], results[name]['value'], change,
                         verdict))
        for name, base in sorted(spec.get('printed', {}).items()):
            value = results.get(name, {}).get('value')
            change = None if value is None or not base else (value - base) / base
            rows.append((topo, name, 'tcg', base, value, change, 'printed, not gated'))
    if options.json:
        write_json(options.json, measured)
    if options.update:
        for spec, got in zip(baseline['boots'], measured):
            for name, entry in spec.get('gated', {}).items():
                if name in got['results']:
                    entry['value'] = got['results'][name]['value']
            for name in spec.get('printed', {}):
                if name in got['results']:
                    spec['printed'][name] = got['results'][name]['value']
        with open(options.baseline, 'w') as f:
            json.dump(baseline, f, indent=1)
            f.write('\n')
        print(f'bench-compare: baseline {options.baseline} updated')
        return 0
    width = max((len(r[1]) for r in rows), default=10)
    print(f'bench-compare: ratios against {options.baseline} (gated: -icount boots, one-sided, '
          f'band {band:.0%}; tcg: printed only)')
    for topo, name, kind, base, value, change, verdict in rows:
        got = '-' if value is None else f'{value:.3f}'
        delta = '' if change is None else f'{change:+.1%}'
        print(f'  {topo:12} {kind:4} {name:{width}} {base:9.3f} {got:>9} {delta:>7}  {verdict}')
    gated = sum(1 for r in rows if r[2] == 'gate')
    print(f'bench-compare: {gated} gated ratios, {len(worse)} worse, {len(missing)} missing; '
          f'{len(rows) - gated} printed')
    return 1 if worse or missing else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest='command', required=True)
    run = commands.add_parser('run', help='one boot of the benchmarks (make bench)')
    run.add_argument('--topo', default='story')
    run.add_argument('--firmware', default='')
    run.add_argument('--accel', choices=('tcg', 'kvm'), default='tcg')
    run.add_argument('--args', default='')
    run.add_argument('--json', default=DEFAULT_JSON)
    run.add_argument('--backed-boots', type=int, default=3, metavar='N',
                     help='boots (no benchmarks) that measure the boot time with guest memory '
                          'backed beforehand; 0: none (default 3)')
    run.add_argument('--icount-topo', default='story-icount', metavar='TOPO',
                     help='an -icount topology booted once (no benchmarks) for the guest\'s '
                          'time to all CPUs online; none: no such boot (default story-icount)')
    compare = commands.add_parser('compare', help='ratios against the baseline (make bench-compare)')
    compare.add_argument('--baseline', default=DEFAULT_BASELINE)
    compare.add_argument('--accel', choices=('tcg', 'kvm'), default='tcg')
    compare.add_argument('--json', default=os.path.join('build', 'bench-compare.json'))
    compare.add_argument('--update', action='store_true',
                         help='write the measured ratios into the baseline')
    options = parser.parse_args()
    os.chdir(ROOT)
    return cmd_run(options) if options.command == 'run' else cmd_compare(options)


if __name__ == '__main__':
    sys.exit(main())
