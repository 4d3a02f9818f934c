#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""story_excerpt.py - the README's story is a real run's.

The README shows the report `make run` prints, between the lines

    <!-- story: scripts/story_excerpt.py writes the block below ... -->
    <!-- end of story -->

It is taken from the log of make test's story-report boot, which runs the
story on story-icount, the machine make run boots: under QEMU's -icount
its storms end the same way on every run, so the report's words are the
same on every boot.

    story_excerpt.py --check [LOG] [README]   (make test, after the matrix)
    story_excerpt.py --write [LOG] [README]   (after a change to the story)

--check compares the README's block with the log's report word for word,
numbers aside: any change in the kernel's code moves them (the guest's
clock counts its instructions), while a verdict, a header or a row's
mode, place and hog may change only with the README. Exits 1 with the
lines that differ, and the command that rewrites the block.
"""
import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG = os.path.join('build', 'logs', 'story-report.log')
README = 'README.md'
BEGIN = '<!-- story: scripts/story_excerpt.py writes the block below from make test\'s ' \
    'story-report boot; make test checks it -->'
END = '<!-- end of story -->'
FIRST = 'The 2.6.14 story, October 2005'    # story_print()'s first and last lines
LAST = 'See docs/story.md.'
STAMP = re.compile(r'^\[\s*\d+\.\d+\] ')


class ExcerptError(Exception):
    pass


def report(log_text):
    """The story's report in a serial log, without the timestamps: from
    its title to its last line, both included."""
    lines = [STAMP.sub('', line.rstrip('\r')) for line in log_text.splitlines()]
    starts = [i for i, line in enumerate(lines) if line.startswith(FIRST)]
    if not starts:
        raise ExcerptError(f'no story in the log (no line "{FIRST}")')
    start = starts[-1]
    for end in range(start, len(lines)):
        if lines[end].startswith(LAST):
            return lines[start:end + 1]
    raise ExcerptError(f'the story in the log never ends (no line "{LAST}")')


def words(line):
    """A line with its numbers (decimal or 0x hex) as '#' and its runs of
    blanks as one: what must not change without the README."""
    return ' '.join(re.sub(r'0x[0-9a-fA-F]+|\d+', '#', line).split())


def block(readme_text):
    """(before, [the block's lines], after) of the README; the block is a
    ``` fence between BEGIN and END."""
    if readme_text.count(BEGIN) != 1 or readme_text.count(END) != 1:
        raise ExcerptError(f'the README needs one "{BEGIN}" line and one "{END}" line')
    before, rest = readme_text.split(BEGIN + '\n', 1)
    inside, after = rest.split(END, 1)
    lines = inside.rstrip('\n').split('\n')
    if len(lines) < 2 or lines[0] != '```' or lines[-1] != '```':
        raise ExcerptError('the story block is not one ``` fence')
    return before, lines[1:-1], after


def differences(readme_lines, log_lines):
    """The unified diff of the two, by words(); empty if they agree."""
    return list(difflib.unified_diff([words(line) for line in readme_lines],
                                     [words(line) for line in log_lines],
                                     'README.md', 'story-report.log', lineterm='', n=1))


def rewritten(readme_text, log_lines):
    before, _, after = block(readme_text)
    return before + BEGIN + '\n```\n' + '\n'.join(log_lines) + '\n```\n' + END + after


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--check', action='store_true')
    mode.add_argument('--write', action='store_true')
    parser.add_argument('log', nargs='?', default=os.path.join(ROOT, LOG))
    parser.add_argument('readme', nargs='?', default=os.path.join(ROOT, README))
    options = parser.parse_args(argv)
    try:
        with open(options.log, errors='replace') as f:
            log_lines = report(f.read())
        with open(options.readme) as f:
            readme_text = f.read()
        _, readme_lines, _ = block(readme_text)
    except (OSError, ExcerptError) as error:
        print(f'story_excerpt: {error}', file=sys.stderr)
        return 1
    if options.write:
        with open(options.readme, 'w') as f:
            f.write(rewritten(readme_text, log_lines))
        print(f'story_excerpt: {len(log_lines)} lines of {options.log} written to {options.readme}')
        return 0
    diff = differences(readme_lines, log_lines)
    if diff:
        print("story_excerpt: the README's story is not the one story-report printed "
              '(numbers as #):', file=sys.stderr)
        print('\n'.join(diff), file=sys.stderr)
        print('story_excerpt: if the story changed on purpose: '
              'python3 scripts/story_excerpt.py --write', file=sys.stderr)
        return 1
    print(f"story_excerpt: the README's story is story-report's ({len(log_lines)} lines)")
    return 0


if __name__ == '__main__':
    sys.exit(main())
