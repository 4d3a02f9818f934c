#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of the tree's own checks: scripts/tree_check.py (licence lines,
words that point outside, counts in prose, the CI sentence) and
scripts/check_commits.py (Linux's commit message form). make test runs them
before the checks themselves, so a check that can no longer fail is caught.
"""
import json
import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'scripts'))
import bench  # noqa: E402
import check_commits  # noqa: E402
import lab  # noqa: E402
import mutants  # noqa: E402
import plot  # noqa: E402
import story_excerpt  # noqa: E402
import tree_check  # noqa: E402

KEPT = []           # the trees' folders, removed when the tests end


class Tree:
    """A throwaway tree of files, for the checks' root (gone at exit)."""

    def __init__(self, files):
        self.dir = tempfile.TemporaryDirectory()
        KEPT.append(self.dir)
        self.root = self.dir.name
        for path, text in files.items():
            full = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, 'w') as f:
                f.write(textwrap.dedent(text))
        self.files = sorted(files)

    def check(self, name):
        return tree_check.CHECKS[name](self.root, self.files)


def one_tree(root):
    """The worker trees try_mutant() takes one from: one tree."""
    return mutants.Trees([root])


class ResetTreeTest(unittest.TestCase):
    """scripts/mutants.py: a worker's tree is put back as the clean one is."""

    def test_sources_and_build_come_back_and_new_outputs_go(self):
        clean = Tree({'kernel/a.c': 'a\n', 'build/kernel/a.o': 'A', 'build/kernel.elf': 'E'})
        worker = Tree({'kernel/a.c': 'mutated\n', 'build/kernel/a.o': 'A2',
                       'build/kernel.elf': 'E', 'build/kernel/b.o': 'new',
                       'build/logs/x.log': 'kept', 'build/mutant-x.json': '[]'})
        os.utime(os.path.join(clean.root, 'build/kernel.elf'), ns=(1, 10 ** 18))
        os.remove(os.path.join(worker.root, 'build/kernel.elf'))     # a failed link
        saved, mutants.ROOT = mutants.ROOT, clean.root
        try:
            mutants.reset_tree(worker.root, [('kernel/a.c', [])])
        finally:
            mutants.ROOT = saved
        self.assertEqual(mutants.build_files(worker.root), mutants.build_files(clean.root))
        with open(os.path.join(worker.root, 'kernel/a.c')) as f:
            self.assertEqual(f.read(), 'a\n')
        self.assertTrue(os.path.exists(os.path.join(worker.root, 'build/logs/x.log')))
        self.assertTrue(os.path.exists(os.path.join(worker.root, 'build/mutant-x.json')))


class SpdxTest(unittest.TestCase):
    def test_marked_files_pass(self):
        tree = Tree({
            'kernel/a.c': '// SPDX-License-Identifier: MIT\n/* a.c - the idea */\n',
            'include/a.h': '/* SPDX-License-Identifier: MIT */\n',
            'scripts/x.py': '#!/usr/bin/env python3\n# SPDX-License-Identifier: MIT\n"""x"""\n',
            'Makefile': '# SPDX-License-Identifier: MIT\nall:\n',
            'docs/a.md': '# no licence line needed in prose\n',
            'tests/fuzz/corpus/t/1': 'data',
            'LICENSE': 'MIT License',
        })
        self.assertEqual(tree.check('spdx'), [])

    def test_each_kind_of_source_without_the_line_is_named(self):
        tree = Tree({
            'kernel/a.c': '/* a.c */\n',
            'boot/b.asm': '; b.asm\n',
            'linker.ld': '/* linker */\n',
            'tests/topologies/t.topo': '# t\nmachine: pc\n',
            'tests/matrix': '# m\n',
            '.ci/run': '#!/bin/sh\nmake test\n',
            'scripts/tool': '#!/bin/sh\necho\n',
            'Makefile': 'all:\n',
        })
        named = [line.split(':')[0] for line in tree.check('spdx')]
        self.assertEqual(named, ['LICENSE'] + sorted(tree.files))

    def test_the_line_far_down_does_not_count(self):
        tree = Tree({'kernel/a.c': '/*\n * a.c\n *\n */\n// SPDX-License-Identifier: MIT\n',
                     'LICENSE': 'MIT License'})
        self.assertEqual(len(tree.check('spdx')), 1)


