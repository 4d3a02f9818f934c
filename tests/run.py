#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Boot testbed under QEMU and judge what the kernel reports.

The idea
--------
What to boot is data, not code.  A *topology* (tests/topologies/NAME.topo)
describes a virtual machine: chipset, memory, CPUs, NUMA layout, the default
firmware, and lines the kernel must print when it sees that machine.  The
*matrix* (tests/matrix) lists the test boots, one per line: which topology,
which firmware, how long it may take, what outcome to expect and which kernel
command line to pass.  Adding a test configuration means adding a line, never
touching this script.

Every test boot ends by writing a code to the isa-debug-exit port, so QEMU's
exit status tells how the kernel ended: 1 all passed, 3 some failed, 5 panic.
A status of 0 can only mean a triple fault or a reset (we pass -no-reboot), and
a boot that does not end before its timeout is a hang.  A boot marked
+nodebugexit has no such device, like real hardware: the kernel halts after
its tests with the line "tests done: ...; the machine is halted", which then
stands for the exit status (QEMU is killed once it appears).  Neither status alone is
trusted: the serial log must also hold a complete KTAP report (KUnit layout),
which is parsed case by case, so a failure is always reported with the name of
the failing case and the lines it printed.

The host unit tests (build/host/unit) print the same KTAP on stdout and are
judged by the same parser.

Counting: each KTAP case of a `pass` boot or a host binary is one test (ok
and skip pass, not ok fails); a case with no result line, a suite whose
structure is wrong, and anything wrong with the run as a whole (no report,
a bad exit, a short plan, a missing topology line) each add one failure.
A `panic:` or `fail:` boot is one test.

Layout of this file: configuration parsing, log cleaning, KTAP parsing and the
verdicts are pure functions of text (tests/test_run.py exercises them); the
functions that start processes come after them, then the reporting and the
command line.

Subcommands
-----------
  run.py run --topo NAME [--firmware bios|uefi] [--args ARGS] [--accel A]
             [--usb] [--debug] [--backed]
      Interactive boot (make run / make debug): serial on this terminal.
      --backed has QEMU back all guest memory before the boot (make bench's
      boot-time boot: no host first-touch faults in what it measures).
  run.py test [--host BINARY]... [--matrix FILE] [--only NAME,...]
              [--filter GLOB] [--json FILE] [--repeat N] [--timeout S]
              [--list] [--accel A] [--jobs N] [--every-case]
      Run the host binaries and the matrix boots (--only picks boots by
      name or glob; --host binaries always run); the last line printed is
      "N passed, N failed[, N skipped]". In kunit_tool's manner: --filter
      picks suites or cases (test=, see filter_args), --json writes one
      record per case, --repeat reruns everything and reports the cases
      whose outcome varied, --timeout replaces every boot's, --list prints
      the boots and exits. --every-case (make test) also fails when a case
      that some boot ran was skipped in every one: a device that vanished
      turns its suite into skips. Cases only hardware can run are listed
      in docs/testing.md ("Cases only hardware runs").

