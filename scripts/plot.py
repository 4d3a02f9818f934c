#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""plot.py - make plot: the storm over time, per RCU policy, as PNG plots.

Boots story-icount (make run's machine) with storm.trace=on (the story runs the storm
under every RCU mode: in user mode alone and against a hog, then as a
kernel thread), reads the "storm-trace:" CSV blocks from the serial log,
and draws with gnuplot:

  build/plots/nr_files.png   open files (nr_files) over time, one line per
                             policy, in three panels (user mode alone,
                             against a hog, kernel thread alone), with
                             max_files marked
  build/plots/qlen.png       the storming CPU's callback queue, the same way

The data files stay next to the plots (build/plots/*.dat).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tests'))
import run  # noqa: E402

PLOTS = 'build/plots'
LOG = 'build/logs/plot.log'
ARGS = 'story=on storm.trace=on shell=off exit=on'
TIMEOUT = 600


def parse(text):
    """The trace blocks: a list of dicts (mode, cpus, hog, columns, rows)."""
    blocks, cur = [], None
    for raw in text.splitlines():
        m = re.search(r'storm-trace: (.*)$', raw)
        if not m:
            continue
        body = m.group(1).strip()
        if body.startswith('begin '):
            fields = dict(kv.split('=', 1) for kv in body[6:].split())
            cur = {'mode': fields['mode'], 'where': fields.get('where', 'kernel'),
                   'cpus': fields['cpus'], 'hog': fields['hog'], 'columns': None, 'rows': []}
        elif body == 'end' and cur:
            blocks.append(cur)
            cur = None
        elif cur is not None and cur['columns'] is None:
            cur['columns'] = body.split(',')
        elif cur is not None:
            cur['rows'].append([int(x) for x in body.split(',')])
    return blocks


def max_files(text):
    m = re.search(r'VFS: file-max limit (\d+)', text)
    return int(m.group(1)) if m else 50044


def write_data(blocks):
    """One .dat per storm: t_ms, nr_files, qlen of the storming CPU."""
    names = []
    for b in blocks:
        cpu = int(re.match(r'\d+', b['cpus']).group(0))
        col = b['columns'].index(f'qlen{cpu}') if f'qlen{cpu}' in b['columns'] else 2
        side = 'kernel' if b['where'] == 'kernel' else 'hog' if b['hog'] != 'none' else 'alone'
        name = f"{b['mode']}-{side}"
        with open(os.path.join(run.ROOT, PLOTS, name + '.dat'), 'w') as f:
            for r in b['rows']:
                f.write(f'{r[0] / 1000:.3f} {r[1]} {r[col]}\n')
        names.append(name)
    return names


# One colour and dash per mode, the same in every panel and both plots: the
# 2005 modes in warm colours, their fixes in cool ones, count and fqs
# (the two a reader compares most) far apart in both.
MODE_STYLE = {
    'rc4': 'lc rgb "#d62728" dt 1',        # red: the bug
    'batch10k': 'lc rgb "#ff7f0e" dt 2',   # orange, dashed
    'count': 'lc rgb "#1f77b4" dt 1',      # blue: 2.6.14's fix
    'fqs16': 'lc rgb "#9467bd" dt 3',      # purple, dotted
    'fqs19': 'lc rgb "#8c564b" dt 4',      # brown, dash-dot
    'fqs': 'lc rgb "#2ca02c" dt 1',        # green: testbed's own
}
PLOTS_DRAWN = (('nr_files', 2, 'open files (nr_files)', 'open files'),
               ('qlen', 3, 'callbacks queued on the storming CPU (qlen)', 'callbacks queued'))


def ranges(names):
    """The largest value of each plot's column over every storm: each
    panel of a plot gets the same y range, so panels compare at a glance."""
    top = {what: 1 for what, *_ in PLOTS_DRAWN}
    for name in names:
        with open(os.path.join(run.ROOT, PLOTS, name + '.dat')) as f:
            for line in f:
                fields = line.split()
                for what, col, *_ in PLOTS_DRAWN:
                    top[what] = max(top[what], int(fields[col - 1]))
    return top


def gnuplot_script(names, limit, top):
    """The gnuplot script for both plots: three panels each (user mode
    alone, against a hog, a kernel thread), the legend outside the data,
    both axes labelled with their units, a fixed style per mode, one y
    range per plot (top: its largest value; nr_files at least max_files)."""
    modes = list(dict.fromkeys(n.rsplit('-', 1)[0] for n in names))    # as the story ran them
    script = ['set terminal pngcairo size 1800,520 font ",10" noenhanced', 'set grid',
              'set xlabel "time since the storm began (ms)"',
              'set key outside bottom center horizontal', 'set bmargin 7']
    for what, col, title, unit in PLOTS_DRAWN:
        ymax = max(top[what], limit if what == 'nr_files' else 0) * 1.05
        script += [f"set output '{PLOTS}/{what}.png'", 'set multiplot layout 1,3',
                   f'set ylabel "{unit} (count)"', f'set yrange [0:{ymax:.0f}]']
        for side in ('alone', 'hog', 'kernel'):
            lines = [f"'{PLOTS}/{m}-{side}.dat' using 1:{col} with lines lw 2 "
                     f"{MODE_STYLE.get(m, '')} title '{m}'".replace('  ', ' ')
                     for m in modes if f'{m}-{side}' in names]
            if not lines:
                continue
            label = {'alone': 'user mode, alone', 'hog': 'user mode, against a hog',
                     'kernel': 'a kernel thread, alone'}[side]
            script.append(f'set title "{title}: {label}"')
            if what == 'nr_files':
                lines.append(f'{limit} with lines dt 2 lw 1 lc rgb "black" '
                             f'title "max_files {limit}"')
            script.append('plot ' + ', '.join(lines))
        script.append('unset multiplot')
    return script


def gnuplot(names, limit):
    path = os.path.join(run.ROOT, PLOTS, 'plots.gp')
    with open(path, 'w') as f:
        f.write('\n'.join(gnuplot_script(names, limit, ranges(names))) + '\n')
    subprocess.run(['gnuplot', path], cwd=run.ROOT, check=True)


def main():
    os.makedirs(os.path.join(run.ROOT, PLOTS), exist_ok=True)
    os.makedirs(os.path.join(run.ROOT, 'build/logs'), exist_ok=True)
    topo = run.load_topology(os.environ.get('TOPO') or 'story-icount')
    cmd = run.boot_command(run.find_qemu(), topo, topo.firmware, os.environ.get('ACCEL') or 'tcg',
                           False, ARGS, f'file:{LOG}', 'none', 'plot', menu=False)
    print('plot: booting', topo.name, 'with', ARGS, flush=True)
    try:
        rc = subprocess.run(cmd, cwd=run.ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, timeout=TIMEOUT).returncode
    except subprocess.TimeoutExpired:
        print(f'plot: no exit after {TIMEOUT} s; see {LOG}', file=sys.stderr)
        return 1
    text = run.read_text(LOG)
    blocks = parse(text)
    if run.exit_status(rc) != 0 or not blocks:
        print(f'plot: the boot failed or traced nothing (QEMU {rc}); see {LOG}', file=sys.stderr)
        return 1
    names = write_data(blocks)
    gnuplot(names, max_files(text))
    for what in ('nr_files', 'qlen'):
        print(f'plot: {PLOTS}/{what}.png')
    return 0


if __name__ == '__main__':
    sys.exit(main())