class WordsTest(unittest.TestCase):
    def test_outside_words_are_named(self):
        tree = Tree({
            'docs/a.md': 'fixed in issue 18\nas seed 001 says\nsee ../shared/reviews\n'
                         'the size the issue asked for\n',
            'kernel/b.c': '/* (pci.h, Issue 14) */\n',
        })
        bad = tree.check('words')
        self.assertEqual([b.split(': ')[0] for b in bad],
                         ['docs/a.md:1', 'docs/a.md:2', 'docs/a.md:3', 'docs/a.md:4',
                          'kernel/b.c:1'])

    def test_ordinary_words_pass(self):
        tree = Tree({'docs/a.md': 'a fuzz seed corpus; the seed is 42; issues of DMA\n'})
        self.assertEqual(tree.check('words'), [])


class CountsTest(unittest.TestCase):
    def tree(self, readme):
        return Tree({
            'README.md': readme,
            'docs/performance.md': 'on 1 May: 2 mutants\n',
            'tests/mutants/a.patch': '', 'tests/mutants/b.patch': '', 'tests/mutants/c.patch': '',
            'Makefile': 'FUZZ_TARGETS := mb2 memmap \\\n\tcmdline\n',
            'tests/topologies/one.topo': '',
        })

    def test_right_counts_pass(self):
        self.assertEqual(self.tree('3 mutants, 3 libFuzzer targets, 1 topologies\n')
                         .check('counts'), [])

    def test_a_stale_count_is_named_and_the_journal_is_not(self):
        bad = self.tree('applies 2 plausible bugs and 4 fuzz targets\n').check('counts')
        self.assertEqual(len(bad), 2)
        self.assertIn('README.md:1: says "2 plausible bugs", tests/mutants/*.patch has 3', bad)


class CiSentenceTest(unittest.TestCase):
    def test_every_target_of_ci_run_is_said(self):
        ci = '#!/bin/sh\nmake deps\nmake -j2 C=1 iso\nmake test\nmake mutants\n'
        good = Tree({'.ci/run': ci, 'docs/testing.md': 'CI runs `make deps`, `make iso`,\n'
                     '`make test` and `make mutants`.\n'})
        self.assertEqual(good.check('ci'), [])
        bad = Tree({'.ci/run': ci, 'docs/testing.md': 'x\nCI runs `make test`.\n'})
        self.assertEqual(len(bad.check('ci')), 3)
        self.assertTrue(bad.check('ci')[0].startswith('docs/testing.md:2:'))


class MutantsApplyTest(unittest.TestCase):
    PATCH = ('# why: off by one\n# kills: x.y\n# run: host x\n--- a/kernel/a.c\n+++ b/kernel/a.c\n'
             '@@ -1,2 +1,2 @@\n int f(int n)\n-{ return n + 1; }\n+{ return n; }\n')

    def test_a_mutant_that_applies_passes(self):
        tree = Tree({'kernel/a.c': 'int f(int n)\n{ return n + 1; }\n',
                     'tests/mutants/x.patch': self.PATCH})
        self.assertEqual(tree.check('mutants'), [])

    def test_a_mutant_whose_code_moved_is_named(self):
        tree = Tree({'kernel/a.c': 'int f(int n)\n{ return n + 2; }\n',
                     'tests/mutants/x.patch': self.PATCH})
        bad = tree.check('mutants')
        self.assertEqual(len(bad), 1)
        self.assertTrue(bad[0].startswith('tests/mutants/x.patch:1: does not apply to kernel/a.c'))


class MutantEscapesTest(unittest.TestCase):
    """scripts/mutants.py: a mutant that an "# escapes:" run also kills fails."""
    PATCH = ('# why: torn count\n# kills: check-rcu.violation\n# run: check-rcu\n'
             '# escapes: check-rcu --no-interrupts\n'
             '--- a/kernel/a.c\n+++ b/kernel/a.c\n@@ -1 +1 @@\n-a\n+b\n')

    def verdict(self, killing_specs):
        tree = Tree({'tests/mutants/x.patch': self.PATCH})
        saved = mutants.reset_tree, mutants.apply, mutants.run, mutants.run_tests
        fail = {'status': 'fail', 'suite': 'check-rcu', 'case': 'violation',
                'boot': 'check-rcu', 'reason': 'VIOLATION'}

        def run_tests(tree, name, headers, specs):
            return [dict(fail) if s in killing_specs else {'status': 'pass'} for s in specs]
        mutants.reset_tree = mutants.apply = lambda *a: None
        mutants.run = lambda *a, **k: type('Done', (), {'returncode': 0})()
        mutants.run_tests = run_tests
        try:
            return mutants.try_mutant(os.path.join(tree.root, 'tests/mutants/x.patch'),
                                     one_tree(tree.root))
        finally:
            mutants.reset_tree, mutants.apply, mutants.run, mutants.run_tests = saved

    def test_the_escapes_are_read(self):
        tree = Tree({'tests/mutants/x.patch': self.PATCH})
        _, headers, _ = mutants.read_mutant(os.path.join(tree.root, 'tests/mutants/x.patch'))
        self.assertEqual(headers['escapes'], ['check-rcu --no-interrupts'])

    def test_killed_by_its_run_alone_is_killed(self):
        name, line, killed = self.verdict({'check-rcu'})
        self.assertTrue(killed, line)

    def test_killed_by_its_escape_too_is_not(self):
        name, line, killed = self.verdict({'check-rcu', 'check-rcu --no-interrupts'})
        self.assertFalse(killed)
        self.assertIn('kills it too', line)