Environment: QEMU (the QEMU binary), QEMU_DISPLAY (display for `run`),
GDB (debugger command for `run --debug`), TESTBED_ISO (the image to boot,
default build/testbed.iso: make test-clang boots a clang build this way).
"""

import argparse
import concurrent.futures
import dataclasses
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

# --------------------------------------------------------------------------
# Paths and fixed settings.  All paths handed to QEMU are relative to the
# repository root, which is the working directory of every child process, so
# the printed command lines are short and can be pasted into a shell there.

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS_DIR = 'tests'
TOPO_DIR = os.path.join(TESTS_DIR, 'topologies')
MATRIX = os.path.join(TESTS_DIR, 'matrix')
ISO = os.environ.get('TESTBED_ISO') or 'build/testbed.iso'   # the image every boot uses
KERNEL_ELF = 'build/kernel.elf'
LOG_DIR = 'build/logs'
VARS_DIR = 'build/vars'
DISK_DIR = 'build/disks'
QMP_DIR = 'build/qmp'
SESSION_GRACE = 2           # seconds a boot may run on after its session failed
GDB_HELPERS = 'scripts/gdb/testbed.py'    # tb-cpus, tb-rq, tb-rcu, tb-swiotlb

# OVMF firmware: code and variable-store templates, best pair first.
OVMF_PAIRS = [
    ('/usr/share/OVMF/OVMF_CODE_4M.fd', '/usr/share/OVMF/OVMF_VARS_4M.fd'),
    ('/usr/share/OVMF/OVMF_CODE.fd', '/usr/share/OVMF/OVMF_VARS.fd'),
]

DEBUG_EXIT = 'isa-debug-exit,iobase=0xf4,iosize=0x04'
# The last line of a test= boot that found no debug-exit device (kernel/main.c).
HALTED = re.compile(r'tests done: (\d+) passed, (\d+) failed, (\d+) skipped; '
                    r'the machine is halted')
CMDLINE_FW_CFG = 'opt/testbed/cmdline'
# SMBIOS type 1's family string that tells iso/grub.cfg to skip its menu.
NO_MENU = ['-smbios', 'type=1,family=testbed-harness']
HOST_TIMEOUT = 120          # seconds allowed to one host test binary
TAIL = 20                   # lines of output shown for a failure

# The word "KTAP version 1" marks the start of the report; its column on
# its line is the width of the timestamp prefix of every kernel line.
KTAP_HEADER = 'KTAP version 1'

# Only used when a log has no KTAP header at all (a boot that panics
# before the tests start): a bracketed timestamp such as "[    0.123456] ".
FALLBACK_PREFIX = re.compile(r'\[[ \d.]+\] ')


class SetupError(Exception):
    """Something the run needs is missing or malformed; printed as one line."""


# --------------------------------------------------------------------------
# Records.  Plain data; every behaviour lives in the functions below.

@dataclasses.dataclass
class Topology:
    name: str
    description: str = ''
    machine: str = ''
    memory: str = ''
    smp: str = ''
    firmware: str = ''
    cpu: str = ''
    qemu: list = dataclasses.field(default_factory=list)    # extra argv
    expect: list = dataclasses.field(default_factory=list)  # required lines
    disk: str = ''      # size of a fresh raw disk on virtio-blk (modern), e.g. 16M
    args: str = ''      # kernel command line words for every boot on it, before the boot's
    console: str = 'com1'   # the port whose output is the boot's log: com1, or com2


@dataclasses.dataclass
class Boot:
    """One line of the matrix."""
    name: str
    topology: str
    firmware: str
    timeout: float
    kind: str           # 'pass', 'panic' or 'fail'
    target: str = ''    # the regex of panic:, the suite.case of fail:
    usb: bool = False
    alone: bool = False  # run with nothing else running (after the others)
    debugexit: bool = True  # False (+nodebugexit): no isa-debug-exit, as on hardware
    args: str = ''      # kernel command line
    session: str = ''   # +session=NAME: tests/sessions.py's NAME drives it over QMP


@dataclasses.dataclass
class Case:
    suite: str
    number: int
    name: str
    status: str         # 'ok', 'skip', 'fail', or 'crash' (no result line)
    reason: str = ''    # skip reason, or why a crash case is a failure
    output: list = dataclasses.field(default_factory=list)
    line: int = None    # index of its result line in the report's lines

    @property
    def id(self):
        return f'{self.suite}.{self.name}'


@dataclasses.dataclass
class Suite:
    name: str = ''
    number: int = 0
    plan: int = None
    status: str = None  # 'ok', 'skip', 'fail'; None when the log ended inside
    has_block: bool = False     # False: a bare top-level result, no cases
    cases: list = dataclasses.field(default_factory=list)
    problems: list = dataclasses.field(default_factory=list)
    output: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Ktap:
    found: bool = False
    plan: int = None
    suites: list = dataclasses.field(default_factory=list)
    problems: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Failure:
    title: str          # "suite.case", a suite name, or "boot"
    reasons: list
    sections: list = dataclasses.field(default_factory=list)  # (label, lines)


@dataclasses.dataclass
class Verdict:
    name: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    cases: int = 0      # number of KTAP cases seen (for the PASS line)
    elapsed: float = 0.0
    summary: str = ''   # the reason on the one-line FAIL
    failures: list = dataclasses.field(default_factory=list)
    report: object = None       # the Ktap it was judged from
    times: list = None          # per report line: its timestamp (s), or None


# --------------------------------------------------------------------------
# Configuration files (pure: text in, records out).

TOPO_KEYS = {'machine', 'memory', 'smp', 'firmware', 'cpu', 'qemu', 'expect', 'disk', 'args',
             'console'}
CONSOLES = ('com1', 'com2')
TOPO_REQUIRED = ('machine', 'memory', 'smp', 'firmware')
MACHINES = ('pc', 'q35')
FIRMWARES = ('bios', 'uefi')
BOOT_FLAGS = ('usb', 'alone', 'nodebugexit')
SESSION_FLAG = re.compile(r'session=(\w+)')


def parse_topology(name, text, where=None):
    """Parse a .topo file: "key: value" lines and "#" comments.

    The first comment line is the description (the SPDX licence line is
    not).  "qemu", "expect" and "args" may repeat; "qemu" values are
    split like a shell would and concatenated; "args" are kernel command
    line words that come before every boot's own (which win: the last
    good value of a key stands).
    """
    where = where or f'{name}.topo'
    topo = Topology(name=name)
    seen = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith('#'):
            if not topo.description and 'SPDX-License-Identifier' not in line:
                topo.description = line.lstrip('#').strip()
            continue
        key, colon, value = line.partition(':')
        key, value = key.strip(), value.strip()
        if not colon or key not in TOPO_KEYS:
            raise SetupError(f'{where}:{number}: expected "key: value" with '
                             f'key one of {", ".join(sorted(TOPO_KEYS))}')
        if key == 'qemu':
            topo.qemu += shlex.split(value)
        elif key == 'expect':
            topo.expect.append(value)
        elif key == 'args':
            topo.args = f'{topo.args} {value}'.strip()
        elif key in seen:
            raise SetupError(f'{where}:{number}: "{key}" given twice')
        else:
            setattr(topo, key, value)
        seen.add(key)
    missing = [k for k in TOPO_REQUIRED if k not in seen]
    if missing:
        raise SetupError(f'{where}: missing {", ".join(missing)}')
    if topo.machine not in MACHINES:
        raise SetupError(f'{where}: machine must be one of {MACHINES}')
    if topo.firmware not in FIRMWARES:
        raise SetupError(f'{where}: firmware must be one of {FIRMWARES}')
    if not re.fullmatch(r'\d+[KMGT]?', topo.memory):
        raise SetupError(f'{where}: memory "{topo.memory}" is not like 512M')
    if topo.console not in CONSOLES:
        raise SetupError(f'{where}: console must be one of {CONSOLES}')
    if topo.disk and disk_bytes(topo.disk) is None:
        raise SetupError(f'{where}: disk "{topo.disk}" is not like 16M')
    return topo


def parse_expect(column, where):
    """Split an expect column "KIND[:ARG][+FLAG]..." into (kind, arg, flags).

    Flags are recognised only when the word after the last "+" is a known
    flag, so a panic regex may still use "+" as a quantifier.
    """
    flags = set()
    while True:
        head, plus, tail = column.rpartition('+')
        if not plus or not (tail in BOOT_FLAGS or SESSION_FLAG.fullmatch(tail)):
            break
        flags.add(tail)
        column = head
    kind, colon, arg = column.partition(':')
    if kind == 'pass' and not colon:
        return kind, '', flags
    if kind == 'panic' and arg:
        try:
            re.compile(arg)
        except re.error as err:
            raise SetupError(f'{where}: bad panic regex: {err}') from None
        return kind, arg, flags
    if kind == 'fail' and re.fullmatch(r'[\w-]+\.[\w-]+', arg):
        return kind, arg, flags
    raise SetupError(f'{where}: expect "{column}" is not pass, '
                     'panic:REGEX or fail:SUITE.CASE (optionally +usb, '
                     '+alone, +nodebugexit, +session=NAME)')


def parse_matrix(text, where='matrix'):
    """Parse the matrix: one boot per line, "#" starts a comment line.

    Columns: name topology firmware timeout expect args...
    The args are the rest of the line, taken as is.
    """
    boots = []
    names = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        here = f'{where}:{number}'
        fields = line.split(None, 5)
        if len(fields) < 5:
            raise SetupError(f'{here}: expected at least 5 columns: '
                             'name topology firmware timeout expect [args]')
        name, topo, firmware, timeout, expect = fields[:5]
        if not re.fullmatch(r'[\w.-]+', name):
            raise SetupError(f'{here}: name "{name}" must be [A-Za-z0-9_.-]')
        if name in names:
            raise SetupError(f'{here}: boot "{name}" listed twice')
        if firmware not in FIRMWARES:
            raise SetupError(f'{here}: firmware must be one of {FIRMWARES}')
        try:
            seconds = float(timeout)
        except ValueError:
            seconds = 0
        if seconds <= 0:
            raise SetupError(f'{here}: timeout "{timeout}" is not a '
                             'positive number of seconds')
        kind, target, flags = parse_expect(expect, here)
        sessions = [SESSION_FLAG.fullmatch(f).group(1) for f in flags
                    if SESSION_FLAG.fullmatch(f)]
        if len(sessions) > 1:
            raise SetupError(f'{here}: more than one +session=')
        names.add(name)
        boots.append(Boot(name=name, topology=topo, firmware=firmware,
                          timeout=seconds, kind=kind, target=target,
                          usb='usb' in flags, alone='alone' in flags,
                          debugexit='nodebugexit' not in flags,
                          session=sessions[0] if sessions else '',
                          args=fields[5] if len(fields) > 5 else ''))
    return boots


# --------------------------------------------------------------------------
# Log cleaning (pure).

# ANSI/VT100 escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or
# ESC \), character-set selection (ESC ( B) and the two-byte ones (ESC c).
ANSI_ESCAPE = re.compile(r'\x1b(?:\[[0-?]*[ -/]*[@-~]'
                         r'|\][^\x07\x1b]*(?:\x07|\x1b\\)'
                         r'|[()][0-9A-Za-z]'
                         r'|[@-Z\\-_])')
# Other control characters (\r among them), except tab and newline.
CONTROL = re.compile(r'[\x00-\x08\x0b-\x1f\x7f]')


def clean_log(text):
    """Return the lines of a serial log without escapes and carriage returns.

    Under UEFI the firmware and GRUB paint the screen before the kernel
    starts; what they leave is noise to be removed before parsing.
    """
    text = ANSI_ESCAPE.sub('', text)
    text = CONTROL.sub('', text)
    return text.split('\n')


def prefix_shape(text):
    """Reduce a timestamp prefix to its shape: digits and blanks are alike."""
    return re.sub(r'[\d ]', '0', text)


def find_prefix(lines):
    """Return (index of the KTAP header or None, the kernel's line prefix).

    The prefix is whatever precedes "KTAP version 1" on its line, as
    Linux's kunit.py measures it.  Without a header, the first line that
    starts with a bracketed timestamp gives it, so a boot that died before
    its tests can still be read.
    """
    for index, line in enumerate(lines):
        column = line.find(KTAP_HEADER)
        if column >= 0:
            return index, line[:column]
    for line in lines:
        match = FALLBACK_PREFIX.match(line)
        if match:
            return None, match.group(0)
    return None, ''


def strip_prefix(lines, prefix):
    """Remove the kernel's prefix from each line that carries one.

    A line carries it when its first characters have the prefix's shape;
    firmware and boot loader lines don't, and are left alone.
    """
    width, shape = len(prefix), prefix_shape(prefix)
    return [line[width:] if prefix_shape(line[:width]) == shape else line
            for line in lines]


def kernel_lines(log_text):
    """Clean a serial log: return (lines without the prefix, KTAP start)."""
    lines = clean_log(log_text)
    start, prefix = find_prefix(lines)
    return strip_prefix(lines, prefix), start


TIMESTAMP = re.compile(r'\[\s*(\d+\.\d+)\]')


def report_times(log_text):
    """The timestamp (seconds) of each line of the KTAP report, from its
    header on (index 0), None where a line has none; [] without a report."""
    lines = clean_log(log_text)
    start, prefix = find_prefix(lines)
    if start is None:
        return []
    times = []
    for line in lines[start:]:
        match = TIMESTAMP.match(line[:len(prefix)]) if prefix else None
        times.append(float(match.group(1)) if match else None)
    return times


# --------------------------------------------------------------------------
# KTAP parsing (pure).

PLAN = re.compile(r'1\.\.(\d+)\s*$')
RESULT = re.compile(r'(not ok|ok)\s+(\d+)\b\s*(?:-\s+)?(.*)$')
VERSION = re.compile(r'K?TAP version \d+\s*$')
SUBTEST = re.compile(r'#\s*Subtest:\s*(.*?)\s*$')
RUN = re.compile(r'#\s*RUN\s+(\S+)\s*$')    # a case starting (kselftest's)


def classify(line):
    """Tell what one (prefix-free) line is.

    Returns (level, kind, data): level is the nesting depth (4 spaces per
    level); kind is 'version', 'plan' (data: count), 'subtest' (data: name),
    'result' (data: (status, number, name, skip reason)), 'diag' or 'other'.
    """
    body = line.lstrip(' ')
    level = (len(line) - len(body)) // 4
    body = body.rstrip()
    if VERSION.match(body):
        return level, 'version', None
    match = PLAN.match(body)
    if match:
        return level, 'plan', int(match.group(1))
    match = SUBTEST.match(body)
    if match:
        return level, 'subtest', match.group(1)
    match = RESULT.match(body)
    if match:
        name, _, directive = match.group(3).partition('#')
        directive = directive.strip()
        status = 'ok' if match.group(1) == 'ok' else 'fail'
        reason = ''
        if directive[:4].lower() == 'skip':
            status, reason = 'skip', directive[4:].strip()
        return level, 'result', (status, int(match.group(2)), name.strip(),
                                 reason)
    if body.startswith('#'):
        return level, 'diag', body
    return level, 'other', body


def plan_message(plan, got):
    results = 'result' if got == 1 else 'results'
    if got < plan:
        return f'plan 1..{plan} but only {got} {results}'
    return f'plan 1..{plan} but {got} {results}'


def close_suite(suite, pending, finished):
    """Check a suite's plan once its block is over.

    A case announced by the plan but without a result line is a failure.
    When the log ended inside the suite, the first such case is the one
    that was running when the kernel died: status 'crash', and its output
    is what was printed since the last result (the panic message, say).
    In a suite that did finish, it is just 'missing'.
    """
    got = len(suite.cases)
    if suite.plan is None:
        if not finished:
            suite.problems.append('the log ended inside the suite, '
                                  'before its plan')
            suite.output += pending
        elif suite.has_block:
            suite.problems.append('no plan line in the suite')
        return
    if got < suite.plan:
        after = f' (after {suite.cases[-1].name})' if suite.cases else ''
        how = 'did not finish' if not finished else 'has no result'
        started = [m.group(1) for m in map(RUN.match, (p.strip() for p in pending)) if m]
        suite.cases.append(Case(
            suite=suite.name or '?', number=got + 1,
            name=started[-1] if started else f'#{got + 1}',
            status='missing' if finished else 'crash',
            output=[] if finished else list(pending),
            reason=f'case {got + 1}{after} {how}: '
                   f'{plan_message(suite.plan, got)}'))
    elif got > suite.plan:
        suite.problems.append(plan_message(suite.plan, got))
    elif not finished:
        suite.problems.append('the log ended before the suite\'s own result')
        suite.output += pending


def check_suite_status(suite):
    """A suite's own result must agree with its cases'."""
    bad = [c for c in suite.cases if c.status not in ('ok', 'skip')]
    if suite.status == 'fail' and suite.cases and not bad:
        suite.problems.append('suite reported "not ok" but none of its '
                              'cases failed')
    elif suite.status in ('ok', 'skip') and bad:
        suite.problems.append('suite reported "ok" but some of its cases '
                              'failed')


def add_case(suite, data, output):
    status, number, name, reason = data
    expected = len(suite.cases) + 1
    if number != expected:
        suite.problems.append(f'case "{name}" numbered {number}, '
                              f'expected {expected}')
    suite.cases.append(Case(suite=suite.name or '?', number=number,
                            name=name, status=status, reason=reason,
                            output=output))


def parse_ktap(lines):
    """Parse a KTAP version 1 report in KUnit's layout.

    `lines` are the prefix-free lines after the top-level header.  Level 0
    holds the plan of suites and one result per suite; each suite's block is
    one level deeper, with its own header, "# Subtest:" line, plan and one
    result per case.  Anything else (diagnostics, other kernel output,
    deeper sub-subtests) belongs to the case whose result comes next.
    """
    report = Ktap(found=True)
    suite = None        # the suite whose block is open
    pending = []        # lines since the last result
    for index, line in enumerate(lines):
        level, kind, data = classify(line)
        if kind == 'other' or level >= 2:
            pending.append(line)
        elif level == 1 or kind == 'subtest':
            # Inside a suite's block (its "# Subtest:" line may also be
            # written one level up, as in TAP 14).
            suite = suite or Suite(has_block=True)
            if kind == 'subtest':
                suite.name = data
            elif kind == 'plan' and suite.plan is None:
                suite.plan = data
            elif kind == 'result':
                add_case(suite, data, pending + [line])
                suite.cases[-1].line = index
                pending = []
            elif kind == 'diag':
                pending.append(line)
        elif kind == 'plan' and report.plan is None and not report.suites:
            report.plan = data
        elif kind == 'result':
            report.suites.append(end_suite(suite or Suite(), data, pending,
                                           report))
            suite, pending = None, []
        else:
            pending.append(line)
    if suite is not None:
        close_suite(suite, pending, finished=False)
        report.suites.append(suite)
    elif report.plan is not None and len(report.suites) != report.plan:
        report.problems.append(plan_message(report.plan, len(report.suites)))
    if report.plan is None:
        report.problems.insert(0, 'missing KTAP plan')
    return report


def end_suite(suite, data, pending, report):
    """Take a suite's top-level result line: name it, check it, return it."""
    status, number, name, _ = data
    suite.name, suite.number, suite.status = name, number, status
    for case in suite.cases:
        case.suite = name
    close_suite(suite, pending, finished=True)
    check_suite_status(suite)
    suite.output += pending
    expected = len(report.suites) + 1
    if number != expected:
        report.problems.append(f'suite "{name}" numbered {number}, '
                               f'expected {expected}')
    return suite


def read_ktap(lines, start):
    """Parse the report that begins at line `start` (None: there is none)."""
    if start is None:
        return Ktap()
    return parse_ktap(lines[start + 1:])


def all_cases(report):
    return [case for suite in report.suites for case in suite.cases]


# --------------------------------------------------------------------------
# Verdicts (pure).  Each takes what a run produced and returns a Verdict.

def describe_qemu_exit(rc, timeout):
    """Map QEMU's exit status to ('passed'|'failed'|'abnormal', words)."""
    if rc is None:
        return 'abnormal', f'hang: no exit after {timeout:g} s'
    if rc == 1:
        return 'passed', 'QEMU exit 1 (kernel: all passed)'
    if rc == 3:
        return 'failed', 'QEMU exit 3 (kernel: some failed)'
    if rc == 5:
        return 'abnormal', 'kernel panic (QEMU exit 5)'
    if rc == 0:
        return 'abnormal', 'triple fault or reset (QEMU exit 0)'
    if rc < 0:
        return 'abnormal', f'QEMU killed by {signal_name(-rc)}'
    if rc % 2:
        return 'abnormal', (f'unknown debug-exit code {(rc - 1) // 2} '
                            f'(QEMU exit {rc})')
    return 'abnormal', f'QEMU exit {rc} (QEMU itself failed?)'


def describe_halt(lines, timeout):
    """For a +nodebugexit boot: the halted line stands for the exit status.

    Returns (outcome, words) like describe_qemu_exit.
    """
    for line in lines:
        match = HALTED.search(line)
        if match:
            failed = int(match.group(2))
            return (('failed', f'halted with {failed} failed') if failed
                    else ('passed', 'halted, all passed'))
    return 'abnormal', f'hang: no "the machine is halted" line after {timeout:g} s'


def halted_line_problems(lines, report):
    """The halted line must repeat the KTAP report's counts and come last."""
    kernel = [line for line in lines if line.strip()]
    found = [i for i, line in enumerate(kernel) if HALTED.search(line)]
    if not found or not report.found:
        return []
    match = HALTED.search(kernel[found[0]])
    cases = all_cases(report)
    counts = (sum(c.status == 'ok' for c in cases),
              sum(c.status not in ('ok', 'skip') for c in cases),
              sum(c.status == 'skip' for c in cases))
    problems = []
    if tuple(int(g) for g in match.groups()) != counts:
        problems.append(f'halted line says {match.group(0)!r} but KTAP counts '
                        f'{counts[0]} passed, {counts[1]} failed, {counts[2]} skipped')
    if found[0] != len(kernel) - 1:
        problems.append(f'lines after the halted line: {kernel[found[0] + 1].strip()!r}')
    return problems


def describe_host_exit(rc, timeout):
    """Map a host test binary's exit status like describe_qemu_exit."""
    if rc is None:
        return 'abnormal', f'hang: no exit after {timeout:g} s'
    if rc == 0:
        return 'passed', 'exit 0'
    if rc < 0:
        return 'abnormal', f'killed by {signal_name(-rc)}'
    return 'failed', f'exit {rc}'


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f'signal {number}'


def missing_lines(lines, wanted):
    """Return the wanted lines that no (prefix-free) log line equals; a
    wanted line "re:REGEX" is matched whole (re.fullmatch) instead."""
    present = {line.rstrip() for line in lines}

    def found(want):
        want = want.strip()
        if want.startswith('re:'):
            pattern = re.compile(want[3:])
            return any(pattern.fullmatch(line) for line in present)
        return want in present
    return [want for want in wanted if not found(want)]


def tail(lines, count=TAIL):
    """The last `count` lines, without trailing blank ones."""
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines[-count:]


FAILED_CHECK = re.compile(r'^\s*# \S+: EXPECTATION FAILED at ')


def failed_checks(case):
    """Lines of a case's output that report a failed check."""
    return [line for line in case.output if FAILED_CHECK.match(line)]


def judge_cases(name, report, outcome, exit_words, sections, extra=(),
                whole='boot'):
    """Count every KTAP case of a boot or binary that should pass.

    A failing or crashed case is a failure of its own, and so is a suite
    whose structure is wrong.  Anything wrong with the run as a whole (no
    report, a bad exit, missing suites, the `extra` reasons) adds one more
    failure, titled `whole`, listing every reason, with the output sections.
    """
    verdict = Verdict(name=name)
    blamed = False      # a crash case takes the blame for an abnormal end
    for case in all_cases(report):
        verdict.cases += 1
        if case.status in ('ok', 'skip') and failed_checks(case):
            # A check failed, yet the case says ok: never trust the "ok".
            verdict.failed += 1
            verdict.failures.append(Failure(
                case.id, [f'reported {case.status}, but a check failed'],
                own_output(case.output, sections)))
            continue
        if case.status == 'ok':
            verdict.passed += 1
        elif case.status == 'skip':
            verdict.skipped += 1
        else:
            reason = case.reason or 'not ok'
            if case.status == 'crash' and outcome == 'abnormal':
                reason, blamed = f'{exit_words} in this case; {reason}', True
            verdict.failed += 1
            verdict.failures.append(Failure(
                case.id, [reason], own_output(case.output, sections)))
    for suite in report.suites:
        problems = list(suite.problems)
        if not suite.has_block and suite.status:
            # A bare suite result, without cases, counts as one test.
            verdict.cases += 1
            if suite.status == 'ok':
                verdict.passed += 1
            elif suite.status == 'skip':
                verdict.skipped += 1
            else:
                problems.append('not ok')
        if problems and suite.status is None and outcome == 'abnormal' \
                and not blamed:
            # The log ended inside this suite, between its cases.
            problems[0], blamed = f'{exit_words}; {problems[0]}', True
        if problems:
            verdict.failed += 1
            verdict.failures.append(Failure(
                suite.name or '?', problems,
                own_output(suite.output, sections)))
    bad = verdict.failed
    boot = []
    if outcome == 'abnormal' and not blamed:
        boot.append(exit_words)
    if not report.found:
        boot.append('no KTAP output (no "KTAP version 1" line)')
    boot += report.problems
    if outcome == 'passed' and bad:
        boot.append(f'{exit_words}, but KTAP shows failures')
    elif outcome == 'failed' and not bad and report.found:
        boot.append(f'{exit_words}, but no KTAP case failed')
    boot += extra
    if boot:
        verdict.failed += 1
        verdict.failures.append(Failure(whole, boot, sections))
    if verdict.failed:
        verdict.summary = summarize(verdict, boot)
    return verdict


def own_output(lines, sections):
    """A failure shows its own lines; when there are none, the log's tail."""
    lines = tail(lines)
    return [('output', lines)] if lines else sections


def summarize(verdict, boot_reasons):
    """The reason given on a FAIL line."""
    if boot_reasons:
        more = len(boot_reasons) - 1
        return boot_reasons[0] + (f' (+{more} more)' if more else '')
    if len(verdict.failures) == 1:
        failure = verdict.failures[0]
        return f'{failure.title}: {failure.reasons[0]}'
    names = [f.title for f in verdict.failures]
    shown = ', '.join(names[:3]) + (', ...' if len(names) > 3 else '')
    return f'{len(names)} failed: {shown}'


def single_verdict(name, reasons, sections, title='boot'):
    """A boot that counts as one test: passed when there is no reason."""
    verdict = Verdict(name=name, cases=1)
    if reasons:
        verdict.failed = 1
        verdict.failures.append(Failure(title, reasons, sections))
        verdict.summary = summarize(verdict, reasons)
    else:
        verdict.passed = 1
    return verdict


def judge_boot(boot, topo, rc, log_text, qemu_text='', log_name='log',
               session_problems=()):
    """Decide whether one matrix boot did what its line expects.

    rc is QEMU's exit status, None when the timeout killed it; qemu_text
    is what QEMU itself printed; session_problems are what a +session=
    boot's session found wrong (each a reason the boot failed).
    """
    lines, start = kernel_lines(log_text)
    report = read_ktap(lines, start)
    stopped = hardware_error(qemu_text)
    if rc is not None and rc < 0 and not stopped:
        return emulator_crashed(boot.name, rc, log_text, qemu_text, log_name)
    if boot.debugexit:
        outcome, words = describe_qemu_exit(rc, boot.timeout)
    else:
        outcome, words = describe_halt(lines, boot.timeout)
        rc = {'passed': 1, 'failed': 3}.get(outcome)    # what the port would have said
    sections = [(f'{log_name} (last {TAIL} lines)', tail(clean_log(log_text))),
                ('QEMU said', tail(qemu_text.splitlines(), 10))]
    missing = [f'missing expected line: "{line}"'
               for line in missing_lines(lines, topo.expect)]
    if stopped:
        missing.append(f'QEMU stopped the machine: {stopped} (a device refused what the '
                       'kernel asked of it)')
    if not boot.debugexit:
        missing += halted_line_problems(lines, report)
    missing += [f'session {boot.session}: {p}' for p in session_problems]
    if boot.kind == 'pass':
        verdict = judge_cases(boot.name, report, outcome, words, sections,
                              missing)
        verdict.report, verdict.times = report, report_times(log_text)
        return verdict
    if boot.kind == 'panic':
        reasons = judge_expected_panic(boot.target, lines, rc, words)
    else:
        reasons = judge_expected_failure(boot.target, report, rc, words)
    return single_verdict(boot.name, reasons + missing, sections)


def hardware_error(qemu_text):
    """QEMU's hw_error() line, if a device model stopped the machine: QEMU
    prints "qemu: hardware error: ..." and aborts when a guest drives a
    device where it refuses to go (edu: a DMA outside its buffer). That is
    the guest's failure, not the emulator's."""
    for line in qemu_text.splitlines():
        if 'hardware error:' in line:
            return line.split('hardware error:', 1)[1].strip()[:160]
    return None


def emulator_crashed(name, rc, log_text, qemu_text, log_name='log'):
    """QEMU itself died of a signal (not after a hardware error): the
    emulator's failure, not the kernel's, whatever the guest had printed. Its own record ("emulator",
    not "boot"), with the signal and the last line the guest wrote."""
    guest = [line for line in clean_log(log_text) if line.strip()]
    last = guest[-1].strip() if guest else '(nothing)'
    reasons = [f'the emulator crashed: QEMU died of {signal_name(-rc)}, not the kernel; '
               f'the guest\'s last line: "{last[:160]}"']
    sections = [(f'{log_name} (last {TAIL} lines)', tail(clean_log(log_text))),
                ('QEMU said', tail(qemu_text.splitlines(), 10))]
    return single_verdict(name, reasons, sections, title='emulator')


def judge_expected_panic(pattern, lines, rc, words):
    """Reasons why a panic:REGEX boot did not panic as it should."""
    reasons = []
    if rc != 5:
        reasons.append(f'wrong exit code: expected 5 (kernel panic), '
                       f'got {words}')
    regex = re.compile(pattern)
    if not any(regex.search(line) for line in lines):
        reasons.append(f'no line matches /{pattern}/')
    return reasons


def judge_expected_failure(target, report, rc, words):
    """Reasons why a fail:SUITE.CASE boot did not fail as it should."""
    reasons = []
    if rc != 3:
        reasons.append(f'wrong exit code: expected 3 (some failed), '
                       f'got {words}')
    if not report.found:
        return reasons + ['no KTAP output (no "KTAP version 1" line)']
    reasons += report.problems
    for suite in report.suites:
        reasons += [f'{suite.name}: {p}' for p in suite.problems]
    cases = {case.id: case for case in all_cases(report)}
    if target not in cases:
        reasons.append(f'case {target} not in the KTAP report')
    elif cases[target].status != 'fail':
        reasons.append(f'case {target} should be "not ok" but is '
                       f'{cases[target].status}')
    others = [c.id for c in cases.values()
              if c.id != target and c.status not in ('ok', 'skip')]
    if others:
        reasons.append('other cases failed too: ' + ', '.join(others))
    return reasons


def judge_host(name, rc, stdout, stderr, timeout=HOST_TIMEOUT):
    """Decide on a host test binary from its exit status and its output.

    Its KTAP has no prefix; a sanitizer's report comes on stderr.
    """
    lines, start = kernel_lines(stdout)
    report = read_ktap(lines, start)
    outcome, words = describe_host_exit(rc, timeout)
    errors = tail(stderr.splitlines())
    verdict = judge_cases(name, report, outcome, words,
                          [(f'stdout (last {TAIL} lines)', tail(lines)),
                           ('stderr', errors)], whole='binary')
    verdict.report = report
    for failure in verdict.failures:
        if ('stderr', errors) not in failure.sections:
            failure.sections.append(('stderr', errors))
    return verdict


# --------------------------------------------------------------------------
# QEMU command lines.

# --------------------------------------------------------------------------
# What --json writes, --filter selects and --repeat compares (pure).

def case_records(verdict):
    """One record per test of a judged boot or binary, for --json.

    A case's duration is the time since the previous result line (the
    report's header for the first), from the kernel's timestamps; None for
    a host binary, which has none. A failure of the run as a whole, or of a
    panic: or fail: boot, is a record of its own with no suite.
    """
    failures = {f.title: f for f in verdict.failures}
    times = verdict.times or []
    records, previous = [], times[0] if times else None
    for case in all_cases(verdict.report) if verdict.report else []:
        end = times[case.line + 1] if case.line is not None and \
            case.line + 1 < len(times) else None
        duration = round(end - previous, 6) if None not in (end, previous) \
            else None
        previous = end if end is not None else previous
        failure = failures.pop(case.id, None)
        status = 'fail' if failure else \
            {'ok': 'pass', 'skip': 'skip'}.get(case.status, 'fail')
        reason = '; '.join(failure.reasons) if failure else case.reason
        records.append({'boot': verdict.name, 'suite': case.suite,
                        'case': case.name, 'status': status,
                        'reason': reason, 'duration': duration})
    for failure in failures.values():
        records.append({'boot': verdict.name, 'suite': None,
                        'case': failure.title, 'status': 'fail',
                        'reason': '; '.join(failure.reasons),
                        'duration': None})
    if not records:     # a panic: or fail: boot that went as expected
        records.append({'boot': verdict.name, 'suite': None,
                        'case': verdict.name, 'status': 'pass', 'reason': '',
                        'duration': round(verdict.elapsed, 3)})
    return records


def filter_selection(selection, glob):
    """The test= value of a boot under --filter GLOB, or None if nothing is left.

    GLOB is "suite" or "suite.case", either part a glob, as the kernel's
    test= takes it, or several separated by commas (what any of them
    picks). "all" becomes GLOB; a suite named in the selection stays if its
    name matches GLOB's suite part, with GLOB's case part added.
    """
    words = []
    for one in filter(None, glob.split(',')):
        suite_glob, _, case_glob = one.partition('.')
        for word in filter(None, selection.split(',')):
            if word == 'all':
                words.append(one)
                continue
            suite, _, case = word.partition('.')
            if fnmatch.fnmatchcase(suite, suite_glob):
                case = case_glob or case
                words.append(suite + ('.' + case if case else ''))
    return ','.join(dict.fromkeys(words)) or None


def filter_boots(boots, glob):
    """Apply --filter to the matrix: boots left, with their test= narrowed.

    A panic: or fail: boot is kept as it is when its selection still picks
    something (its expectation names what must happen), else dropped.
    """
    kept = []
    for boot in boots:
        words = boot.args.split()
        tests = [w for w in words if w.startswith('test=')]
        if not tests:
            continue
        narrowed = filter_selection(tests[-1][5:], glob)
        if narrowed is None:
            continue
        if boot.kind == 'pass':
            words = [w for w in words if not w.startswith('test=')]
            boot = dataclasses.replace(boot, args=' '.join(
                words + [f'test={narrowed}']))
        kept.append(boot)
    return kept


def flaky_cases(runs):
    """From the records of several runs: the tests whose outcome varied,
    as lines "boot: suite.case: pass 2, fail 1"."""
    seen = {}
    for records in runs:
        for r in records:
            test = (r['boot'], f"{r['suite']}.{r['case']}" if r['suite']
                    else r['case'])
            seen.setdefault(test, []).append(r['status'])
    lines = []
    for (boot, test), statuses in sorted(seen.items()):
        if len(set(statuses)) > 1 or len(statuses) < len(runs):
            counts = ', '.join(f'{s} {statuses.count(s)}'
                               for s in sorted(set(statuses)))
            missing = len(runs) - len(statuses)
            counts += f', absent {missing}' if missing else ''
            lines.append(f'{boot}: {test}: {counts}')
    return lines


def find_qemu():
    binary = os.environ.get('QEMU', 'qemu-system-x86_64')
    path = shutil.which(binary)
    if not path:
        raise SetupError(f'{binary} not found '
                         '(apt-get install qemu-system-x86, or set QEMU)')
    return binary


def find_ovmf():
    """Return (code, vars template) of the first OVMF pair installed."""
    for code, variables in OVMF_PAIRS:
        if os.path.exists(code) and os.path.exists(variables):
            return code, variables
    raise SetupError('OVMF firmware not found in /usr/share/OVMF '
                     '(apt-get install ovmf)')


def escape_option(value):
    """QEMU's option syntax: a literal comma is written as two."""
    return value.replace(',', ',,')


def disk_bytes(size):
    """'16M' -> 16777216; None if it is not a size."""
    m = re.fullmatch(r'(\d+)([KMG]?)', size)
    if not m:
        return None
    return int(m.group(1)) << {'': 0, 'K': 10, 'M': 20, 'G': 30}[m.group(2)]


def qemu_command(qemu, topo, firmware, accel, usb, args, serial, display,
                 ovmf=None, disk=None, debugexit=True, backed=False, menu=True):
    """Build the QEMU argv for one boot.

    ovmf is (code, private vars copy) and is needed for UEFI; disk is the
    raw image for the topology's virtio-blk disk, when it has one;
    debugexit=False leaves out the isa-debug-exit device; backed=True has
    QEMU back all guest memory before the boot (see backed_memory());
    menu=False has GRUB start its default entry at once (NO_MENU).
    """
    cmd = [qemu, '-machine', topo.machine, '-m', topo.memory,
           '-smp', topo.smp, '-accel', accel]
    if accel == 'kvm':
        cmd += ['-cpu', 'host']
    else:
        cmd += ['-cpu', topo.cpu or 'max']
    if firmware == 'uefi':
        code, variables = ovmf
        cmd += ['-drive', f'if=pflash,format=raw,unit=0,readonly=on,'
                          f'file={escape_option(code)}',
                '-drive', f'if=pflash,format=raw,unit=1,'
                          f'file={escape_option(variables)}']
    if usb:
        cmd += ['-device', 'qemu-xhci',
                '-drive', 'if=none,id=stick,format=raw,readonly=on,'
                          f'file={escape_option(ISO)}',
                '-device', 'usb-storage,drive=stick,bootindex=0']
    else:
        cmd += ['-cdrom', ISO, '-boot', 'd']
    if debugexit:
        cmd += ['-device', DEBUG_EXIT]
    if not menu:
        cmd += NO_MENU
    cmd += ['-no-reboot', '-display', display, '-serial', serial]
    if args:
        cmd += ['-fw_cfg',
                f'name={CMDLINE_FW_CFG},string={escape_option(args)}']
    if disk:
        # Modern virtio only (1af4:1042): the driver speaks virtio 1.x.
        cmd += ['-drive', f'if=none,id=vd0,format=raw,file={escape_option(disk)}',
                '-device', 'virtio-blk-pci,drive=vd0,disable-legacy=on']
    return cmd + (backed_memory(topo.qemu) if backed else topo.qemu)


def backed_memory(extra):
    """The topology's own QEMU options, with all guest memory backed at start.

    QEMU backs guest RAM lazily: the guest's first write into a fresh 2 MiB
    region makes the host find and zero a huge page, 0.2 ms or 8 ms by the
    host's state (docs/boot.md). prealloc=on on every memory backend (or
    -mem-prealloc where -m alone gives the memory) does that before the
    first instruction, as a real machine's RAM needs nothing: what a boot
    measures then is the guest's work. It costs the host the topology's
    memory for the boot's length, and some seconds of zeroing first.
    """
    out, backends = [], 0
    for i, word in enumerate(extra):
        if i > 0 and extra[i - 1] == '-object' and word.startswith('memory-backend-'):
            word += ',prealloc=on'
            backends += 1
        out.append(word)
    return out if backends else out + ['-mem-prealloc']


# --------------------------------------------------------------------------
# Files and processes.

def read_text(path):
    """Read a file as text, never failing on bytes that are not UTF-8."""
    try:
        with open(os.path.join(ROOT, path), 'rb') as f:
            return f.read().decode('utf-8', errors='replace')
    except FileNotFoundError:
        return ''


def load_topology(name):
    path = os.path.join(TOPO_DIR, f'{name}.topo')
    if not os.path.exists(os.path.join(ROOT, path)):
        raise SetupError(f'unknown topology "{name}" (no {path})')
    return parse_topology(name, read_text(path), where=path)


def require_file(path, hint):
    if not os.path.exists(os.path.join(ROOT, path)):
        raise SetupError(f'{path} not found ({hint})')


def require_accel(accel):
    if accel == 'kvm' and not os.access('/dev/kvm', os.R_OK | os.W_OK):
        raise SetupError('--accel kvm: /dev/kvm is not available')


def private_vars(name, template):
    """A fresh copy of the OVMF variable store for one boot."""
    os.makedirs(os.path.join(ROOT, VARS_DIR), exist_ok=True)
    path = os.path.join(VARS_DIR, f'{name}.fd')
    shutil.copyfile(template, os.path.join(ROOT, path))
    return path


def private_disk(name, size):
    """A fresh, zeroed raw disk image for one boot (sparse)."""
    os.makedirs(os.path.join(ROOT, DISK_DIR), exist_ok=True)
    path = os.path.join(DISK_DIR, f'{name}.img')
    with open(os.path.join(ROOT, path), 'wb') as f:
        f.truncate(disk_bytes(size))
    return path


def boot_command(qemu, topo, firmware, accel, usb, args, serial, display,
                 vars_name, debugexit=True, backed=False, menu=True):
    """qemu_command plus the UEFI variable copy and the disk, when used."""
    ovmf = None
    if firmware == 'uefi':
        code, template = find_ovmf()
        ovmf = (code, private_vars(vars_name, template))
    disk = private_disk(vars_name, topo.disk) if topo.disk else None
    args = f'{topo.args} {args}'.strip()        # the machine's words first, the boot's win
    return qemu_command(qemu, topo, firmware, accel, usb, args, serial,
                        display, ovmf, disk, debugexit, backed, menu)


def run_boot(boot, topo, qemu, accel):
    """Run one matrix boot to its end (or its timeout) and judge it.

    A +session=NAME boot also gets a QMP socket, and tests/sessions.py's
    NAME runs beside it (typing keys, taking screenshots) until it returns
    or QEMU ends; what it found wrong fails the boot."""
    log = os.path.join(LOG_DIR, f'{boot.name}.log')
    qemu_log = os.path.join(LOG_DIR, f'{boot.name}.qemu.log')
    if os.path.exists(os.path.join(ROOT, log)):
        os.remove(os.path.join(ROOT, log))
    serial = f'file:{log}'
    if topo.console == 'com2':
        # The kernel moves its console to COM2 (the SPCR says so): the log
        # is COM2's; COM1's, up to the move, goes to <name>.com1.log.
        serial = f'file:{os.path.join(LOG_DIR, boot.name)}.com1.log'
    cmd = boot_command(qemu, topo, boot.firmware, accel, boot.usb, boot.args,
                       serial, 'none', boot.name, boot.debugexit, menu=False)
    if topo.console == 'com2':
        cmd += ['-serial', f'file:{log}']
    socket_path = None
    if boot.session:
        socket_path = os.path.join(ROOT, QMP_DIR, f'{boot.name}.sock')
        os.makedirs(os.path.dirname(socket_path), exist_ok=True)
        if os.path.exists(socket_path):
            os.remove(socket_path)
        cmd += ['-qmp', f'unix:{os.path.relpath(socket_path, ROOT)},server=on,wait=off']
    started = time.monotonic()
    problems = []
    with open(os.path.join(ROOT, qemu_log), 'w') as out:
        out.write(shlex.join(cmd) + '\n')
        out.flush()
        machine = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT)
        deadline = started + boot.timeout
        if boot.session:
            problems = run_session(boot, machine, socket_path,
                                   os.path.join(ROOT, log), started)
            if problems:        # it went wrong: no need to wait for the timeout
                deadline = min(deadline, time.monotonic() + SESSION_GRACE)
        if boot.debugexit:
            try:
                rc = machine.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                rc = None
        else:
            rc = wait_until_halted(machine, log, deadline)
        if rc is None:
            machine.kill()
            machine.wait()
    elapsed = time.monotonic() - started
    if socket_path and os.path.exists(socket_path):
        os.remove(socket_path)
    qemu_text = read_text(qemu_log).split('\n', 1)[-1]
    judged = boot
    if rc is None and deadline < started + boot.timeout:    # cut short
        judged = dataclasses.replace(boot, timeout=round(elapsed))
    verdict = judge_boot(judged, topo, rc, read_text(log), qemu_text, log,
                         problems)
    verdict.elapsed = elapsed
    return verdict


