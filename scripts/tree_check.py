#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tree_check.py - what every tracked file keeps, checked by make test.

Three rules, each a function that returns the offenders as
"path:line: why" strings:

  spdx     every source file (C, headers, NASM, the linker script, Python,
           awk, shell, the Makefile, GRUB's configuration, topologies and
           the matrix) says its licence in its first lines, as Linux marks
           every file: "SPDX-License-Identifier: MIT" (LICENSE has the text);
  words    no file points outside the repository: the project's issue
           tracker ("issue 18") and the material it was seeded with ("seed
           001", ../shared/) mean nothing to a reader of the tree. A source
           is named by its author, title and where it was posted;
  counts   a count written in prose in README.md or docs/ ("157 mutants",
           "17 libFuzzer targets") is the tree's count today. The dated
           journal, docs/performance.md, is not held to it;
  ci       docs/testing.md's sentence "CI runs ..." names every make
           target that .ci/run runs;
  mutants  every mutant of tests/mutants/ still applies to the tree (each
           hunk's old text stands once in its file), so a change that
           moves a mutant's lines is caught by make test, not minutes into
           make mutants.

Usage: scripts/tree_check.py [--root DIR]; exits 1 if any rule is broken.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPDX = 'SPDX-License-Identifier: MIT'

# What counts as source: by the name's ending, by the whole name, or by a
# "#!" first line. Data (JSON, PNG, fuzz inputs, mutants' diffs) is not.
SOURCE_ENDINGS = ('.c', '.h', '.asm', '.ld', '.py', '.awk', '.sh', '.cfg', '.topo')
SOURCE_NAMES = ('Makefile', 'matrix')
NOT_SOURCE = ('tests/fuzz/corpus/', 'tests/mutants/', 'tests/fixtures/')
SPDX_LINES = 3          # the line may follow a "#!" line and a blank one

# Words that point outside the repository, each with what to write instead.
OUTSIDE_WORDS = [
    (re.compile(r'\bissues? #?\d+|\bthe issue(?:\'s| asked)', re.I),
     'names an issue of the project\'s tracker, which a reader of the tree '
     'cannot see: say what changed and when'),
    (re.compile(r'\bseeds? ?0\d\d\b|\bseeds/', re.I),
     'names a seed file: name the patch by its author, title and list'),
    (re.compile(r'\.\./shared\b|\bshared/(seeds|reviews)\b'),
     'points at a folder outside the repository'),
]
WORDS_SKIPPED = ('tests/fuzz/corpus/', 'scripts/tree_check.py', 'tests/test_scripts.py')

# Counts in prose: a number, then what it counts. Each entry computes the
# tree's own count.
PROSE_PAGES = ['README.md', 'HACKING.md'] + ['docs/*.md']
JOURNAL_PAGES = ('docs/performance.md',)


def tracked_files(root):
    """The files git tracks, or every file under root when it is no clone."""
    try:
        out = subprocess.run(['git', 'ls-files', '-z'], cwd=root, capture_output=True,
                             check=True).stdout.decode()
        return sorted(p for p in out.split('\0') if p)
    except (OSError, subprocess.CalledProcessError):
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in ('.git', 'build')]
            found += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
        return sorted(found)


def read_text(root, path):
    """The file's text, or None for a binary file or one that is gone."""
    try:
        with open(os.path.join(root, path), 'rb') as f:
            data = f.read()
    except OSError:
        return None
    if b'\0' in data:
        return None
    return data.decode('utf-8', errors='replace')


def is_source(path, text):
    if path.startswith(NOT_SOURCE) or text is None:
        return False
    name = os.path.basename(path)
    return (path.endswith(SOURCE_ENDINGS) or name in SOURCE_NAMES
            or path == '.ci/run' or text.startswith('#!'))


def check_spdx(root, files):
    bad = [] if 'LICENSE' in files else ['LICENSE:1: no LICENSE file: the licence\'s text goes there']
    for path in files:
        text = read_text(root, path)
        if not is_source(path, text):
            continue
        head = text.split('\n', SPDX_LINES)[:SPDX_LINES]
        if not any(SPDX in line for line in head):
            bad.append(f'{path}:1: no "{SPDX}" line in its first {SPDX_LINES} lines')
    return bad


def check_words(root, files):
    bad = []
    for path in files:
        if path.startswith(WORDS_SKIPPED):
            continue
        text = read_text(root, path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, why in OUTSIDE_WORDS:
                match = pattern.search(line)
                if match:
                    bad.append(f'{path}:{number}: "{match.group(0)}" {why}')
    return bad


def tree_counts(root):
    """{noun pattern: (the tree's count, what is counted)}."""
    mutants = len(glob.glob(os.path.join(root, 'tests', 'mutants', '*.patch')))
    fuzz = None
    makefile = read_text(root, 'Makefile') or ''
    match = re.search(r'^FUZZ_TARGETS\s*:=\s*((?:.*\\\n)*.*)$', makefile, re.M)
    if match:
        fuzz = len(match.group(1).replace('\\\n', ' ').split())
    topologies = len(glob.glob(os.path.join(root, 'tests', 'topologies', '*.topo')))
    matrix = 0
    for line in (read_text(root, 'tests/matrix') or '').splitlines():
        if line.strip() and not line.lstrip().startswith('#'):
            matrix += 1
    counts = {
        r'mutants|plausible bugs': (mutants, 'tests/mutants/*.patch'),
        r'topologies|topology files': (topologies, 'tests/topologies/*.topo'),
        r'matrix lines|boots in the matrix|lines of the matrix': (matrix, "tests/matrix's boots"),
    }
    if fuzz is not None:
        counts[r'(?:libFuzzer |fuzz )targets|fuzzers'] = (fuzz, "the Makefile's FUZZ_TARGETS")
    return counts


def check_counts(root, files):
    bad = []
    counts = tree_counts(root)
    pages = set()
    for pattern in PROSE_PAGES:
        pages.update(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, pattern)))
    for page in sorted(pages - set(JOURNAL_PAGES)):
        text = read_text(root, page) or ''
        for number, line in enumerate(text.splitlines(), 1):
            for nouns, (count, what) in counts.items():
                for match in re.finditer(r'\b(\d[\d,]*) (?:' + nouns + r')\b', line):
                    said = int(match.group(1).replace(',', ''))
                    if said != count:
                        bad.append(f'{page}:{number}: says "{match.group(0)}", {what} '
                                   f'has {count}')
    return bad