class MutantKillTest(unittest.TestCase):
    """scripts/mutants.py: only the test a mutant names kills it."""

    def verdict(self, kills, records, expect=None):
        patch = (f'# why: w\n# kills: {kills}\n' + (f'# expect: {expect}\n' if expect else '') +
                 '# run: pair test=rcu\n--- a/kernel/a.c\n+++ b/kernel/a.c\n@@ -1 +1 @@\n-a\n+b\n')
        tree = Tree({'tests/mutants/x.patch': patch})
        saved = mutants.reset_tree, mutants.apply, mutants.run, mutants.run_tests
        mutants.reset_tree = mutants.apply = lambda *a: None
        mutants.run = lambda *a, **k: type('Done', (), {'returncode': 0})()
        mutants.run_tests = lambda *a: records
        try:
            return mutants.try_mutant(os.path.join(tree.root, 'tests/mutants/x.patch'),
                                     one_tree(tree.root))
        finally:
            mutants.reset_tree, mutants.apply, mutants.run, mutants.run_tests = saved

    @staticmethod
    def case(suite, case, status='fail', boot='x-0', reason=''):
        return {'boot': boot, 'suite': suite, 'case': case, 'status': status, 'reason': reason}

    def test_its_own_case_kills_it(self):
        _, line, killed = self.verdict('rcu.a, rcu.b', [self.case('rcu', 'a', 'pass'),
                                                        self.case('rcu', 'b')])
        self.assertTrue(killed, line)
        self.assertIn('killed by rcu.b', line)

    def test_another_case_does_not(self):
        _, line, killed = self.verdict('rcu.a', [self.case('rcu', 'a', 'pass'),
                                                 self.case('rcu', 'leaks_nothing')])
        self.assertFalse(killed)
        self.assertIn('not killed by its test: rcu.leaks_nothing failed instead', line)

    def test_a_hang_kills_only_what_expects_one(self):
        hung = [self.case('rcu', 'a', 'fail', reason='case 1 did not finish: plan 1..1'),
                self.case(None, 'boot', reason='hang: no exit')]
        _, line, killed = self.verdict('rcu.a', hung)
        self.assertFalse(killed)
        self.assertIn('"# expect: hang" would allow', line)
        _, line, killed = self.verdict('rcu.a', hung, expect='hang')
        self.assertTrue(killed, line)
        _, line, killed = self.verdict('rcu.a', [self.case('rcu', 'a')], expect='hang')
        self.assertFalse(killed, line)

    def test_a_hang_said_on_the_case_alone_is_a_hang(self):
        # run.py puts the boot's hang on the case it cut short when it knows which
        hung = [self.case('smp', 'lost', reason='hang: no exit after 20 s in this case; '
                          'case 1 did not finish: plan 1..2 but only 0 results')]
        _, line, killed = self.verdict('smp.lost', hung)
        self.assertFalse(killed)
        self.assertIn('(a hang)', line)
        self.assertTrue(self.verdict('smp.lost', hung, expect='hang')[2])

    def test_a_case_that_said_not_ok_kills_though_the_boot_hung_later(self):
        records = [self.case('apic', 'tick', reason=''),
                   self.case(None, 'boot', reason='plan 1..3 but only 1 result; hang: no exit')]
        _, line, killed = self.verdict('apic.tick', records)
        self.assertTrue(killed, line)
        cut = [self.case('apic', 'tick', reason='case 2 (after x) did not finish: plan 1..3'),
               self.case(None, 'boot', reason='plan 1..3 but only 1 result; hang: no exit')]
        self.assertFalse(self.verdict('apic.tick', cut)[2])
        self.assertTrue(self.verdict('apic.tick', cut, expect='hang')[2])

    def test_boot_names_a_whole_boot_of_its_own_lines(self):
        panic = [self.case(None, 'boot', reason='kernel panic (QEMU exit 5)')]
        _, line, killed = self.verdict('boot (a panic first)', panic)
        self.assertTrue(killed, line)
        _, line, killed = self.verdict('rcu.a', panic)
        self.assertFalse(killed, line)

    def test_a_matrix_boot_is_named_by_its_name(self):
        session = [self.case(None, 'boot', boot='qr-results', reason='session: no code')]
        self.assertTrue(self.verdict('qr-results (a note)', session)[2])
        self.assertFalse(self.verdict('modern-pc', session)[2])

    def test_a_crashed_emulator_decides_nothing(self):
        crash = [self.case(None, 'emulator', reason='the emulator crashed: QEMU died of SIGSEGV')]
        _, line, killed = self.verdict('boot', crash)
        self.assertFalse(killed)
        self.assertIn('QEMU died of SIGSEGV', line)
        self.assertIn('run it again', line)

    def test_nothing_failed_is_survived(self):
        _, line, killed = self.verdict('rcu.a', [self.case('rcu', 'a', 'pass')])
        self.assertFalse(killed)
        self.assertIn('SURVIVED', line)

    @staticmethod
    def read(headers):
        """read_mutant() of a patch with these header lines over a one-line diff."""
        tree = Tree({'tests/mutants/x.patch': headers + '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n'})
        return mutants.read_mutant(os.path.join(tree.root, 'tests/mutants/x.patch'))

    def test_a_mutant_without_kills_is_refused(self):
        with self.assertRaises(mutants.MutantError):
            self.read('# why: w\n# run: host x\n')

    def test_a_boot_runs_only_the_cases_that_can_kill(self):
        self.assertEqual(mutants.narrow('pair test=rcu', ['rcu.late']), 'pair test=rcu.late')
        self.assertEqual(mutants.narrow('story test=dma,edu swiotlb=rc4', ['dma.a', 'edu.b']),
                         'story test=dma.a,edu.b swiotlb=rc4')
        # leaks_nothing judges what its suite took: the suite stays whole.
        self.assertEqual(mutants.narrow('story test=rcu', ['rcu.leaks_nothing', 'rcu.x']),
                         'story test=rcu')
        # A boot as a whole, a case the line does not run, other kinds: as written.
        self.assertEqual(mutants.narrow('single test=string', ['boot']), 'single test=string')
        self.assertEqual(mutants.narrow('pair test=console', ['smp.x']), 'pair test=console')
        self.assertEqual(mutants.narrow('matrix story-debug', ['rcu.leaks_nothing']),
                         'matrix story-debug --filter rcu')
        self.assertEqual(mutants.narrow('matrix story-debug', ['rcu.x']),
                         'matrix story-debug --filter rcu.x')
        self.assertEqual(mutants.narrow('matrix story-debug', ['rcu.x', 'vm.y']),
                         'matrix story-debug')
        self.assertEqual(mutants.narrow('matrix qr-results', ['qr-results']), 'matrix qr-results')
        self.assertEqual(mutants.narrow('host slab', ['slab.x']), 'host slab')

    def test_a_mutant_of_the_code_that_reads_test_runs_as_written(self):
        tree = Tree({'tests/mutants/x.patch': '# why: w\n# kills: boot.c\n# run: single test=boot,boot.*\n'
                                              '--- a/kernel/cmdline.c\n+++ b/kernel/cmdline.c\n'
                                              '@@ -1 +1 @@\n-a\n+b\n',
                     'tests/mutants/y.patch': '# why: w\n# kills: boot.c\n# run: single test=boot,boot.*\n'
                                              '--- a/kernel/vm.c\n+++ b/kernel/vm.c\n'
                                              '@@ -1 +1 @@\n-a\n+b\n'})
        _, x, _ = mutants.read_mutant(os.path.join(tree.root, 'tests/mutants/x.patch'))
        _, y, _ = mutants.read_mutant(os.path.join(tree.root, 'tests/mutants/y.patch'))
        self.assertEqual(x['run'], ['single test=boot,boot.*'])
        self.assertEqual(y['run'], ['single test=boot.c'])

    def test_a_narrowed_matrix_line_and_a_boot_line_run_together(self):
        calls = []

        def fake_run(cmd, tree, timeout=None):
            calls.append(cmd)
            out = cmd[cmd.index('--json') + 1]
            with open(out, 'w') as f:
                json.dump([{'boot': 'b', 'suite': 'rcu', 'case': 'x', 'status': 'pass',
                            'reason': ''}], f)
        with tempfile.TemporaryDirectory() as tree:
            os.makedirs(os.path.join(tree, 'build'))
            saved, mutants.run = mutants.run, fake_run
            try:
                records = mutants.run_tests(tree, 'm', {}, ['matrix story-debug --filter rcu',
                                                            'pair test=rcu.x'])
            finally:
                mutants.run = saved
        self.assertEqual(len(records), 2)
        self.assertIn(['--only', 'story-debug'], [c[i:i + 2] for c in calls for i in range(len(c))])
        self.assertIn(['--filter', 'rcu'], [c[i:i + 2] for c in calls for i in range(len(c))])

    def test_a_case_named_by_its_number_is_refused(self):
        with self.assertRaises(mutants.MutantError):
            self.read('# why: w\n# kills: smp.#10\n# run: host x\n')

    def test_clean_lines_that_differ_in_test_share_a_boot(self):
        runs = mutants.shared_boots({'pair test=rcu.a': {}, 'pair test=rcu.b': {},
                                     'story test=x': {'timeout': '20'}, 'story test=y': {},
                                     'host slab': {}})
        self.assertIn(('pair test=rcu.a,rcu.b', {}, ['pair test=rcu.a', 'pair test=rcu.b']), runs)
        self.assertIn(('story test=x', {'timeout': '20'}, ['story test=x']), runs)
        self.assertIn(('host slab', {}, ['host slab']), runs)
        runs = mutants.shared_boots({'host slab': {}, 'host qr': {'timeout': '20'},
                                     'matrix sd --filter rcu': {},
                                     'matrix sd --filter boot': {'timeout': '150'},
                                     'matrix other': {}})
        self.assertIn(('host qr,slab', {}, ['host qr', 'host slab']), runs)
        self.assertIn(('matrix sd --filter boot,rcu', {},
                       ['matrix sd --filter boot', 'matrix sd --filter rcu']), runs)
        self.assertIn(('matrix other', {}, ['matrix other']), runs)
        long = {f'pair test=suite.case_number_{i:03d}_with_a_long_name': {} for i in range(20)}
        for line, _, members in mutants.shared_boots(long):
            self.assertLessEqual(len(line.split('test=')[1]), mutants.SELECTION_MAX)
        self.assertEqual(sum(len(m) for _, _, m in mutants.shared_boots(long)), 20)

    def test_a_shared_clean_boot_that_fails_is_split(self):
        tree = Tree({'tests/mutants/x.patch': '# why: w\n# kills: rcu.a\n# run: pair test=rcu\n'
                                              '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n',
                     'tests/mutants/y.patch': '# why: w\n# kills: rcu.b\n# run: pair test=rcu\n'
                                              '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n'})
        seen = []

        def run_tests(tree, name, headers, specs):
            seen.append(specs[0])
            return [self.case('rcu', 'b')] if 'rcu.b' in specs[0] else []
        saved, mutants.run_tests = mutants.run_tests, run_tests
        try:
            broken = clean_failures([os.path.join(tree.root, 'tests/mutants/x.patch'),
                                     os.path.join(tree.root, 'tests/mutants/y.patch')])
        finally:
            mutants.run_tests = saved
        self.assertEqual(seen, ['pair test=rcu.a,rcu.b', 'pair test=rcu.a', 'pair test=rcu.b'])
        self.assertEqual(len(broken), 1)
        self.assertIn('"# run: pair test=rcu.b" fails', broken[0])

    def test_a_run_line_that_fails_on_the_clean_tree_stops_it(self):
        tree = Tree({'tests/mutants/x.patch': '# why: w\n# kills: rcu.a\n# run: pair test=rcu\n'
                                              '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n'})
        saved = mutants.run_tests
        mutants.run_tests = lambda *a: [self.case('rcu', 'a')]
        try:
            broken = clean_failures([os.path.join(tree.root, 'tests/mutants/x.patch')])
        finally:
            mutants.run_tests = saved
        self.assertEqual(len(broken), 1)
        self.assertIn('"# run: pair test=rcu.a" fails on the clean tree: rcu.a', broken[0])