def wait_until_halted(machine, log, deadline):
    """Wait for the serial log's halted line, for a boot without the
    debug-exit device, which cannot end QEMU. Returns QEMU's exit status if
    QEMU ended by itself (a triple fault), else None: the caller kills it
    (after the halted line, or at the deadline: the log tells which)."""
    while time.monotonic() < deadline:
        if machine.poll() is not None:
            return machine.returncode
        if HALTED.search(read_text(log)):
            return None
        time.sleep(0.25)
    return None


def run_session(boot, machine, socket_path, log_path, started):
    """Run the boot's session; return the problems it recorded."""
    sys.path.insert(0, os.path.join(ROOT, TESTS_DIR))
    import sessions     # tests/sessions.py, imported only when a boot needs it
    session = getattr(sessions, boot.session, None)
    if session is None:
        return [f'no function {boot.session} in tests/sessions.py']
    live = sessions.Machine(machine, socket_path, log_path,
                            deadline=started + boot.timeout)
    try:
        session(live)
    except sessions.SessionEnd as end:
        live.fail(str(end))
    except Exception as error:      # a broken session is a failure, not a crash
        live.fail(f'{type(error).__name__}: {error}')
    finally:
        live.close()
    return live.problems


def run_host(path, selection=None):
    """Run one host test binary and judge it; its output goes to the logs.
    selection, if given, is passed as its argument (the suites to run)."""
    started = time.monotonic()
    try:
        done = subprocess.run([os.path.abspath(os.path.join(ROOT, path))]
                              + ([selection] if selection else []),
                              cwd=ROOT, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=HOST_TIMEOUT)
        rc, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        rc, out, err = None, expired.stdout, expired.stderr
    elapsed = time.monotonic() - started
    out = (out or b'').decode('utf-8', errors='replace')
    err = (err or b'').decode('utf-8', errors='replace')
    log = os.path.join(ROOT, LOG_DIR, f'host-{os.path.basename(path)}.log')
    with open(log, 'w') as f:
        f.write(out + ('\n--- stderr ---\n' + err if err else ''))
    verdict = judge_host(path, rc, out, err)
    verdict.elapsed = elapsed
    return verdict


