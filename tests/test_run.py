#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unit tests of tests/run.py: configuration parsing, log cleaning, the KTAP
parser and the verdicts, on small inline logs.  No QEMU is started.

Run with: python3 tests/test_run.py
"""

import json
import os
import subprocess
import sys
import textwrap
import unittest

# Import the runner from beside this file, leaving no __pycache__ behind.
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'scripts'))     # plot.py
import run  # noqa: E402


def log(text):
    """An inline serial log: dedented, first newline dropped."""
    return textwrap.dedent(text).lstrip('\n')


# A small boot log: one failing case, one skipped, two suites.
SAMPLE = log('''
    [    0.000100] testbed: booting
    [    0.000200] numa: node 0 cpus 0-1 mem none
    [    0.500000] KTAP version 1
    [    0.500000] 1..2
    [    0.500001]     KTAP version 1
    [    0.500001]     # Subtest: format
    [    0.500001]     1..3
    [    0.500002]     ok 1 plain_string
    [    0.500003]     # width_padding: EXPECTATION FAILED at format_test.c:42
    [    0.500003]     #   expected: buf == "  42"
    [    0.500004]     not ok 2 width_padding
    [    0.500005]     ok 3 pointer_format # SKIP no framebuffer
    [    0.500005] # format: pass:1 fail:1 skip:1 total:3
    [    0.500006] not ok 1 format
    [    0.500006]     KTAP version 1
    [    0.500006]     # Subtest: trap
    [    0.500006]     1..1
    [    0.500007]     ok 1 page_fault_read
    [    0.500007] # trap: pass:1 fail:0 skip:0 total:1
    [    0.500008] ok 2 trap
    [    0.500008] # Totals: pass:2 fail:1 skip:1 total:4
''')

# SAMPLE with the failing case passing: its diagnostics gone, its result ok.
SAMPLE_PASSING = '\n'.join(
    line for line in SAMPLE.splitlines()
    if 'EXPECTATION' not in line and 'expected:' not in line
).replace('not ok 2', 'ok 2').replace('not ok 1 format', 'ok 1 format') + '\n'

ALL_PASS = log('''
    [    0.500000] KTAP version 1
    [    0.500000] 1..2
    [    0.500001]     KTAP version 1
    [    0.500001]     # Subtest: format
    [    0.500001]     1..2
    [    0.500002]     ok 1 plain_string
    [    0.500002] format: some printk output between cases
    [    0.500003]     ok 2 width_padding
    [    0.500005] ok 1 format
    [    0.500006]     KTAP version 1
    [    0.500006]     # Subtest: trap
    [    0.500006]     1..1
    [    0.500007]     ok 1 page_fault_read
    [    0.500008] ok 2 trap
''')

# A panic in the second case of the first suite.
PANIC_MID_SUITE = log('''
    [    0.500000] KTAP version 1
    [    0.500000] 1..2
    [    0.500001]     KTAP version 1
    [    0.500001]     # Subtest: trap
    [    0.500001]     1..3
    [    0.500002]     ok 1 page_fault_read
    [    0.500003] PANIC: general protection fault at ffffffff80201234
    [    0.500003]   [<ffffffff80201234>] ktest_panic_level3+0x1a/0x40
    [    0.500003]   [<ffffffff80201300>] ktest_panic_level2+0x10/0x20
''')

# The same with kselftest's "# RUN" line before each case, as ktest prints.
PANIC_IN_A_NAMED_CASE = log('''
    [    0.500000] KTAP version 1
    [    0.500000] 1..2
    [    0.500001]     KTAP version 1
    [    0.500001]     # Subtest: trap
    [    0.500001]     1..3
    [    0.500001]     # RUN page_fault_read
    [    0.500002]     ok 1 page_fault_read
    [    0.500002]     # RUN double_fault
    [    0.500003] PANIC: double fault
''')

# What OVMF and GRUB leave on the serial line before the kernel starts.
UEFI_PREAMBLE = ('\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01H'
                 'BdsDxe: loading Boot0001 "UEFI QEMU DVD-ROM QM00005" '
                 'from PciRoot(0x0)/Pci(0x1F,0x2)/Sata(0x2,0xFFFF,0x0)\r\n'
                 '\x1b[0m\x1b[30m\x1b[47mWelcome to GRUB!\n\r\n\r'
                 '\x1b[0m\x1b[37m\x1b[40m\x1b[H\x1b[J\x1b[1;1H')

SINGLE = run.Topology(name='single', machine='pc', memory='512M', smp='1',
                      firmware='bios')


def boot(expect='pass', timeout=60):
    """A matrix boot built from its expect column."""
    kind, target, flags = run.parse_expect(expect, 'test')
    return run.Boot(name='b', topology='single', firmware='bios',
                    timeout=timeout, kind=kind, target=target,
                    usb='usb' in flags, debugexit='nodebugexit' not in flags,
                    args='test=all')


def titles(verdict):
    return [failure.title for failure in verdict.failures]


class CleaningTest(unittest.TestCase):

    def test_ansi_and_carriage_returns_are_removed(self):
        lines = run.clean_log(UEFI_PREAMBLE + '[    0.1] hello\r\n')
        self.assertIn('Welcome to GRUB!', lines)
        self.assertIn('[    0.1] hello', lines)
        self.assertFalse(any('\x1b' in l or '\r' in l for l in lines))

    def test_prefix_width_comes_from_the_ktap_line(self):
        lines = run.clean_log('junk\n[ 12.5] boot\n[ 12.6] KTAP version 1\n')
        start, prefix = run.find_prefix(lines)
        self.assertEqual((start, prefix), (2, '[ 12.6] '))
        self.assertEqual(run.strip_prefix(lines, prefix),
                         ['junk', 'boot', 'KTAP version 1', ''])

    def test_lines_without_the_prefix_shape_are_left_alone(self):
        lines = ['BdsDxe: loading', '[  100.000001]     ok 1 x']
        self.assertEqual(run.strip_prefix(lines, '[    0.500000] '),
                         ['BdsDxe: loading', '    ok 1 x'])

    def test_no_prefix_at_all(self):
        lines = ['KTAP version 1', '1..0']
        self.assertEqual(run.find_prefix(lines), (0, ''))
        self.assertEqual(run.strip_prefix(lines, ''), lines)

    def test_fallback_prefix_without_ktap(self):
        lines = ['SeaBIOS', '[    0.001000] PANIC: early']
        self.assertEqual(run.find_prefix(lines), (None, '[    0.001000] '))


class ClassifyTest(unittest.TestCase):

    def test_kinds(self):
        cases = {
            'KTAP version 1': (0, 'version', None),
            '1..3': (0, 'plan', 3),
            '    # Subtest: format': (1, 'subtest', 'format'),
            '    ok 1 plain': (1, 'result', ('ok', 1, 'plain', '')),
            'not ok 2 trap': (0, 'result', ('fail', 2, 'trap', '')),
            '    ok 3 ptr # SKIP no fb': (1, 'result',
                                          ('skip', 3, 'ptr', 'no fb')),
            '    ok 4 x # skip': (1, 'result', ('skip', 4, 'x', '')),
            '# Totals: pass:1': (0, 'diag', '# Totals: pass:1'),
            'PANIC: oops': (0, 'other', 'PANIC: oops'),
            '        ok 1 param': (2, 'result', ('ok', 1, 'param', '')),
        }
        for line, expected in cases.items():
            with self.subTest(line=line):
                self.assertEqual(run.classify(line), expected)


def parse(text):
    lines, start = run.kernel_lines(text)
    return run.read_ktap(lines, start)


class KtapTest(unittest.TestCase):

    def test_sample(self):
        report = parse(SAMPLE)
        self.assertEqual(report.plan, 2)
        self.assertEqual(report.problems, [])
        self.assertEqual([s.name for s in report.suites], ['format', 'trap'])
        statuses = {c.id: c.status for c in run.all_cases(report)}
        self.assertEqual(statuses, {
            'format.plain_string': 'ok', 'format.width_padding': 'fail',
            'format.pointer_format': 'skip', 'trap.page_fault_read': 'ok'})
        self.assertEqual(report.suites[0].problems, [])

    def test_case_output_holds_its_diagnostics(self):
        case = run.all_cases(parse(SAMPLE))[1]
        self.assertEqual(case.output, [
            '    # width_padding: EXPECTATION FAILED at format_test.c:42',
            '    #   expected: buf == "  42"',
            '    not ok 2 width_padding'])

    def test_other_kernel_output_belongs_to_the_next_case(self):
        case = run.all_cases(parse(ALL_PASS))[1]
        self.assertEqual(case.output[0],
                         'format: some printk output between cases')

    def test_skip_reason(self):
        case = run.all_cases(parse(SAMPLE))[2]
        self.assertEqual(case.reason, 'no framebuffer')

    def test_panic_mid_suite_leaves_a_crashed_case(self):
        report = parse(PANIC_MID_SUITE)
        crashed = run.all_cases(report)[-1]
        self.assertEqual(crashed.id, 'trap.#2')
        self.assertEqual(crashed.status, 'crash')
        self.assertIn('plan 1..3 but only 1 result', crashed.reason)
        self.assertIn('after page_fault_read', crashed.reason)
        self.assertEqual(crashed.output[0],
                         'PANIC: general protection fault at ffffffff80201234')
        # The top-level plan is short too, but the crash explains it.
        self.assertEqual(report.problems, [])

    def test_a_crashed_case_is_named_by_its_run_line(self):
        report = parse(PANIC_IN_A_NAMED_CASE)
        first, crashed = run.all_cases(report)
        self.assertEqual(first.id, 'trap.page_fault_read')
        self.assertEqual(crashed.id, 'trap.double_fault')
        self.assertEqual(crashed.status, 'crash')
        self.assertIn('PANIC: double fault', crashed.output)

    def test_suite_missing_from_the_top_level_plan(self):
        report = parse(ALL_PASS.replace('] 1..2', '] 1..3', 1))
        self.assertEqual(report.problems, ['plan 1..3 but only 2 results'])

    def test_more_results_than_planned(self):
        report = parse(ALL_PASS.replace('    1..1', '    1..0'))
        self.assertEqual(report.suites[1].problems,
                         ['plan 1..0 but 1 result'])

    def test_missing_top_plan(self):
        report = parse(ALL_PASS.replace('[    0.500000] 1..2\n', ''))
        self.assertEqual(report.problems, ['missing KTAP plan'])

    def test_no_ktap(self):
        report = parse('SeaBIOS\nBooting from DVD/CD...\n')
        self.assertFalse(report.found)

    def test_prefix_is_stripped_after_a_uefi_preamble(self):
        report = parse(UEFI_PREAMBLE + SAMPLE.replace('\n', '\r\n'))
        self.assertEqual(len(run.all_cases(report)), 4)
        self.assertEqual(report.problems, [])

    def test_suite_result_disagreeing_with_its_cases(self):
        report = parse(SAMPLE.replace('not ok 1 format', 'ok 1 format'))
        self.assertEqual(report.suites[0].problems,
                         ['suite reported "ok" but some of its cases failed'])


class PassVerdictTest(unittest.TestCase):

    def judge(self, text, rc, topo=SINGLE):
        return run.judge_boot(boot('pass'), topo, rc, text)

    def test_all_pass(self):
        verdict = self.judge(ALL_PASS, 1)
        self.assertEqual((verdict.passed, verdict.failed, verdict.skipped),
                         (3, 0, 0))
        self.assertEqual(run.status_line(verdict),
                         'PASS b (3 cases, 0.0 s)')

    def test_a_failing_case(self):
        verdict = self.judge(SAMPLE, 3)
        self.assertEqual((verdict.passed, verdict.failed, verdict.skipped),
                         (2, 1, 1))
        self.assertEqual(titles(verdict), ['format.width_padding'])
        self.assertEqual(verdict.summary, 'format.width_padding: not ok')
        block = '\n'.join(run.failure_block(verdict, verdict.failures[0]))
        self.assertIn('EXPECTATION FAILED', block)

    def test_skips_are_counted(self):
        verdict = self.judge(SAMPLE_PASSING, 1)
        self.assertEqual((verdict.passed, verdict.failed, verdict.skipped),
                         (3, 0, 1))
        self.assertEqual(run.status_line(verdict),
                         'PASS b (4 cases, 1 skipped, 0.0 s)')

    def test_an_ok_with_a_failed_check_is_a_failure(self):
        for result in ('ok 2 width_padding', 'ok 2 width_padding # SKIP no fb'):
            verdict = self.judge(SAMPLE.replace('not ok 2 width_padding', result)
                                 .replace('not ok 1 format', 'ok 1 format'), 1)
            self.assertEqual(titles(verdict)[0], 'format.width_padding')
            self.assertIn('but a check failed', verdict.failures[0].reasons[0])

    def test_uefi_preamble(self):
        verdict = self.judge(UEFI_PREAMBLE + ALL_PASS.replace('\n', '\r\n'),
                             1)
        self.assertEqual((verdict.passed, verdict.failed), (3, 0))

    def test_panic_mid_suite_blames_the_running_case(self):
        verdict = self.judge(PANIC_MID_SUITE, 5)
        self.assertEqual((verdict.passed, verdict.failed), (1, 1))
        self.assertEqual(titles(verdict), ['trap.#2'])
        reason = verdict.failures[0].reasons[0]
        self.assertIn('kernel panic', reason)
        self.assertIn('plan 1..3 but only 1 result', reason)

    def test_no_ktap_at_all(self):
        verdict = self.judge('SeaBIOS\nBooting from DVD/CD...\n', 0)
        self.assertEqual((verdict.passed, verdict.failed), (0, 1))
        reasons = verdict.failures[0].reasons
        self.assertIn('triple fault', reasons[0])
        self.assertIn('no KTAP output', reasons[1])

    def test_hang(self):
        verdict = self.judge(ALL_PASS.split('[    0.500006]')[0], None)
        self.assertEqual(verdict.failed, 1)
        self.assertEqual(verdict.summary, 'hang: no exit after 60 s (+1 more)')
        self.assertEqual(verdict.failures[0].reasons,
                         ['hang: no exit after 60 s',
                          'plan 1..2 but only 1 result'])

    def test_exit_codes(self):
        expect = {1: 0, 3: 1, 5: 1, 0: 1, None: 1, 2: 1, 7: 1, -9: 1}
        for rc, failed in expect.items():
            with self.subTest(rc=rc):
                self.assertEqual(self.judge(ALL_PASS, rc).failed, failed)

    def test_exit_words(self):
        self.assertIn('triple fault', run.describe_qemu_exit(0, 1)[1])
        self.assertEqual(run.describe_qemu_exit(1, 1)[0], 'passed')
        self.assertEqual(run.describe_qemu_exit(3, 1)[0], 'failed')
        self.assertIn('panic', run.describe_qemu_exit(5, 1)[1])
        self.assertIn('QEMU itself', run.describe_qemu_exit(2, 1)[1])
        self.assertIn('SIGKILL', run.describe_qemu_exit(-9, 1)[1])

    def test_exit_says_failed_but_all_passed(self):
        verdict = self.judge(ALL_PASS, 3)
        self.assertEqual(titles(verdict), ['boot'])
        self.assertIn('no KTAP case failed', verdict.summary)

    def test_topology_expect_lines(self):
        topo = run.Topology(name='t', expect=[
            'numa: node 0 cpus 0-1 mem none', 'numa: 3 nodes'])
        verdict = self.judge(SAMPLE_PASSING, 1, topo)
        self.assertEqual(titles(verdict), ['boot'])
        self.assertEqual(verdict.failures[0].reasons,
                         ['missing expected line: "numa: 3 nodes"'])


HALTED = '[    0.600000] tests done: 3 passed, 0 failed, 0 skipped; the machine is halted\n'


class HaltVerdictTest(unittest.TestCase):
    """+nodebugexit boots: the halted line stands for the exit status."""

    def judge(self, text, expect='pass+nodebugexit'):
        return run.judge_boot(boot(expect), SINGLE, None, text)

    def test_flag_parses_and_drops_the_device(self):
        self.assertFalse(boot('pass+nodebugexit').debugexit)
        self.assertTrue(boot('pass').debugexit)
        with_device = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '',
                                       'stdio', 'none')
        without = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '',
                                   'stdio', 'none', debugexit=False)
        self.assertIn(run.DEBUG_EXIT, with_device)
        self.assertNotIn(run.DEBUG_EXIT, without)

    def test_halted_after_a_clean_report_passes(self):
        verdict = self.judge(ALL_PASS + HALTED)
        self.assertEqual((verdict.passed, verdict.failed), (3, 0))

    def test_no_halted_line_is_a_hang(self):
        verdict = self.judge(ALL_PASS)
        self.assertEqual(verdict.failed, 1)
        self.assertIn('no "the machine is halted" line', verdict.summary)

    def test_counts_must_match_the_report(self):
        verdict = self.judge(ALL_PASS + HALTED.replace('3 passed', '4 passed'))
        self.assertEqual(verdict.failed, 1)
        self.assertIn('but KTAP counts 3 passed', verdict.summary)

    def test_nothing_may_follow_the_halted_line(self):
        verdict = self.judge(ALL_PASS + HALTED + '[    0.7] story: replaying both bugs\n')
        self.assertEqual(verdict.failed, 1)
        self.assertIn('lines after the halted line', verdict.summary)

    def test_an_expected_failure_halts_with_it(self):
        text = SAMPLE + '[    0.6] tests done: 2 passed, 1 failed, 1 skipped; the machine is halted\n'
        verdict = self.judge(text, 'fail:format.width_padding+nodebugexit')
        self.assertEqual(verdict.failed, 0)


class SingleVerdictTest(unittest.TestCase):

    def test_expected_panic(self):
        verdict = run.judge_boot(
            boot(r'panic:^\s*\[<[0-9a-f]+>\]\sktest_panic_'), SINGLE, 5,
            PANIC_MID_SUITE)
        self.assertEqual((verdict.passed, verdict.failed), (1, 0))

    def test_expected_panic_that_did_not_happen(self):
        verdict = run.judge_boot(boot('panic:ktest_panic_'), SINGLE, 1,
                                 ALL_PASS)
        self.assertEqual((verdict.passed, verdict.failed), (0, 1))
        self.assertEqual(len(verdict.failures[0].reasons), 2)
        self.assertIn('expected 5', verdict.summary)

    def test_expected_failure(self):
        verdict = run.judge_boot(boot('fail:format.width_padding'), SINGLE,
                                 3, SAMPLE)
        self.assertEqual((verdict.passed, verdict.failed, verdict.skipped),
                         (1, 0, 0))

    def test_expected_failure_with_another_failure(self):
        text = SAMPLE.replace('ok 1 page_fault_read', 'not ok 1 '
                              'page_fault_read').replace('ok 2 trap',
                                                         'not ok 2 trap')
        verdict = run.judge_boot(boot('fail:format.width_padding'), SINGLE,
                                 3, text)
        self.assertEqual(verdict.failed, 1)
        self.assertIn('other cases failed too: trap.page_fault_read',
                      verdict.failures[0].reasons)

    def test_expected_failure_that_passed(self):
        verdict = run.judge_boot(boot('fail:format.plain_string'), SINGLE,
                                 3, SAMPLE)
        self.assertEqual(verdict.failed, 1)
        self.assertIn('should be "not ok" but is ok', verdict.summary + ' '
                      + ' '.join(verdict.failures[0].reasons))

    def test_expected_failure_wrong_exit(self):
        verdict = run.judge_boot(boot('fail:format.width_padding'), SINGLE,
                                 5, SAMPLE)
        self.assertIn('expected 3', verdict.summary)


class HostVerdictTest(unittest.TestCase):

    def test_host_pass(self):
        verdict = run.judge_host('unit', 0, 'KTAP version 1\n1..0\n', '')
        self.assertEqual(verdict.failed, 0)

    def test_sanitizer_error_after_all_cases(self):
        stdout = run.strip_prefix(run.clean_log(ALL_PASS), '[    0.500000] ')
        verdict = run.judge_host('unit', 1, '\n'.join(stdout),
                                 '==1==ERROR: AddressSanitizer\n')
        self.assertEqual((verdict.passed, verdict.failed), (3, 1))
        self.assertEqual(titles(verdict), ['binary'])
        self.assertIn(('stderr', ['==1==ERROR: AddressSanitizer']),
                      verdict.failures[0].sections)

    def test_host_hang(self):
        verdict = run.judge_host('unit', None, '', '', timeout=120)
        self.assertEqual(verdict.failures[0].reasons[0],
                         'hang: no exit after 120 s')
        self.assertIn('no KTAP output', verdict.failures[0].reasons[1])


class ConfigTest(unittest.TestCase):

    def test_matrix(self):
        boots = run.parse_matrix(log(r'''
            # name topology firmware timeout expect args
            a   single bios 60  pass   test=all  foo=1
            u   single uefi 1.5 pass+usb
            p   single bios 60  panic:^\s+\[<[0-9a-f]+>\]+usb test=panic
            s   story  bios 90  pass+alone+usb test=rcu_claims
            k   single bios 90  pass+session=shell_keyboard+usb story=off
        '''))
        self.assertEqual([b.name for b in boots], ['a', 'u', 'p', 's', 'k'])
        self.assertEqual((boots[4].session, boots[4].usb, boots[0].session),
                         ('shell_keyboard', True, ''))
        self.assertEqual((boots[3].alone, boots[3].usb, boots[0].alone),
                         (True, True, False))
        self.assertEqual(boots[0].args, 'test=all  foo=1')
        self.assertEqual((boots[1].usb, boots[1].args, boots[1].timeout),
                         (True, '', 1.5))
        self.assertEqual(boots[2].kind, 'panic')
        self.assertEqual(boots[2].target, r'^\s+\[<[0-9a-f]+>\]')
        self.assertTrue(boots[2].usb)

    def test_matrix_errors(self):
        bad = ['a single bios 60',
               'a single efi 60 pass',
               'a single bios -1 pass',
               'a single bios 60 pas',
               'a single bios 60 pass+ubs',
               'a single bios 60 pass+session=',
               'a single bios 60 pass+session=a+session=b',
               'a single bios 60 fail:nodot',
               'a single bios 60 panic:(',
               'a single bios 60 pass\na single bios 60 pass']
        for text in bad:
            with self.subTest(text=text):
                with self.assertRaises(run.SetupError):
                    run.parse_matrix(text)

    def test_the_real_matrix_and_topologies_parse(self):
        boots = run.parse_matrix(run.read_text(run.MATRIX), run.MATRIX)
        self.assertTrue(boots)
        for name in {b.topology for b in boots}:
            run.load_topology(name)

    def test_topology(self):
        topo = run.parse_topology('t', log('''
            # SPDX-License-Identifier: MIT
            # Two nodes.
            # more words
            machine: q35
            memory: 1G
            smp: 2,sockets=2
            firmware: uefi
            qemu: -object memory-backend-ram,id=m0,size=1G
            qemu: -numa node,nodeid=0,cpus=0-1,memdev=m0
            expect: numa: 1 node
        '''))
        self.assertEqual(topo.description, 'Two nodes.')
        self.assertEqual(topo.console, 'com1')
        self.assertEqual(run.parse_topology('c', 'machine: pc\nmemory: 1G\nsmp: 1\n'
                                            'firmware: bios\nconsole: com2\n').console, 'com2')
        self.assertEqual(topo.smp, '2,sockets=2')
        self.assertEqual(topo.qemu, [
            '-object', 'memory-backend-ram,id=m0,size=1G',
            '-numa', 'node,nodeid=0,cpus=0-1,memdev=m0'])
        self.assertEqual(topo.expect, ['numa: 1 node'])

    def test_topology_errors(self):
        good = 'machine: pc\nmemory: 1G\nsmp: 1\nfirmware: bios\n'
        bad = [good.replace('pc', 'isapc'), good.replace('1G', 'lots'),
               good.replace('bios', 'coreboot'), good + 'colour: red\n',
               good + 'smp: 2\n', 'machine: pc\n', good + 'console: com3\n']
        for text in bad:
            with self.subTest(text=text):
                with self.assertRaises(run.SetupError):
                    run.parse_topology('t', text)


class CommandTest(unittest.TestCase):

    def test_bios_cdrom(self):
        cmd = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False,
                               'test=all,x=1', 'file:l', 'none')
        self.assertEqual(cmd[:9], ['qemu', '-machine', 'pc', '-m', '512M',
                                   '-smp', '1', '-accel', 'tcg'])
        self.assertIn('max', cmd)
        self.assertIn('-no-reboot', cmd)
        self.assertEqual(cmd[cmd.index('-cdrom') + 1], run.ISO)
        self.assertEqual(cmd[-1],
                         'name=opt/testbed/cmdline,string=test=all,,x=1')

    def test_no_args_no_fw_cfg(self):
        cmd = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '',
                               'file:l', 'none')
        self.assertNotIn('-fw_cfg', cmd)

    def test_uefi_usb_kvm(self):
        topo = run.Topology(name='t', machine='q35', memory='1G', smp='2',
                            firmware='uefi', cpu='Skylake-Client',
                            qemu=['-numa', 'node'])
        cmd = run.qemu_command('qemu', topo, 'uefi', 'kvm', True, '',
                               'file:l', 'none', ('CODE.fd', 'vars/t.fd'))
        text = ' '.join(cmd)
        self.assertIn('-cpu host', text)
        self.assertIn('if=pflash,format=raw,unit=0,readonly=on,file=CODE.fd',
                      text)
        self.assertIn('unit=1,file=vars/t.fd', text)
        self.assertIn('usb-storage,drive=stick,bootindex=0', text)
        self.assertNotIn('-cdrom', cmd)
        self.assertEqual(cmd[-2:], ['-numa', 'node'])

    def test_topology_cpu_model_under_tcg(self):
        topo = run.Topology(name='t', machine='pc', memory='1G', smp='1',
                            firmware='bios', cpu='Skylake-Client')
        cmd = run.qemu_command('qemu', topo, 'bios', 'tcg', False, '',
                               'file:l', 'none')
        self.assertEqual(cmd[cmd.index('-cpu') + 1], 'Skylake-Client')

    def test_disk_is_a_modern_virtio_blk(self):
        topo = run.parse_topology('d', 'machine: pc\nmemory: 1G\nsmp: 1\n'
                                  'firmware: bios\ndisk: 16M\n')
        self.assertEqual((topo.disk, run.disk_bytes(topo.disk)), ('16M', 16 << 20))
        cmd = run.qemu_command('qemu', topo, 'bios', 'tcg', False, '',
                               'file:l', 'none', disk='build/disks/x.img')
        self.assertIn('if=none,id=vd0,format=raw,file=build/disks/x.img', cmd)
        self.assertIn('virtio-blk-pci,drive=vd0,disable-legacy=on', cmd)
        no_disk = run.qemu_command('qemu', topo, 'bios', 'tcg', False, '',
                                   'file:l', 'none')
        self.assertNotIn('-drive', no_disk)
        with self.assertRaises(run.SetupError):
            run.parse_topology('d', 'machine: pc\nmemory: 1G\nsmp: 1\n'
                               'firmware: bios\ndisk: lots\n')

    def test_backed_boot_preallocates_every_memory_backend(self):
        topo = run.load_topology('story')
        lazy = run.qemu_command('qemu', topo, 'bios', 'tcg', False, '', 'file:l', 'none')
        backed = run.qemu_command('qemu', topo, 'bios', 'tcg', False, '', 'file:l', 'none',
                                  backed=True)
        backends = [w for w in lazy if w.startswith('memory-backend-')]
        self.assertGreaterEqual(len(backends), 2)
        self.assertEqual([w for w in backed if w.startswith('memory-backend-')],
                         [w + ',prealloc=on' for w in backends])
        self.assertNotIn('-mem-prealloc', backed)
        self.assertFalse(any('prealloc' in w for w in lazy))
        self.assertEqual(len(backed), len(lazy))

    def test_backed_boot_without_backends_preallocates_the_ram(self):
        cmd = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '', 'file:l', 'none',
                               backed=True)
        self.assertEqual(cmd.count('-mem-prealloc'), 1)
        self.assertNotIn('-mem-prealloc',
                         run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '', 'file:l',
                                          'none'))


    def test_menu_is_skipped_only_when_asked(self):
        with_menu = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '', 'file:l', 'none')
        no_menu = run.qemu_command('qemu', SINGLE, 'bios', 'tcg', False, '', 'file:l', 'none',
                                   menu=False)
        self.assertNotIn('-smbios', with_menu)
        self.assertEqual(no_menu[no_menu.index('-smbios') + 1], 'type=1,family=testbed-harness')
        with open(os.path.join(run.ROOT, 'iso', 'grub.cfg')) as f:
            grub = f.read()
        self.assertIn('testbed-harness', grub)          # what grub.cfg tests for
        self.assertIn('--get-string 0x1a', grub)        # SMBIOS type 1's family field


class PlotTest(unittest.TestCase):

    def test_trace_blocks(self):
        import plot
        blocks = plot.parse(log('''
            [    1.0] storm-trace: begin mode=rc4 cpus=2 hog=none samples=2
            [    1.1] storm-trace: t_us,nr_files,qlen0,qlen1,qlen2
            [    1.2] storm-trace: 1000,500,0,0,500
            [    1.3] storm: mode=rc4 where=kernel cpus=2 hog=none iterations=1 enfile_at=none
            [    1.4] storm-trace: 2000,900,0,0,899
            [    1.5] storm-trace: end
            [    1.6] storm-trace: begin mode=fqs cpus=2 hog=3 samples=0
        '''))
        self.assertEqual(len(blocks), 1)       # the unfinished block is dropped
        b = blocks[0]
        self.assertEqual((b['mode'], b['cpus'], b['hog']), ('rc4', '2', 'none'))
        self.assertEqual(b['rows'], [[1000, 500, 0, 0, 500], [2000, 900, 0, 0, 899]])
        self.assertEqual(plot.max_files('VFS: file-max limit 123 reached'), 123)


class KunitHabitsTest(unittest.TestCase):
    """--filter, --json and --repeat, on inline data."""

    def test_filter_narrows_each_selection(self):
        f = run.filter_selection
        self.assertEqual(f('all', 'rcu*'), 'rcu*')
        self.assertEqual(f('dma,mm,edu', 'rcu*'), None)
        self.assertEqual(f('rcu_claims', 'rcu*'), 'rcu_claims')
        self.assertEqual(f('dma,rcu', 'rcu.late*'), 'rcu.late*')
        self.assertEqual(f('boot,mm,vm', '*m'), 'mm,vm')
        self.assertEqual(f('all', 'rcu,boot'), 'rcu,boot')             # any of several
        self.assertEqual(f('dma,rcu,user', 'rcu.late*,user,vm'), 'rcu.late*,user')

    def test_filter_keeps_expectations_and_drops_empty_boots(self):
        boots = run.parse_matrix(
            'a single bios 1 pass test=all exit=on\n'
            'b single bios 1 pass test=dma,mm\n'
            'c single bios 1 fail:ktest_selftest.deliberate_failure '
            'test=ktest_selftest\n')
        kept = run.filter_boots(boots, 'm*')
        self.assertEqual([(b.name, b.args) for b in kept],
                         [('a', 'exit=on test=m*'), ('b', 'test=mm')])
        kept = run.filter_boots(boots, 'ktest_selftest.passes')
        self.assertEqual([(b.name, b.args) for b in kept],
                         [('a', 'exit=on test=ktest_selftest.passes'),
                          ('c', 'test=ktest_selftest')])

    def test_json_records_one_per_case_with_durations(self):
        verdict = run.judge_boot(boot('pass'), SINGLE, 3, SAMPLE)
        records = run.case_records(verdict)
        self.assertEqual([(r['suite'], r['case'], r['status']) for r in records],
                         [('format', 'plain_string', 'pass'),
                          ('format', 'width_padding', 'fail'),
                          ('format', 'pointer_format', 'skip'),
                          ('trap', 'page_fault_read', 'pass')])
        self.assertEqual(records[2]['reason'], 'no framebuffer')
        self.assertEqual([r['duration'] for r in records],
                         [0.000002, 0.000002, 0.000001, 0.000002])
        json.dumps(records)     # plain data

    def test_json_record_for_a_boot_that_died(self):
        verdict = run.judge_boot(boot('pass'), SINGLE, None, '')
        records = run.case_records(verdict)
        self.assertEqual([(r['suite'], r['case'], r['status']) for r in records],
                         [(None, 'boot', 'fail')])

    def test_flaky_cases_are_those_that_varied(self):
        one = {'boot': 'b', 'suite': 's', 'case': 'c', 'status': 'pass'}
        two = dict(one, case='d')
        runs = [[one, two], [one, dict(two, status='fail')], [one, two]]
        self.assertEqual(run.flaky_cases(runs), ['b: s.d: fail 1, pass 2'])
        self.assertEqual(run.flaky_cases([[one], [one, two]]),
                         ['b: s.d: pass 1, absent 1'])


class MakefileTest(unittest.TestCase):
    """The toolchain the Makefile picks, and when it runs sparse, read from make -n (nothing is built)."""

    def compile_command(self, *variables):
        done = subprocess.run(['make', '-n', '-B', *variables, 'build/kernel/cpu.o'],
                              cwd=run.ROOT, capture_output=True, text=True)
        return [line for line in done.stdout.splitlines() if '-c kernel/cpu.c' in line][0]

    def test_an_x86_host_uses_its_own_gcc(self):
        self.assertTrue(self.compile_command('HOST_ARCH=x86_64').startswith('gcc '))

    def test_an_arm64_host_cross_compiles(self):
        self.assertTrue(self.compile_command('HOST_ARCH=aarch64')
                        .startswith('x86_64-linux-gnu-gcc '))
        clang = self.compile_command('HOST_ARCH=aarch64', 'CC=clang')
        self.assertTrue(clang.startswith('clang '))
        self.assertIn('--target=x86_64-linux-gnu', clang)

    def make_n(self, *args):
        done = subprocess.run(['make', '-n', *args], cwd=run.ROOT, capture_output=True, text=True)
        return done.stdout.splitlines()

    def test_c1_runs_sparse_with_the_compilers_flags_before_compiling(self):
        lines = self.make_n('-B', 'C=1', 'build/lab/shell.o')
        check = [i for i, line in enumerate(lines) if line.startswith('sparse ')]
        compile_ = [i for i, line in enumerate(lines) if '-c lab/shell.c' in line]
        self.assertEqual(len(check), 1)
        self.assertLess(check[0], compile_[0])
        for flag in ('-std=gnu11', '-ffreestanding', '-Iinclude', '-Ilab', '-DTESTBED_VERSION=',
                     '-D__x86_64__', '-m64', '-Wsparse-error'):
            self.assertIn(flag, lines[check[0]])
        self.assertNotIn('-iquote', lines[check[0]])
        self.assertIn('-Iinclude', [line for line in self.make_n('-B', 'C=1', 'build/kernel/cpu.o')
                                    if line.startswith('sparse ')][0])

    def test_c2_checks_whether_or_not_it_compiles_and_no_c_never(self):
        for args in (['-B'], []):           # remade, or maybe up to date: checked either way
            lines = self.make_n(*args, 'C=2', 'build/kernel/cpu.o')
            self.assertEqual(len([line for line in lines if line.startswith('sparse ')]), 1)
        self.assertFalse([line for line in self.make_n('-B', 'build/kernel/cpu.o')
                          if line.startswith('sparse ')])

    def test_an_arm64_host_installs_the_cross_tools(self):
        done = subprocess.run(['make', '-n', 'HOST_ARCH=aarch64', 'deps'], cwd=run.ROOT,
                              capture_output=True, text=True)
        self.assertIn('x86_64-linux-gnu-gcc:gcc-x86-64-linux-gnu', done.stdout)
        self.assertIn('x86_64-linux-gnu-ld:binutils-x86-64-linux-gnu', done.stdout)


class ReportTest(unittest.TestCase):

    def test_totals(self):
        a = run.Verdict(name='a', passed=3, failed=1)
        b = run.Verdict(name='b', passed=1, skipped=2)
        self.assertEqual(run.totals_line([a]), '3 passed, 1 failed')
        self.assertEqual(run.totals_line([a, b]),
                         '4 passed, 1 failed, 2 skipped')

    def test_run_exit_status(self):
        self.assertEqual([run.exit_status(rc) for rc in (1, 3, 5, 0, 2)],
                         [0, 1, 2, 0, 2])

    def test_only(self):
        boots = run.parse_matrix('a-1 s bios 1 pass\na-2 s bios 1 pass\n'
                                 'b s bios 1 pass\n')
        self.assertEqual([b.name for b in run.select_boots(boots, 'a-*,b')],
                         ['a-1', 'a-2', 'b'])
        self.assertEqual(len(run.select_boots(boots, 'b')), 1)
        with self.assertRaises(run.SetupError):
            run.select_boots(boots, 'c')


class BenchTest(unittest.TestCase):
    """scripts/bench.py: the bench lines it keeps, and what compare flags."""

    def setUp(self):
        import bench
        self.bench = bench

    def test_parses_both_line_shapes_and_nothing_else(self):
        got = self.bench.parse_lines(log('''
            [    0.400000] bench: 3 benchmarks registered; running all
            [    0.500000] bench: rdtsc 10.628 ns (median of 5, 10.238-10.848)
            [    0.600000] bench: virtio_blk_buffer_above_4g 7302.144 KiB_at
            [    0.700000] bench: no benchmark named 'x'
            bench: storm_rate_fqs_vs_no_rcu 0.637 ratio (median of 5, 0.509-0.997)\r
            '''))
        self.assertEqual(sorted(got), ['rdtsc', 'storm_rate_fqs_vs_no_rcu',
                                       'virtio_blk_buffer_above_4g'])
        self.assertEqual(got['rdtsc'], {'value': 10.628, 'unit': 'ns', 'runs': 5,
                                        'lo': 10.238, 'hi': 10.848})
        self.assertEqual(got['virtio_blk_buffer_above_4g'], {'value': 7302.144, 'unit': 'KiB_at'})

    def compare(self, baseline, boots):
        """Run compare against baseline with boot() answering from boots, in order."""
        import tempfile
        answers = list(boots)
        calls = []

        def fake_boot(topo, firmware, accel, args, echo=True):
            calls.append(topo)
            return 0, answers.pop(0)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'baseline.json')
            with open(path, 'w') as f:
                json.dump(baseline, f)
            options = type('Options', (), dict(baseline=path, accel='tcg', update=False,
                                                json=os.path.join(tmp, 'out.json')))
            saved, self.bench.boot = self.bench.boot, fake_boot
            try:
                with open(os.devnull, 'w') as null:
                    old, sys.stdout = sys.stdout, null
                    try:
                        rc = self.bench.cmd_compare(options)
                    finally:
                        sys.stdout = old
            finally:
                self.bench.boot = saved
        return rc, calls

    BASE = {'band': 0.05, 'boots': [
        {'topo': 'story-icount', 'args': '',
         'gated': {'a_vs_b': {'value': 1.0, 'better': 'higher'}}},
        {'topo': 'story', 'args': '', 'printed': {'c_vs_d': 2.0}}]}

    def test_a_ratio_within_the_band_passes_in_one_boot_each(self):
        rc, calls = self.compare(self.BASE, ['bench: a_vs_b 0.960 ratio',
                                             'bench: c_vs_d 9.000 ratio'])
        self.assertEqual((rc, calls), (0, ['story-icount', 'story']))

    def test_worse_beyond_the_band_fails_without_a_second_boot(self):
        rc, calls = self.compare(self.BASE, ['bench: a_vs_b 0.940 ratio',
                                             'bench: c_vs_d 2.000 ratio'])
        self.assertEqual((rc, calls), (1, ['story-icount', 'story']))

    def test_better_beyond_the_band_passes(self):
        rc, _ = self.compare(self.BASE, ['bench: a_vs_b 1.500 ratio',
                                         'bench: c_vs_d 2.000 ratio'])
        self.assertEqual(rc, 0)

    def test_a_printed_ratio_never_fails(self):
        rc, _ = self.compare(self.BASE, ['bench: a_vs_b 1.000 ratio', 'bench: other 1.0 ratio'])
        self.assertEqual(rc, 0)

    def test_a_gated_ratio_no_longer_printed_fails(self):
        rc, _ = self.compare(self.BASE, ['bench: other_vs_b 1.000 ratio',
                                         'bench: c_vs_d 2.000 ratio'])
        self.assertEqual(rc, 1)

    def test_a_gate_on_a_tcg_topology_is_refused(self):
        tcg = {'band': 0.05, 'boots': [{'topo': 'story', 'args': '',
                                        'gated': {'a_vs_b': {'value': 1.0, 'better': 'higher'}}}]}
        rc, calls = self.compare(tcg, [])
        self.assertEqual((rc, calls), (1, []))

    BOOT = ('[    0.050549] boot: 4 cpus online after %d ms (%d ms of it writing to the '
            'consoles)\r\n')

    def test_the_boot_line_is_read(self):
        self.assertEqual(self.bench.parse_boot('x\n' + self.BOOT % (55, 13)),
                         {'cpus': 4, 'ms': 55, 'consoles_ms': 13})
        self.assertIsNone(self.bench.parse_boot('boot: 4 cpus online after 55 ms\n'))

    def test_topology_memory_is_read_from_its_file(self):
        self.assertEqual(self.bench.topology_memory('story'), 6 << 30)
        self.assertEqual(self.bench.topology_memory('single'), 512 << 20)
        self.assertIsNone(self.bench.topology_memory('no-such-topology'))

    def boot_times(self, answers, available=64 << 30, backed_boots=3):
        """boot_times() with boot() answering from answers and the host's memory faked."""
        calls = []

        def fake_boot(topo, firmware, accel, args, echo=True, backed=False, bench='all'):
            calls.append((args, backed, bench))
            return answers.pop(0)
        options = type('Options', (), dict(topo='story', firmware='', accel='tcg',
                                            args='hz=100 bench=rdtsc bench.runs=3',
                                            backed_boots=backed_boots))
        saved = self.bench.boot, self.bench.host_memory_available
        self.bench.boot, self.bench.host_memory_available = fake_boot, lambda: available
        try:
            times, said = self.bench.boot_times(options, self.BOOT % (66, 21))
        finally:
            self.bench.boot, self.bench.host_memory_available = saved
        return times, said, calls

    def test_backed_boots_give_their_median_beside_the_lazy_one(self):
        times, said, calls = self.boot_times([(0, self.BOOT % (60, 25)), (0, self.BOOT % (40, 12)),
                                              (0, self.BOOT % (45, 19))])
        self.assertEqual(calls, [('hz=100', True, 'none')] * 3)
        self.assertEqual(times['lazily_backed'], {'cpus': 4, 'ms': 66, 'consoles_ms': 21})
        self.assertEqual(times['backed'], {'cpus': 4, 'ms': 45, 'lo': 40, 'hi': 60,
                                           'consoles_ms': 19, 'boots': 3})
        self.assertIn('after 45 ms with guest memory backed beforehand (median of 3 boots, '
                      '40-60; 19 ms', said)
        self.assertIn('66 ms in the benchmarks\' boot, lazily backed', said)

    def test_no_backed_boot_where_the_host_lacks_the_memory(self):
        times, said, calls = self.boot_times([], available=6 << 30)
        self.assertEqual(calls, [])
        self.assertNotIn('backed', times)
        self.assertIn('not measured (the guest\'s 6144 MiB would not fit', said)

    def test_a_failed_backed_boot_is_said(self):
        times, said, _ = self.boot_times([(0, self.BOOT % (40, 12)), (1, 'panic')])
        self.assertNotIn('backed', times)
        self.assertIn('a backed boot gave no boot: line (status 1)', said)