class LabTest(unittest.TestCase):
    """scripts/lab.py: a lab's patch, its grade and what CI asks of it."""
    PATCH = ('# lab: a title\n# page: docs/labs/01-x.md\n# grade: 60 host x\n'
             '# grade: 40 pair test=x.a\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-a\n'
             '+/* LAB(x): the stub */\n')

    def setUp(self):
        self.tree = Tree({'tests/labs/x.patch': self.PATCH, 'a.c': 'a\n',
                          'docs/labs/01-x.md': 'make grade LAB=x\n'})
        self.saved = (lab.LABS, lab.ROOT, mutants.build, mutants.run_tests)
        lab.LABS = os.path.join(self.tree.root, 'tests/labs')
        lab.ROOT = self.tree.root
        mutants.build = lambda tree, specs: None

    def tearDown(self):
        lab.LABS, lab.ROOT, mutants.build, mutants.run_tests = self.saved

    def grade(self, failing):
        def run_tests(tree, name, headers, specs):
            return [{'status': 'fail' if specs[0] in failing else 'pass', 'suite': 'x',
                     'case': 'a', 'boot': name, 'reason': 'r'}]
        mutants.run_tests = run_tests
        lines = []
        return lab.grade(self.tree.root, 'x', out=lines.append), lines

    def test_the_headers_are_read(self):
        headers, files = lab.read_lab('x')
        self.assertEqual(headers['grade'], [(60, 'host x'), (40, 'pair test=x.a')])
        self.assertEqual(headers['page'], 'docs/labs/01-x.md')
        with self.assertRaises(lab.LabError):
            lab.read_lab('nothing')

    def test_points_per_line_and_the_score(self):
        done, lines = self.grade({'host x'})
        self.assertEqual(done, [('host x', 0, 60), ('pair test=x.a', 40, 40)])
        self.assertIn('[0/60]', lines[0])
        self.assertEqual(lines[-1], 'Score: 40/100')

    def test_a_run_of_skips_gives_no_points(self):
        mutants.run_tests = lambda *a: [{'status': 'skip', 'suite': 'x', 'case': 'a',
                                         'boot': 'b', 'reason': ''}]
        lines = []
        done = lab.grade(self.tree.root, 'x', out=lines.append)
        self.assertEqual([got for _, got, _ in done], [0, 0])
        self.assertIn('every case skipped', lines[0])

    def test_a_starting_point_that_gets_points_is_a_problem(self):
        started = []

        def run_tests(tree, name, headers, specs):
            started.append(tree)
            fails = tree != self.tree.root and specs[0] == 'host x'
            return [{'status': 'fail' if fails else 'pass', 'suite': 'x', 'case': 'a',
                     'boot': name, 'reason': 'r'}]
        mutants.run_tests = run_tests
        saved = mutants.copy_tree, mutants.reset_tree, lab.SCRATCH
        lab.SCRATCH = os.path.join(self.tree.root, 'build/labs')

        def copy_tree(tree):
            os.makedirs(os.path.join(tree, 'build'))
            with open(os.path.join(tree, 'a.c'), 'w') as f:
                f.write('a\n')
        mutants.copy_tree = copy_tree
        mutants.reset_tree = lambda tree, files: None
        try:
            problems = lab.check(['x'])
        finally:
            mutants.copy_tree, mutants.reset_tree, lab.SCRATCH = saved
        self.assertEqual(len(problems), 1)
        self.assertIn('already gets the points of "pair test=x.a"', problems[0])