def check_ci(root, files):
    """Every `make <target>` of .ci/run is named where docs/testing.md says what CI runs
    (options and variables before the target, `make -j4 C=1 iso`, are passed by)."""
    script = read_text(root, '.ci/run') or ''
    targets = []
    for line in script.splitlines():
        match = re.match(r'\s*make\s+(?:-\S+\s+|[A-Z_][A-Z0-9_]*=\S*\s+)*([a-z][\w-]*)', line)
        if match and match.group(1) not in targets:
            targets.append(match.group(1))
    page = read_text(root, 'docs/testing.md') or ''
    match = re.search(r'CI runs (.*?)\.(?:\s|$)', page, re.S)
    if not match:
        return ['docs/testing.md:1: no sentence "CI runs ..." says what .ci/run does']
    said = ' '.join(match.group(1).split())        # a name may break across lines
    number = page[:match.start()].count('\n') + 1
    return [f'docs/testing.md:{number}: "CI runs ..." leaves out `make {t}`, which .ci/run runs'
            for t in targets if f'`make {t}`' not in said]


def check_mutants(root, files):
    """Every tests/mutants/*.patch applies, as scripts/mutants.py applies it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import mutants          # scripts/mutants.py: its own reader of the patches
    finally:
        sys.path.pop(0)
    bad = []
    for path in sorted(glob.glob(os.path.join(root, 'tests', 'mutants', '*.patch'))):
        rel = os.path.relpath(path, root)
        try:
            name, _, patched = mutants.read_mutant(path)
        except mutants.MutantError as e:
            bad.append(f'{rel}:1: {e}')
            continue
        for target, hunks in patched:
            text = read_text(root, target)
            if text is None:
                bad.append(f'{rel}:1: {target} is not in the tree')
                break
            for old, new in hunks:
                if text.count(old) != 1:
                    bad.append(f'{rel}:1: does not apply to {target} (the code moved: '
                               f'update the mutant with it)')
                    break
                text = text.replace(old, new)
    return bad


CHECKS = {'spdx': check_spdx, 'words': check_words, 'counts': check_counts, 'ci': check_ci,
          'mutants': check_mutants}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--root', default=ROOT)
    args = parser.parse_args(argv)
    files = tracked_files(args.root)
    failed = 0
    for name, check in CHECKS.items():
        bad = check(args.root, files)
        for line in bad:
            print(line)
        print(f'tree: {name}: {"ok" if not bad else f"{len(bad)} offenders"}')
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
