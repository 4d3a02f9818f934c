#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_commits.py - every commit message has the form Linux asks for.

Linux's Documentation/process/submitting-patches.rst: a subject line of the
form "subsystem: summary phrase" short enough for `git log --oneline`, a
blank line, then a body that says why the change is needed and what was
measured, wrapped at 72 columns. Checked for every commit after BASE, the
commit this script was added on top of (the history before it is kept as it
landed: commits are never rewritten). make test runs it.

A subject is "prefix: summary": the prefix a subsystem, a file or a few of
them ("rcu", "tests/run.py", "slab, vm", "make bench"), at most 32
characters; the whole subject at most 72; `Revert "..."` subjects as git
writes them are accepted. The body must exist; its lines are at most 72
characters, except a line that starts with blanks (quoted output, a
command), holds a URL, or is one unbroken word. A merge after MERGE_BASE
(three earlier merges landed with subjects of 74-80 characters) keeps to
the same widths; its subject need not name a subsystem ("Merge branch
x: what it brings"), and a body is not required.

A commit that moves a gated ratio of tests/bench-baseline.json (make
bench-compare's baseline: a value changed, added or dropped) names each
such ratio in its body: a baseline follows a change someone can point to.
A merge names each value that is neither of its parents'.

Usage: scripts/check_commits.py [--base REV] [REV-RANGE-END]
Exits 1 and names each offending commit with what is wrong.
"""
import argparse
import json
import re
import subprocess
import sys

BASE = 'b44b004f29f081bce03463d8bf61ac8ecfa9a0af'
MERGE_BASE = '363781b86a828a3c50c792ca763def7eba64a920'
SUBJECT_MAX = 72
PREFIX_MAX = 32
BODY_WIDTH = 72
PREFIX = re.compile(r'^([A-Za-z0-9_.+/*{}-]+(?:(?:, | )[A-Za-z0-9_.+/*{}-]+)*): \S')
REVERT = re.compile(r'^Revert "')
TRAILER = re.compile(r'^[A-Z][\w-]+: ')       # Signed-off-by:, Fixes:, Link: ...


def problems(message, merge=False):
    """What is wrong with one commit message (a list of sentences); of a
    merge's, only the widths."""
    lines = message.rstrip('\n').split('\n')
    subject = lines[0]
    found = []
    if len(subject) > SUBJECT_MAX:
        found.append(f'subject is {len(subject)} characters (at most {SUBJECT_MAX})')
    if not merge and not REVERT.match(subject):
        match = PREFIX.match(subject)
        if not match:
            found.append('subject is not "subsystem: what changed"')
        elif len(match.group(1)) > PREFIX_MAX:
            found.append(f'subject\'s prefix "{match.group(1)}" is over {PREFIX_MAX} '
                         f'characters: name the subsystem, say the rest after the colon')
        if subject.endswith('.'):
            found.append('subject ends with a full stop')
    if len(lines) > 1 and lines[1].strip():
        found.append('second line is not blank')
    body = lines[2:]
    if not merge and not any(line.strip() for line in body):
        found.append('no body: say why, and what was measured and how')
    for number, line in enumerate(body, 3):
        if len(line) <= BODY_WIDTH:
            continue
        if line[:1].isspace() or '://' in line or ' ' not in line or TRAILER.match(line):
            continue
        found.append(f'body line {number} is {len(line)} characters (wrap at {BODY_WIDTH})')
    return found


BASELINE = 'tests/bench-baseline.json'


def gated_values(text):
    """{ratio: value} of a baseline's gated ratios ({} for no file); the
    first baseline form, whose boots had "ratios", gated them all."""
    if not text:
        return {}
    values = {}
    for spec in json.loads(text).get('boots', []):
        for name, entry in spec.get('gated', {}).items():
            values[name] = entry.get('value') if isinstance(entry, dict) else entry
        for name, value in spec.get('ratios', {}).items():
            values[name] = value
    return values


def unnamed_baseline_moves(before, after, body):
    """The gated ratios that moved between two baseline texts, unnamed in body."""
    old, new = gated_values(before), gated_values(after)
    moved = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
    return [n for n in moved if not re.search(rf'\b{re.escape(n)}\b', body)]


def file_at(sha, path):
    try:
        return git('show', f'{sha}:{path}')
    except subprocess.CalledProcessError:
        return ''


def git(*args):
    return subprocess.run(['git', *args], capture_output=True, text=True, check=True).stdout


def commits(base, head, kind='--no-merges'):
    """[(hash, message)] of the non-merge commits (kind '--merges': the
    merges) in base..head, oldest first."""
    out = git('log', kind, '--reverse', '-z', '--format=%H%n%B', f'{base}..{head}')
    result = []
    for record in filter(None, out.split('\0')):
        sha, _, message = record.lstrip('\n').partition('\n')
        result.append((sha, message))
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--base', default=BASE)
    parser.add_argument('head', nargs='?', default='HEAD')
    args = parser.parse_args(argv)
    try:
        git('rev-parse', '--git-dir')
    except (OSError, subprocess.CalledProcessError):
        print('commits: not a git clone: no history to check')
        return 0
    try:
        git('cat-file', '-e', args.base + '^{commit}')
        base = args.base
    except subprocess.CalledProcessError:
        shallow = git('rev-parse', '--is-shallow-repository').strip() == 'true'
        if not shallow:
            print(f'commits: the base {args.base[:12]} is not in this history')
            return 1
        # A shallow clone lacks the base: check what it has after its boundary.
        base = git('rev-list', '--max-parents=0', args.head).split()[0]
        print(f'commits: shallow clone without the base: checking after {base[:12]}')
    bad = 0
    checked = commits(base, args.head)
    try:
        git('cat-file', '-e', MERGE_BASE + '^{commit}')
        merge_base = MERGE_BASE
    except subprocess.CalledProcessError:       # a shallow clone without it
        merge_base = base
    merges = commits(merge_base, args.head, '--merges')
    touched = set(git('log', '-m', '--format=%H', f'{base}..{args.head}', '--',
                      BASELINE).split())
    for sha, message in checked + merges:
        merge = (sha, message) in merges
        found = problems(message, merge)
        if sha in touched:
            body = message.split('\n', 2)[2] if message.count('\n') >= 2 else ''
            # A merge names only the values it set itself: what a parent
            # brought was named in that parent's own commit.
            unnamed = set.intersection(*(set(unnamed_baseline_moves(
                file_at(f'{sha}^{parent}', BASELINE), file_at(sha, BASELINE), body))
                for parent in ((1, 2) if merge else (1,))))
            unnamed = sorted(unnamed)
            if unnamed:
                found.append(f'moves {BASELINE} without naming {", ".join(unnamed)} '
                             'in its body')
        if found:
            bad += 1
            print(f'commit {sha[:12]} "{message.splitlines()[0][:60]}":')
            for sentence in found:
                print(f'  {sentence}')
    print(f'commits: {len(checked)} after {args.base[:12]} and {len(merges)} merges checked, '
          f'{bad} not in Linux\'s form')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