def clean_failures(paths):
    """What the clean-tree runs of these mutants' lines report, one by one."""
    return [message for run in mutants.clean_runs(paths)[1] for _, message in run()]


class MutantNotJudgedTest(unittest.TestCase):
    """scripts/mutants.py: a mutant whose line fails on the clean tree
    counts as not killed, whatever its own run said (the clean runs and
    the mutants share one queue, so its verdict may come first)."""

    def test_a_mutant_on_a_broken_line_is_not_judged(self):
        tree = Tree({'tests/mutants/x.patch': '# why: w\n# kills: rcu.a\n# run: pair test=rcu\n'
                                              '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n'})
        paths = [os.path.join(tree.root, 'tests/mutants/x.patch')]
        verdict = ('x', 'mutant x: killed by rcu.a', True)
        self.assertEqual(mutants.judged(verdict, paths, {}), verdict)
        name, line, killed = mutants.judged(verdict, paths, {'pair test=rcu.a': 'fails'})
        self.assertFalse(killed)
        self.assertIn('not judged: "pair test=rcu.a" fails on the clean tree', line)


class PlotScriptTest(unittest.TestCase):
    """scripts/plot.py: plots a student reads at a glance."""

    def script(self):
        names = [f'{m}-{side}' for m in ('rc4', 'count', 'fqs')
                 for side in ('alone', 'hog', 'kernel')]
        return plot.gnuplot_script(names, 50044, {'nr_files': 40000, 'qlen': 70000})

    def test_one_y_range_per_plot_and_labelled_axes(self):
        script = self.script()
        self.assertEqual([l for l in script if l.startswith('set yrange')],
                         ['set yrange [0:52546]', 'set yrange [0:73500]'])
        for plot_start in (i for i, l in enumerate(script) if l.startswith('set output')):
            panels = script[plot_start:script.index('unset multiplot', plot_start)]
            self.assertEqual(sum(l.startswith('set yrange') for l in panels), 1)
            self.assertTrue(any(l.startswith('set ylabel') and '(count)' in l for l in panels))
        self.assertIn('set xlabel "time since the storm began (ms)"', script)
        self.assertTrue(any(l.startswith('set key outside') for l in script))

    def test_each_mode_keeps_its_own_style(self):
        styles = set(plot.MODE_STYLE.values())
        self.assertEqual(len(styles), len(plot.MODE_STYLE))
        self.assertNotEqual(plot.MODE_STYLE['count'].split('dt')[0],
                            plot.MODE_STYLE['fqs'].split('dt')[0])
        for line in (l for l in self.script() if l.startswith('plot ')):
            self.assertIn(plot.MODE_STYLE['fqs'], line)


