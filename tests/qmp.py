# SPDX-License-Identifier: MIT
"""A small QMP client: what the session tests need from a running QEMU.

QMP (QEMU Machine Protocol, docs/interop/qmp-spec in QEMU's tree) is JSON
over a socket: QEMU greets with {"QMP": ...}, the client sends
{"execute": "qmp_capabilities"} to leave negotiation mode, then each
{"execute": NAME, "arguments": {...}} gets one {"return": ...} or
{"error": ...}. Asynchronous {"event": ...} messages may come in between
and are kept in .events.

Only three commands are used: send-key (types on the guest's keyboard,
whichever is attached: PS/2 or usb-kbd), screendump (the display as a
PNG, QEMU 7.2's format=png) and quit.
"""

import json
import os
import socket
import time

# Characters -> QEMU key codes (qapi/ui.json QKeyCode), unshifted and shifted.
_PLAIN = {
    ' ': 'spc', '\n': 'ret', '\t': 'tab', '-': 'minus', '=': 'equal',
    '[': 'bracket_left', ']': 'bracket_right', ';': 'semicolon',
    "'": 'apostrophe', '`': 'grave_accent', '\\': 'backslash',
    ',': 'comma', '.': 'dot', '/': 'slash', '\b': 'backspace',
}
_SHIFTED = {
    '!': '1', '@': '2', '#': '3', '$': '4', '%': '5', '^': '6', '&': '7',
    '*': '8', '(': '9', ')': '0', '_': 'minus', '+': 'equal',
    '{': 'bracket_left', '}': 'bracket_right', ':': 'semicolon',
    '"': 'apostrophe', '~': 'grave_accent', '|': 'backslash',
    '<': 'comma', '>': 'dot', '?': 'slash',
}


def keys_for(char):
    """The send-key list for one character: ['shift', 'a'] for 'A'."""
    if char.isascii() and (char.islower() or char.isdigit()):
        return [char]
    if char.isascii() and char.isupper():
        return ['shift', char.lower()]
    if char in _PLAIN:
        return [_PLAIN[char]]
    if char in _SHIFTED:
        return ['shift', _SHIFTED[char]]
    raise ValueError(f'no key types {char!r}')


class QmpError(Exception):
    """QEMU answered a command with an error, or the socket failed."""


class QmpClosed(QmpError):
    """The socket closed or was reset: QEMU has exited (or is exiting)."""


class Qmp:
    def __init__(self, path, timeout=10.0):
        """Connect to QEMU's QMP socket at path (waiting up to timeout
        seconds for QEMU to create it) and leave negotiation mode."""
        self.events = []
        self._buffer = b''
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.connect(path)
                break
            except OSError as err:
                self._sock.close()
                if time.monotonic() > deadline:
                    raise QmpError(f'cannot connect to {path}: {err}') from None
                time.sleep(0.05)
        self._sock.settimeout(timeout)
        greeting = self._message()
        if 'QMP' not in greeting:
            raise QmpError(f'not a QMP greeting: {greeting}')
        self.command('qmp_capabilities')

    def _message(self):
        while b'\n' not in self._buffer:
            try:
                data = self._sock.recv(65536)
            except OSError as err:
                raise QmpClosed(f'QMP socket: {err}') from None
            if not data:
                raise QmpClosed('QEMU closed the QMP socket')
            self._buffer += data
        line, self._buffer = self._buffer.split(b'\n', 1)
        return json.loads(line)

    def command(self, name, **arguments):
        """Run one command; return its "return" value or raise QmpError."""
        request = {'execute': name}
        if arguments:
            request['arguments'] = arguments
        try:
            self._sock.sendall(json.dumps(request).encode() + b'\n')
        except OSError as err:
            raise QmpClosed(f'QMP socket: {err}') from None
        while True:
            reply = self._message()
            if 'event' in reply:
                self.events.append(reply)
            elif 'error' in reply:
                raise QmpError(f'{name}: {reply["error"].get("desc", reply)}')
            elif 'return' in reply:
                return reply['return']

    def send_keys(self, keys, hold_ms=40):
        """Press the keys together (a chord, e.g. ['shift', 'pgup'])."""
        self.command('send-key', keys=[{'type': 'qcode', 'data': k} for k in keys],
                     **{'hold-time': hold_ms})

    def send_text(self, text, gap=0.05):
        """Type text one key at a time. The gap lets a polling guest see
        each press and release (a USB boot keyboard reports at its own
        interval; a press shorter than the poll would be lost)."""
        for char in text:
            self.send_keys(keys_for(char))
            time.sleep(gap)

    def screendump(self, path):
        """Save the display as a PNG at path (absolute or relative to cwd)."""
        self.command('screendump', filename=os.path.abspath(path), format='png')

    def close(self):
        self._sock.close()
