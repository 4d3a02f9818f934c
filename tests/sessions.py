# SPDX-License-Identifier: MIT
"""Sessions: what a person at the machine would do, done over QMP.

A matrix boot with the flag +session=NAME starts QEMU with a QMP socket,
and run.py calls NAME(machine) from this file while the boot runs. The
session types on the guest's keyboard and takes screenshots through
machine.qmp (tests/qmp.py), watches the serial log with machine.wait_for,
and records what went wrong with machine.fail. The boot is still judged
as every boot is (its KTAP report and its debug-exit code); each recorded
problem is one more reason it failed. A session that raises is a failure
too, never a crash of the runner.

Rules for a session: type only after the kernel said it is listening
(GRUB reads keys while its menu shows); bound every wait (wait_for has a
timeout, and the boot's own timeout is the last word); end the boot by
asking the kernel to (the shell's `exit`), never by killing QEMU.
"""

import os
import re
import subprocess
import time

from qmp import Qmp, QmpClosed, QmpError

PROMPT = 'testbed> '


class SessionEnd(Exception):
    """Raised by require(): the session cannot go on."""


class Machine:
    """A running boot, as a session sees it."""

    def __init__(self, process, socket_path, log_path, deadline):
        self.process = process
        self.log_path = log_path
        self.deadline = deadline
        self.problems = []
        self._qmp = None
        self._socket_path = socket_path

    @property
    def qmp(self):
        if self._qmp is None:
            self._qmp = Qmp(self._socket_path)
        return self._qmp

    def log(self):
        """The serial log so far, carriage returns removed."""
        try:
            with open(self.log_path, 'rb') as f:
                return f.read().decode('utf-8', errors='replace').replace('\r', '')
        except FileNotFoundError:
            return ''

    def running(self):
        return self.process.poll() is None

    def wait_for(self, pattern, timeout, after=0, poll=0.05):
        """Wait until the serial log, from offset `after`, matches pattern
        (a regex, MULTILINE), reading it every `poll` seconds. Returns the
        match (its .end() is an offset for the next wait), or None on
        timeout or when QEMU has ended."""
        regex = re.compile(pattern, re.MULTILINE)
        until = min(time.monotonic() + timeout, self.deadline)
        while True:
            found = regex.search(self.log(), after)
            if found:
                return found
            if not self.running() or time.monotonic() > until:
                return None
            time.sleep(poll)

    def require(self, pattern, timeout, what, after=0, poll=0.05):
        """wait_for, or end the session with "never saw WHAT"."""
        found = self.wait_for(pattern, timeout, after, poll)
        if not found:
            state = 'QEMU had ended' if not self.running() else f'{timeout:g} s'
            raise SessionEnd(f'never saw {what} ({state})')
        return found

    def fail(self, message):
        self.problems.append(message)

    def close(self):
        if self._qmp is not None:
            self._qmp.close()


def type_command(machine, line, after, timeout=10):
    """Type line + Enter at the shell prompt, wait for the echo of the
    line on serial (the shell echoes what it reads), return the offset
    after the echo. QMP types a key every 50 ms and the shell reads its
    keyboard every tick: 10 s is twenty times what a 10-key line takes,
    and what a mutant that loses a key waits to be found."""
    machine.qmp.send_text(line + '\n')
    echoed = machine.require(re.escape(PROMPT + line) + r'\s*$', timeout,
                             f'the shell echo "{line}"', after)
    return echoed.end()


def test_then_exit(machine, suite, after):
    """Type `test SUITE` at the prompt, check that nothing failed, then
    type `exit`: the KTAP report and the exit code judge the boot."""
    after = type_command(machine, f'test {suite}', after)
    done = machine.require(r'\] test: (\d+) failed', 120,
                           f'the end of "test {suite}"', after)
    if done.group(1) != '0':
        machine.fail(f'"test {suite}" typed at the shell: {done.group(1)} failed')
    machine.require(re.escape(PROMPT), 10, 'the prompt after the test', done.end())
    machine.qmp.send_text('exit\n')