class BenchGateTest(unittest.TestCase):
    """scripts/bench.py compare: one-sided gates on -icount boots only."""

    def test_worse_beyond_the_band_fails_better_does_not(self):
        higher = {'value': 0.60, 'better': 'higher'}
        self.assertEqual(bench.judge(0.58, higher, 0.05)[0], 'ok')
        self.assertEqual(bench.judge(0.56, higher, 0.05)[0], 'WORSE')
        self.assertEqual(bench.judge(0.70, higher, 0.05)[0], 'better')
        lower = {'value': 3.2, 'better': 'lower'}
        self.assertEqual(bench.judge(3.5, lower, 0.05)[0], 'WORSE')
        self.assertEqual(bench.judge(2.9, lower, 0.05)[0], 'better')

    def test_the_baseline_shape(self):
        good = {'band': 0.05, 'boots': [
            {'topo': 'story-icount', 'gated': {'r': {'value': 1.0, 'better': 'lower'}}},
            {'topo': 'story', 'printed': {'r': 1.0}}]}
        self.assertEqual(bench.check_baseline(good), [])
        wide = dict(good, band=0.2)
        self.assertIn('"band" must be above 0 and at most 0.05', bench.check_baseline(wide))
        tcg = {'band': 0.05, 'boots': [
            {'topo': 'story', 'gated': {'r': {'value': 1.0, 'better': 'lower'}}}]}
        self.assertEqual(bench.check_baseline(tcg),
                         ['story: gated ratios need an -icount topology'])
        sideless = {'band': 0.05, 'boots': [{'topo': 'story-icount', 'gated': {'r': {'value': 1}}}]}
        self.assertEqual(len(bench.check_baseline(sideless)), 1)

    def test_the_committed_baseline_is_well_formed(self):
        with open(os.path.join(os.path.dirname(HERE), 'tests', 'bench-baseline.json')) as f:
            self.assertEqual(bench.check_baseline(json.load(f)), [])