# --------------------------------------------------------------------------
# Reporting.

def plural(count, word):
    return f'{count} {word}' + ('' if count == 1 else 's')


def status_line(verdict):
    """The line printed when a boot or binary finishes."""
    if verdict.failed:
        return f'FAIL {verdict.name}: {verdict.summary}'
    what = plural(verdict.cases, 'case')
    if verdict.skipped:
        what += f', {verdict.skipped} skipped'
    return f'PASS {verdict.name} ({what}, {verdict.elapsed:.1f} s)'


def failure_block(verdict, failure):
    """The detailed report of one failure, as a list of lines."""
    lines = [f'---- {verdict.name}: {failure.title}']
    lines += [f'     {reason}' for reason in failure.reasons]
    for label, body in failure.sections:
        if body:
            lines.append(f'     {label}:')
            lines += [f'     | {line}' for line in body]
    return lines


def totals_line(verdicts):
    passed = sum(v.passed for v in verdicts)
    failed = sum(v.failed for v in verdicts)
    skipped = sum(v.skipped for v in verdicts)
    line = f'{passed} passed, {failed} failed'
    return line + (f', {skipped} skipped' if skipped else '')


# --------------------------------------------------------------------------
# Subcommands.

def select_boots(boots, only):
    """Keep the boots named by --only (comma-separated names or globs)."""
    if not only:
        return boots
    patterns = [p for p in only.split(',') if p]
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(b.name, pattern) for b in boots):
            raise SetupError(f'--only: no boot in the matrix matches '
                             f'"{pattern}"')
    return [b for b in boots
            if any(fnmatch.fnmatchcase(b.name, p) for p in patterns)]