def shell_keyboard(machine):
    """Type at the shell on whatever keyboard QEMU has (PS/2 on pc and
    q35, usb-kbd where the topology adds one): a line past the shell's 127
    characters, which must be refused in words rather than run cut short
    (cut, it would be `help`); then a test command whose KTAP report
    proves every character arrived, and `exit`."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    too_long = 'help' + ' ' * 125 + 'x'            # 130 characters, 6.5 s of keys
    machine.qmp.send_text(too_long + '\n')
    refused = machine.require(r'shell: the line is longer than 127 characters; not run', 20,
                              'the shell refusing a 130-character line', prompt.end())
    if re.search(r'this list', machine.log()[prompt.end():refused.start()]):
        machine.fail('the 130-character line ran cut short, as `help`')
    prompt = machine.require(re.escape(PROMPT), 10, 'the prompt after the long line',
                             refused.end())
    test_then_exit(machine, 'vfs', prompt.start())


def storm_ctrl_c(machine):
    """A storm typed at the shell says how it goes each second and stops at
    Ctrl-C: type one that would run for minutes, wait for its first
    progress line, press Ctrl-C on the keyboard, and see it stop, report
    its storm: line, and give the prompt back; then a test command, whose
    KTAP report the boot is judged by, and `exit`."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    after = type_command(machine, 'storm 100000000 1', prompt.start())
    progress = machine.require(r'storm: 1 s: \d+ iterations, nr_files \d+, mode \w+', 60,
                               'the first progress line', after)
    machine.qmp.send_keys(['ctrl', 'c'])
    line = machine.require(r'storm: mode=\S+ .*enfile_at=none .*', 10,
                           'the storm line after Ctrl-C', progress.end())
    stopped = machine.require(r'storm: stopped by Ctrl-C after (\d+) iterations', 10,
                              'the word that Ctrl-C stopped it', line.end())
    if int(stopped.group(1)) >= 100000000:
        machine.fail('the storm ran to its end: Ctrl-C did not stop it')
    prompt = machine.require(re.escape(PROMPT), 10, 'the prompt after the storm', stopped.end())
    test_then_exit(machine, 'vfs', prompt.start())


