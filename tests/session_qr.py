"""The qr_results session: the results' QR code, read off the screen.

For tests/sessions.py (a matrix boot with +session=qr_results): at the
shell, type "test vfs"; when the kernel has printed its framed results
("qr: begin" ... "qr: end") and the prompt, take a QMP screendump, decode
it with zbarimg (zbar-tools) and compare the text with the serial block and
with the run's "# Totals:" line. Then "exit".
"""

import os
import re
import subprocess
import time

PROMPT = 'testbed> '
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
    prompt = machine.require(re.escape(PROMPT), 120, 'the shell prompt')
    machine.qmp.send_text('test vfs\n')
    done = machine.require(r'\] test: (\d+) failed', 120, 'the end of "test vfs"',
                           prompt.end())
    runs = list(TOTALS.finditer(machine.log(), prompt.end(), done.start()))
    if not runs:
        machine.fail('no "# Totals:" line before "test: N failed"')
    machine.require(r'qr: end\s*\n(?:.*\n)*?.*' + re.escape(PROMPT), 30,
                    'the results and the prompt after them', done.end())
    time.sleep(0.3)         # the QR code is drawn after "qr: end" is printed
    png = os.path.join(os.path.dirname(machine.log_path), 'qr_results.png')
    check_qr(machine, done.end(), png, runs[-1] if runs else None)
    machine.qmp.send_text('exit\n')


def scroll_back(machine):
    """Page Up shows the log's view over the screen; Page Down past the
    bottom gives back exactly the live screen. Then "exit"."""
    machine.require(re.escape(PROMPT), 120, 'the shell prompt')
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
    machine.qmp.send_text('exit\n')