def list_boots(boots, hosts):
    """--list: what would run, one line each."""
    for path in hosts:
        print(f'host {path}')
    for b in boots:
        expect = (b.kind + (f':{b.target}' if b.target else '')
                  + (' +usb' if b.usb else '') + (' +alone' if b.alone else '')
                  + (f' +session={b.session}' if b.session else ''))
        print(f'boot {b.name}: {b.topology} {b.firmware} {b.timeout:g} s '
              f'{expect} {b.args}')


def run_everything(boots, hosts, topologies, qemu, options):
    """One pass over the host binaries and the boots: {name: Verdict}."""
    jobs = max(1, options.jobs or os.cpu_count() or 1)
    verdicts = {}
    total, started = len(boots) + len(hosts), 0
    shared = [b for b in boots if not b.alone]
    alone = [b for b in boots if b.alone]

    def start(fn, *args):
        nonlocal started
        started += 1
        return pool.submit(fn, *args)

    # Boots marked +alone come last, one at a time, with nothing else on
    # the host: their outcome depends on every virtual CPU getting time.
    for group, workers in ((shared, jobs), *(([b], 1) for b in alone)):
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {}
            if group is shared:
                futures = {start(run_host, path, options.filter): path
                           for path in hosts}
            for boot in group:
                futures[start(run_boot, boot, topologies[boot.topology],
                              qemu, options.accel)] = boot.name
            for future in concurrent.futures.as_completed(futures):
                verdict = future.result()
                verdicts[futures[future]] = verdict
                print(f'{status_line(verdict)} [{len(verdicts)}/{total}]',
                      flush=True)
            running = [b.name for b in alone if b.name not in verdicts]
            if running and group is shared:
                print(f'.... now alone: {", ".join(running)}', flush=True)
    return verdicts