def nmi_button(machine):
    """Press the NMI button (QMP inject-nmi reaches every CPU, as a BMC's
    does): each CPU reports one unexpected NMI and survives, and the shell
    still runs the trap suite."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    online = re.search(r'smp: (\d+) cpus online', machine.log())
    cpus = int(online.group(1)) if online else 1
    machine.qmp.command('inject-nmi')
    last = prompt
    for cpu in range(cpus):
        found = machine.require(rf'nmi: CPU {cpu}: 1 unexpected NMI \(no source in port 0x61[^\n]*survived',
                                20, f'CPU {cpu} report the NMI', prompt.end())
        last = max(last, found, key=lambda m: m.end())
    machine.qmp.send_text('\n')        # a fresh prompt after the NMI lines
    prompt = machine.require(re.escape(PROMPT) + r'$', 10, 'a new prompt', last.end())
    test_then_exit(machine, 'trap', prompt.start())


def inject_mce(machine, cpu, bank, status, mcg_status=0, addr=0, misc=0):
    """QEMU's HMP `mce` command: put an error in a bank, as the hardware
    would (an uncorrected one also raises #MC when CR4.MCE is set)."""
    reply = machine.qmp.command(
        'human-monitor-command',
        **{'command-line': f'mce {cpu} {bank} {status:#x} {mcg_status:#x} {addr:#x} {misc:#x}'})
    if reply.strip():
        machine.fail(f'QEMU said to mce: {reply.strip()}')


MCI_VAL, MCI_UC, MCI_EN, MCI_ADDRV, MCI_PCC = 1 << 63, 1 << 61, 1 << 60, 1 << 58, 1 << 57


def machine_check_corrected(machine):
    """A corrected memory error lands in bank 1 (no #MC for those): the
    tick's once-a-second poll reports it with its address, and the kernel
    goes on to run a suite."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    inject_mce(machine, 0, 1, MCI_VAL | MCI_EN | MCI_ADDRV | 0x9f, addr=0x1234000)
    found = machine.require(r'mce: CPU 0 bank 1: corrected error found by polling, '
                            r'status 0x940000000000009f, addr 0x1234000', 5,
                            'the poll report the corrected error', prompt.end())
    machine.qmp.send_text('\n')
    prompt = machine.require(re.escape(PROMPT) + r'$', 10, 'a new prompt', found.end())
    test_then_exit(machine, 'trap', prompt.start())


def machine_check_fatal(machine):
    """An uncorrected error with the processor context corrupt raises #MC:
    the kernel reports the bank and panics (the matrix line expects it).
    The panic ends QEMU through the debug-exit port, sometimes before its
    monitor has answered the injection: a closed socket then is the
    outcome, not a failure (the matrix still checks the panic line and
    the exit code)."""
    machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    try:
        inject_mce(machine, 0, 2, MCI_VAL | MCI_UC | MCI_EN | MCI_PCC | 0x17)
    except QmpClosed:
        pass


STAMP = r'\[\s*(\d+\.\d+)\] '


def seen_at(machine, pattern, timeout, what, after=0):
    """require(), polling every 5 ms, and the host's monotonic time when
    the line was first seen (within about 5 ms of its arrival)."""
    found = machine.require(pattern, timeout, what, after, poll=0.005)
    return found, time.monotonic()


def clock_agrees_with_host(machine):
    """The kernel's clock against the host's: under TCG the guest's TSC is
    the host's and QEMU's PM timer and HPET run on host time, so a right
    calibration makes the kernel's stamps advance as the host's clock
    does. From the output of `cpus` to the end of `torture 3000` (the
    typing between them included), the two must agree within 2%; then the
    time suite runs."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    machine.qmp.send_text('cpus\n')
    first, host_start = seen_at(machine, STAMP + r'cpu 0: apic', 10, 'the cpus output',
                                prompt.end())
    machine.qmp.send_text('torture 3000\n')
    last, host_end = seen_at(machine, STAMP + r'torture: reads=', 30, 'the torture line',
                             first.end())
    kernel = float(last.group(1)) - float(first.group(1))
    host = host_end - host_start
    if not 0.98 <= kernel / host <= 1.02:
        machine.fail(f'the kernel counted {kernel:.3f} s while the host counted {host:.3f} s')
    prompt = machine.require(re.escape(PROMPT), 10, 'the prompt after torture', last.end())
    test_then_exit(machine, 'time', prompt.start())


def type_line(machine):
    """A modern PC whose only keyboard is USB (topology modern-pc: no
    i8042): the boot must have found it, and what is typed on it must
    reach the shell. An unknown command typed with Shift proves the
    characters and their case arrive (the shell names it back); Page Up,
    an escape sequence the shell does not use, must leave no trace on the
    next line; `test xhci` then runs, and `exit` ends the boot with its
    outcome."""
    found = machine.require(r'usb: keyboard on \S+ port \d+ \(usb[23]\), boot protocol', 120,
                            'the "usb: keyboard on" line')
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt', found.end())
    after = type_command(machine, 'Usb-Typed_OK!', prompt.start())
    answer = machine.require(r'shell: no command (\S+); try help', 10,
                             'the shell naming the typed word', after)
    if answer.group(1) != 'Usb-Typed_OK!':
        machine.fail(f'typed "Usb-Typed_OK!", the shell read "{answer.group(1)}"')
    machine.require(re.escape(PROMPT), 10, 'the prompt after the word', answer.end())
    machine.qmp.send_keys(['pgup'])
    time.sleep(0.2)
    test_then_exit(machine, 'xhci', answer.end())


# --- the results a user takes home: the QR code and the scroll-back ---------

QR_BLOCK = re.compile(r'^[^\n]*qr: begin\n(.*?)^[^\n]*qr: end$', re.MULTILINE | re.DOTALL)
QR_LINE = re.compile(r'^\[[\s\d.]+\] qr: (.*)$')
TOTALS = re.compile(r'# Totals: pass:(\d+) fail:(\d+) skip:(\d+)')


def serial_block(log, after=0):
    """The text of the first qr block after offset `after`, as the QR code
    holds it (lines without the timestamp and "qr: ", joined by newlines),
    and the offset of its end; (None, after) when there is none."""
    found = QR_BLOCK.search(log, after)
    if not found:
        return None, after
    lines = [QR_LINE.match(line) for line in found.group(1).splitlines()]
    if not all(lines):
        return None, found.end()
    return '\n'.join(m.group(1) for m in lines), found.end()


def decode_png(path):
    """zbarimg's text of the one QR code in the PNG, or None."""
    done = subprocess.run(['zbarimg', '-q', '--raw', path], capture_output=True, timeout=30)
    if done.returncode:
        return None
    text = done.stdout.decode('utf-8', errors='replace')
    return text[:-1] if text.endswith('\n') else text


def check_qr(machine, after, png, totals=None):
    """Compare the screen's QR code with the serial block after `after`."""
    block, end = serial_block(machine.log(), after)
    if block is None:
        machine.fail('no complete "qr: begin" ... "qr: end" block on serial')
        return end
    machine.qmp.screendump(png)
    decoded = decode_png(png)
    if decoded is None:
        machine.fail(f'zbarimg finds no QR code on the screen ({png})')
    elif decoded != block:
        machine.fail(f'the QR code says {decoded!r}, serial says {block!r}')
    if totals:
        want = 'ktap: {} passed {} failed {} skipped'.format(*totals.groups())
        if want not in block.splitlines():
            machine.fail(f'the results lack "{want}" (the KTAP totals)')
    return end


def qr_results(machine):
    """At the shell, `test vfs`: its results, framed on serial, must be
    what the QR code on the screen says (QMP screendump, zbarimg), and
    carry the run's KTAP totals. Then `exit`."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    after = type_command(machine, 'test vfs', prompt.start())
    done = machine.require(r'\] test: (\d+) failed', 120, 'the end of "test vfs"', after)
    runs = list(TOTALS.finditer(machine.log(), after, done.start()))
    if not runs:
        machine.fail('no "# Totals:" line before "test: N failed"')
    machine.require(r'qr: end\s*\n(?:.*\n)*?.*' + re.escape(PROMPT), 30,
                    'the results and the prompt after them', done.end())
    time.sleep(0.3)         # the QR code is drawn after "qr: end" is printed
    png = os.path.join(os.path.dirname(machine.log_path), 'qr_results.png')
    check_qr(machine, done.end(), png, runs[-1] if runs else None)
    machine.qmp.send_text('exit\n')


def qr_halted(machine):
    """A +nodebugexit test= boot halts with its results on the screen: the
    QR code there says what serial's block says, with the KTAP totals."""
    halted = machine.require(r'the machine is halted', 120, 'the halted line')
    runs = list(TOTALS.finditer(machine.log(), 0, halted.start()))
    png = os.path.join(os.path.dirname(machine.log_path), 'qr_halted.png')
    check_qr(machine, runs[-1].end() if runs else 0, png, runs[-1] if runs else None)


def scroll_back(machine):
    """Page Up shows the log's view over the screen; Page Down past the
    bottom gives back exactly the live screen. Then `test console` and
    `exit`."""
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    time.sleep(0.5)
    logs = os.path.dirname(machine.log_path)
    shots = [os.path.join(logs, f'scroll_back.{n}.png') for n in ('live', 'up', 'back')]
    machine.qmp.screendump(shots[0])
    machine.qmp.send_keys(['pgup'])
    time.sleep(1)
    machine.qmp.screendump(shots[1])
    machine.qmp.send_keys(['shift', 'pgdn'])        # half a page down: still up
    machine.qmp.send_keys(['pgdn'])
    machine.qmp.send_keys(['pgdn'])                 # past the bottom: live again
    time.sleep(1)
    machine.qmp.screendump(shots[2])
    live, up, back = (open(path, 'rb').read() for path in shots)
    if up == live:
        machine.fail('Page Up did not change the screen')
    if back != live:
        machine.fail('Page Down past the bottom did not give back the live screen')
    test_then_exit(machine, 'console', prompt.start())