class EmulatorCrashTest(unittest.TestCase):
    """A QEMU that dies of a signal is the emulator's failure, named so."""

    def test_a_crashed_qemu_is_not_a_kernel_failure(self):
        boot = run.parse_matrix('b story bios 90 pass test=dma\n', 'm')[0]
        topo = run.Topology(name='story')
        verdict = run.judge_boot(boot, topo, -11, log('''
            [    0.100000] pci: 00:04.0 1af4:1042
            [    0.100100] virtio-blk: 00:04.0: probing
            '''), 'qemu-system-x86_64: something\n')
        self.assertEqual(verdict.failed, 1)
        failure = verdict.failures[0]
        self.assertEqual(failure.title, 'emulator')
        self.assertIn('QEMU died of SIGSEGV, not the kernel', failure.reasons[0])
        self.assertIn('"[    0.100100] virtio-blk: 00:04.0: probing"', failure.reasons[0])
        records = run.case_records(verdict)
        self.assertEqual([(r['case'], r['status']) for r in records], [('emulator', 'fail')])


class HardwareErrorTest(unittest.TestCase):
    """A device model that stops the machine (hw_error, then SIGABRT) is the kernel's failure."""

    def test_an_edu_dma_out_of_bounds_is_the_guests(self):
        boot = run.parse_matrix('b story bios 90 pass test=edu\n', 'm')[0]
        text = log('''
            [    0.100000] KTAP version 1
            [    0.100000] 1..1
            [    0.100001]     KTAP version 1
            [    0.100001]     # Subtest: edu
            [    0.100001]     1..2
            [    0.100002]     # RUN transfers_out_of_the_buffer_are_refused
            ''')
        qemu = ('qemu: hardware error: EDU: DMA range 0x0000000000041000-0x0000000000041200 '
                'out of bounds (0x0000000000040000-0x0000000000040fff)!\nCPU #0: ...\n')
        verdict = run.judge_boot(boot, run.Topology(name='story'), -6, text, qemu)
        titles = [f.title for f in verdict.failures]
        self.assertNotIn('emulator', titles)
        self.assertIn('edu.transfers_out_of_the_buffer_are_refused', titles)
        reasons = ' '.join(r for f in verdict.failures for r in f.reasons)
        self.assertIn('QEMU stopped the machine: EDU: DMA range', reasons)