def report(boots, hosts, verdicts):
    """The failures in full, then the totals line; returns the exit code."""
    ordered = [verdicts[p] for p in hosts] + [verdicts[b.name] for b in boots]
    blocks = [failure_block(v, f) for v in ordered for f in v.failures]
    for block in blocks:
        print()
        print('\n'.join(block))
    passed = sum(v.passed for v in ordered)
    failed = sum(v.failed for v in ordered)
    if blocks or not passed:
        print()
    if not passed and not failed:
        print('no test ran')
    print(totals_line(ordered))
    return 0 if passed and not failed else 1


HARDWARE_ONLY_HEADING = '## Cases only hardware runs'


def hardware_only(text):
    """The suite.case globs in the table under HARDWARE_ONLY_HEADING."""
    globs, inside = [], False
    for line in text.splitlines():
        if line.startswith('#'):
            inside = line.strip() == HARDWARE_ONLY_HEADING
        elif inside and line.startswith('| `'):
            globs.append(line.split('`')[1])
    return globs


def skipped_everywhere(records, allowed=()):
    """The cases that ran in some boot but were skipped in all of them, as
    (suite.case, the reasons given), leaving out those the globs allow."""
    reasons, ran = {}, set()
    for r in records:
        if not r['suite']:
            continue
        case = f"{r['suite']}.{r['case']}"
        if r['status'] == 'skip':
            reasons.setdefault(case, set()).add(r['reason'] or '?')
        else:
            ran.add(case)
    return [(case, sorted(why)) for case, why in sorted(reasons.items())
            if case not in ran and not any(fnmatch.fnmatchcase(case, g) for g in allowed)]