class BaselineCommitTest(unittest.TestCase):
    """check_commits.py: a moved gated ratio is named in the commit's body."""
    BEFORE = json.dumps({'band': 0.05, 'boots': [{'topo': 't', 'gated': {
        'a_vs_b': {'value': 0.5, 'better': 'higher'}, 'c_vs_d': {'value': 2.0, 'better': 'lower'}},
        'printed': {'tcg_ratio': 1.0}}]})

    def after(self, **values):
        data = json.loads(self.BEFORE)
        for name, value in values.items():
            data['boots'][0]['gated'][name] = {'value': value, 'better': 'higher'}
        return json.dumps(data)

    def test_a_moved_ratio_must_be_named(self):
        after = self.after(a_vs_b=0.6)
        self.assertEqual(check_commits.unnamed_baseline_moves(self.BEFORE, after, 'faster'),
                         ['a_vs_b'])
        self.assertEqual(check_commits.unnamed_baseline_moves(
            self.BEFORE, after, 'a_vs_b went 0.5 -> 0.6: the bulk free'), [])

    def test_printed_ratios_and_notes_are_free(self):
        data = json.loads(self.BEFORE)
        data['boots'][0]['printed']['tcg_ratio'] = 3.0
        data['note'] = 'reworded'
        self.assertEqual(check_commits.unnamed_baseline_moves(self.BEFORE, json.dumps(data), ''),
                         [])

    def test_a_new_baseline_names_all_it_gates(self):
        self.assertEqual(check_commits.unnamed_baseline_moves('', self.BEFORE, 'c_vs_d'),
                         ['a_vs_b'])