class EveryCaseTest(unittest.TestCase):
    """--every-case: a case skipped in every boot that ran it fails make test."""

    @staticmethod
    def rec(boot, case, status, reason=''):
        suite, _, name = case.partition('.')
        return {'boot': boot, 'suite': suite, 'case': name, 'status': status, 'reason': reason}

    def test_a_case_that_passed_somewhere_is_covered(self):
        records = [self.rec('a', 'edu.dma', 'skip', 'no edu device'),
                   self.rec('b', 'edu.dma', 'pass')]
        self.assertEqual(run.skipped_everywhere(records), [])

    def test_a_case_skipped_everywhere_is_named_with_its_reasons(self):
        records = [self.rec('a', 'edu.dma', 'skip', 'no edu device'),
                   self.rec('b', 'edu.dma', 'skip', 'no PCI'),
                   self.rec('b', 'boot.x', 'pass'),
                   {'boot': 'b', 'suite': None, 'case': 'boot', 'status': 'pass', 'reason': ''}]
        self.assertEqual(run.skipped_everywhere(records),
                         [('edu.dma', ['no PCI', 'no edu device'])])

    def test_a_failed_case_ran(self):
        records = [self.rec('a', 'ktest_selftest.deliberate', 'fail')]
        self.assertEqual(run.skipped_everywhere(records), [])

    def test_the_hardware_table_allows_by_glob(self):
        text = ('# Testing\n\n## Cases only hardware runs\n\n| case | why |\n| --- | --- |\n'
                '| `apic.x2apic_*` | TCG has no x2APIC |\n\n## Next\n\n| `not.this` | x |\n')
        allowed = run.hardware_only(text)
        self.assertEqual(allowed, ['apic.x2apic_*'])
        records = [self.rec('a', 'apic.x2apic_ids', 'skip', 'no x2APIC')]
        self.assertEqual(run.skipped_everywhere(records, allowed), [])


class ExpectLineTest(unittest.TestCase):

    def test_exact_and_regex_lines(self):
        lines = ['edu: 00:05.0 version 1.0, DMA mask 0xffffffff', 'numa: one node']
        self.assertEqual(run.missing_lines(lines, ['numa: one node  ']), [])
        self.assertEqual(run.missing_lines(lines, [r're:edu: \S+ version 1\.0, DMA mask 0xffffffff']), [])
        # Matched whole: a prefix of the line is not enough.
        self.assertEqual(run.missing_lines(lines, [r're:edu: \S+ version 1\.0']),
                         [r're:edu: \S+ version 1\.0'])
        self.assertEqual(run.missing_lines(lines, ['edu: 00:04.0 version 1.0, DMA mask 0xffffffff']),
                         ['edu: 00:04.0 version 1.0, DMA mask 0xffffffff'])


if __name__ == '__main__':
    unittest.main()