def report_skipped_everywhere(records):
    """--every-case: print the cases no boot ran; 1 if there are any."""
    allowed = hardware_only(read_text(os.path.join(ROOT, 'docs', 'testing.md')))
    missing = skipped_everywhere(records, allowed)
    for case, why in missing:
        print(f'every-case: {case} was skipped in every boot: {"; ".join(why)[:160]}')
    print(f'every-case: {len(missing)} cases ran in no boot (docs/testing.md lists '
          f'{len(allowed)} that only hardware runs)')
    return 1 if missing else 0


def host_has(path, glob):
    """Does the host binary have a case that glob picks? (Its --list.)"""
    done = subprocess.run([os.path.abspath(os.path.join(ROOT, path)), '--list',
                           glob], cwd=ROOT, capture_output=True, text=True,
                          timeout=HOST_TIMEOUT)
    return done.returncode == 0 and done.stdout.strip() != ''


def cmd_test(options):
    """run.py test: host binaries and matrix boots, then the summary."""
    matrix = options.matrix
    require_file(matrix, 'the test matrix')
    boots = select_boots(parse_matrix(read_text(matrix), matrix),
                         options.only)
    if options.filter:
        boots = filter_boots(boots, options.filter)
    if options.timeout:
        boots = [dataclasses.replace(b, timeout=options.timeout) for b in boots]
    hosts = options.host or []
    for path in hosts:
        require_file(path, 'host test binary; build it first')
    if options.filter:
        hosts = [p for p in hosts if host_has(p, options.filter)]
    if options.list:
        list_boots(boots, hosts)
        return 0
    topologies = {name: load_topology(name)
                  for name in sorted({b.topology for b in boots})}
    qemu = None
    if boots:
        qemu = find_qemu()
        require_file(ISO, 'build it first: make')
        require_accel(options.accel)
        if any(b.firmware == 'uefi' for b in boots):
            find_ovmf()
    os.makedirs(os.path.join(ROOT, LOG_DIR), exist_ok=True)

    runs, every, rc = [], [], 0
    try:
        for attempt in range(options.repeat):
            if options.repeat > 1:
                print(f'==== run {attempt + 1} of {options.repeat}', flush=True)
            verdicts = run_everything(boots, hosts, topologies, qemu, options)
            rc = report(boots, hosts, verdicts) or rc
            names = hosts + [b.name for b in boots]
            every += [verdicts[name] for name in names]
            runs.append([r for name in names for r in case_records(verdicts[name])])
    except KeyboardInterrupt:
        print('interrupted', file=sys.stderr)
        return 130
    if options.json:
        with open(options.json, 'w') as f:
            json.dump([dict(r, run=i + 1) for i, records in enumerate(runs)
                       for r in records], f, indent=1)
            f.write('\n')
    if options.every_case and runs:
        rc = report_skipped_everywhere(runs[-1]) or rc
    if options.repeat > 1:
        varied = flaky_cases(runs)
        print(f'\nflaky: {len(varied)} tests varied over {options.repeat} runs')
        for line in varied:
            print(f'  {line}')
        print(totals_line(every))
    return rc