class CommitFormTest(unittest.TestCase):
    GOOD = ('rcu: count queued callbacks per CPU\n\n'
            'Eric Dumazet\'s counter: above qhimark, call_rcu() asks for a\n'
            'reschedule. Measured: peak qlen 15,292 on story.\n\n'
            '    storm: rcu.mode=count cpu 2: 200176 iterations, no ENFILE, and a quoted line that runs long\n'
            'Link: https://lore.kernel.org/all/some-very-long-message-id@example.org/and/more/path\n')

    def test_linux_form_passes(self):
        self.assertEqual(check_commits.problems(self.GOOD), [])
        self.assertEqual(check_commits.problems(
            'tests/run.py, make bench: name a crashed QEMU\n\nWhy.\n'), [])
        self.assertEqual(check_commits.problems('Revert "rcu: x"\n\nThis reverts commit 1.\n'),
                         [])

    def test_each_fault_is_named(self):
        essay = 'slab: ' + 'a very long subject that says everything ' * 3
        self.assertIn(f'subject is {len(essay)} characters (at most 72)',
                      check_commits.problems(essay + '\n'))
        self.assertIn('no body: say why, and what was measured and how',
                      check_commits.problems('slab: free in bulk\n'))
        self.assertIn('subject is not "subsystem: what changed"',
                      check_commits.problems('Fixed the slab\n\nWhy.\n'))
        self.assertIn('second line is not blank',
                      check_commits.problems('slab: x\nmore\n'))
        self.assertIn('subject ends with a full stop',
                      check_commits.problems('slab: free in bulk.\n\nWhy.\n'))
        long_line = 'word ' * 16
        self.assertIn(f'body line 3 is {len(long_line)} characters (wrap at 72)',
                      check_commits.problems('slab: x\n\n' + long_line + '\n'))
        prefix = 'the slab allocator and its magazines'
        self.assertTrue(any('prefix' in p for p in
                            check_commits.problems(f'{prefix}: x\n\nWhy.\n')))

    def test_a_merge_keeps_to_the_widths_only(self):
        self.assertEqual(check_commits.problems('Merge branch bulk-free: frees in bulk\n',
                                                merge=True), [])
        long_merge = 'Merge branch fuzz-oracles: every fuzz target checks its output, in full too'
        self.assertEqual(check_commits.problems(long_merge + '\n', merge=True),
                         [f'subject is {len(long_merge)} characters (at most 72)'])
        self.assertIn('body line 3 is 80 characters (wrap at 72)',
                      check_commits.problems('Merge branch x\n\n' + 'word ' * 16 + '\n',
                                             merge=True))


def tearDownModule():
    for folder in KEPT:
        folder.cleanup()


class StoryExcerptTest(unittest.TestCase):
    """The README's story against a boot's: words checked, numbers not."""
    LOG = textwrap.dedent('''\
        [    3.1] story: replaying both bugs
        [    3.2] The 2.6.14 story, October 2005: two bugs, replayed on this machine
        [    3.3]   rc4       user    no         49921      49921     0
        [    3.4]   rc4       hits ENFILE alone: the 2005 bug
        [    3.5]   rc5     0xad5000-0x4ad5000   1  yes
        [    3.6] See docs/story.md. Try: make run
        [    3.7] qr: end
        ''')

    def readme(self, body):
        return f'intro\n{story_excerpt.BEGIN}\n```\n{body}\n```\n{story_excerpt.END}\nrest\n'

    def test_the_report_is_cut_from_its_title_to_its_last_line(self):
        lines = story_excerpt.report(self.LOG)
        self.assertEqual(lines[0], 'The 2.6.14 story, October 2005: two bugs, replayed on this machine')
        self.assertEqual(lines[-1], 'See docs/story.md. Try: make run')
        self.assertEqual(len(lines), 5)

    def test_other_numbers_pass_and_another_verdict_fails(self):
        log = story_excerpt.report(self.LOG)
        same = [line.replace('49921', '200176').replace('0xad5000', '0xb00000') for line in log]
        self.assertEqual(story_excerpt.differences(same, log), [])
        other = [line.replace('hits ENFILE alone', 'survives alone') for line in log]
        self.assertNotEqual(story_excerpt.differences(other, log), [])
        fewer = log[:-2] + log[-1:]
        self.assertNotEqual(story_excerpt.differences(fewer, log), [])

    def test_write_then_check_agree_and_keep_the_rest(self):
        log = story_excerpt.report(self.LOG)
        text = story_excerpt.rewritten(self.readme('old'), log)
        before, lines, after = story_excerpt.block(text)
        self.assertEqual((before, lines, after), ('intro\n', log, '\nrest\n'))

    def test_a_log_without_the_story_or_a_readme_without_the_block_says_so(self):
        with self.assertRaises(story_excerpt.ExcerptError):
            story_excerpt.report('[ 1.0] kernel starting\n')
        with self.assertRaises(story_excerpt.ExcerptError):
            story_excerpt.report(self.LOG.replace('See docs', 'Read docs'))
        with self.assertRaises(story_excerpt.ExcerptError):
            story_excerpt.block('no block here\n')


if __name__ == '__main__':
    unittest.main()