def exit_status(rc):
    """run.py run exits with the kernel's debug-exit code when it has one."""
    return (rc - 1) // 2 if rc > 0 and rc % 2 else rc


def cmd_run(options):
    """run.py run: one interactive boot, serial on this terminal."""
    topo = load_topology(options.topo)
    firmware = options.firmware or topo.firmware
    qemu = find_qemu()
    require_file(ISO, 'build it first: make')
    require_accel(options.accel)
    os.makedirs(os.path.join(ROOT, LOG_DIR), exist_ok=True)
    if options.debug:
        return debug_boot(options, topo, firmware, qemu)
    display = os.environ.get('QEMU_DISPLAY') or 'none'
    menu = not options.no_menu
    if menu and '-icount' in topo.qemu:
        # GRUB times its countdown by its own polling loop, and under
        # -icount that loop's instructions are the clock: a second's
        # countdown takes half a minute.
        print(f'run: {options.topo} runs under -icount, where GRUB\'s one-second menu takes '
              'half a minute: its first entry starts at once (the menu: TOPO=story)', flush=True)
        menu = False
    cmd = boot_command(qemu, topo, firmware, options.accel, options.usb,
                       options.args, 'mon:stdio', display, 'run',
                       backed=options.backed, menu=menu)
    print(shlex.join(cmd), flush=True)
    try:
        rc = subprocess.run(cmd, cwd=ROOT).returncode
    except KeyboardInterrupt:
        return 130
    return exit_status(rc) if rc >= 0 else 128 - rc


def debug_boot(options, topo, firmware, qemu):
    """run.py run --debug: QEMU halted in the background, gdb in front."""
    require_file(KERNEL_ELF, 'build it first: make')
    gdb = shlex.split(os.environ.get('GDB') or 'gdb')
    if not shutil.which(gdb[0]):
        raise SetupError(f'{gdb[0]} not found '
                         '(apt-get install gdb, or set GDB)')
    log = os.path.join(LOG_DIR, 'debug.log')
    qemu_log = os.path.join(LOG_DIR, 'debug.qemu.log')
    display = os.environ.get('QEMU_DISPLAY') or 'none'
    cmd = boot_command(qemu, topo, firmware, options.accel, options.usb,
                       options.args, f'file:{log}', display, 'debug')
    cmd += ['-s', '-S']
    print(shlex.join(cmd))
    print(f'QEMU waits for gdb on localhost:1234; serial output goes to {log}',
          flush=True)
    with open(os.path.join(ROOT, qemu_log), 'w') as out:
        # A session of its own: Ctrl-C in gdb must not reach QEMU.
        machine = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        time.sleep(0.3)
        if machine.poll() is not None:
            raise SetupError(f'QEMU exited at once; see {qemu_log}: '
                             + read_text(qemu_log).strip()[-200:])
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            # Connect first, then whatever options GDB adds (-ex, -x, -batch),
            # so a script in GDB runs against the live target.
            rc = subprocess.run(gdb[:1] + [KERNEL_ELF, '-ex',
                                           'target remote localhost:1234',
                                           '-x', GDB_HELPERS]
                                + gdb[1:], cwd=ROOT).returncode
        finally:
            signal.signal(signal.SIGINT, previous)
    finally:
        if machine.poll() is None:
            machine.terminate()
            try:
                machine.wait(timeout=5)
            except subprocess.TimeoutExpired:
                machine.kill()
                machine.wait()
    return rc


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog='run.py', description='Boot testbed under QEMU and judge it.')
    commands = parser.add_subparsers(dest='command', required=True)

    run = commands.add_parser('run', help='interactive boot (make run)')
    run.add_argument('--topo', required=True, help='topology name')
    run.add_argument('--firmware', choices=FIRMWARES,
                     help="default: the topology's")
    run.add_argument('--args', default='', help='kernel command line')
    run.add_argument('--accel', choices=('tcg', 'kvm'), default='tcg')
    run.add_argument('--usb', action='store_true',
                     help='boot from a USB stick instead of a CD')
    run.add_argument('--debug', action='store_true',
                     help='halt for gdb (QEMU -s -S) and start gdb')
    run.add_argument('--backed', action='store_true',
                     help='back all guest memory before the boot (prealloc=on): '
                          'no host first-touch faults in what the boot measures')
    run.add_argument('--no-menu', action='store_true',
                     help="GRUB starts its default entry at once (the tests' boots do)")

    test = commands.add_parser('test', help='run the tests')
    test.add_argument('--host', action='append', metavar='BINARY',
                      help='host test binary printing KTAP (repeatable)')
    test.add_argument('--matrix', default=MATRIX, help=f'default: {MATRIX}')
    test.add_argument('--only', metavar='NAME,...',
                      help='matrix boots to run (names or globs)')
    test.add_argument('--accel', choices=('tcg', 'kvm'), default='tcg')
    test.add_argument('--jobs', type=int, help='parallel boots '
                      '(default: the number of CPUs)')
    test.add_argument('--filter', metavar='GLOB',
                      help='suites or cases to run, "suite" or "suite.case" '
                      'with * and ? (as kunit.py run --filter_glob); '
                      'narrows each boot\'s test=, drops the boots it empties')
    test.add_argument('--json', metavar='FILE',
                      help='write one record per case: boot, suite, case, '
                      'status, reason, duration, run')
    test.add_argument('--every-case', action='store_true',
                      help='fail when a case was skipped in every boot that ran it')
    test.add_argument('--repeat', type=int, default=1, metavar='N',
                      help='run everything N times and list the tests whose '
                      'outcome varied')
    test.add_argument('--timeout', type=float, metavar='SECONDS',
                      help="every boot's timeout (default: the matrix's)")
    test.add_argument('--list', action='store_true',
                      help='print the boots that would run, and exit')
    return parser.parse_args(argv)


def main(argv=None):
    options = parse_arguments(argv)
    try:
        if options.command == 'run':
            return cmd_run(options)
        return cmd_test(options)
    except SetupError as error:
        print(f'run.py: error: {error}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
