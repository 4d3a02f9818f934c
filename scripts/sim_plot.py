#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sim_plot.py - make sim-plot: what the simulator says as machines grow, as PNGs.

Runs build/sim/rcu_sim (scale and every), reads its "storm:" lines and draws
with gnuplot, next to make plot's pictures:

  build/plots/sim_scale.png   one user storm on machines of 2 to 4096 CPUs, per
                              mode: the peak callback queue, the mean time from
                              call_rcu() to the callback, and the forcing rounds
  build/plots/sim_every.png   a kernel-thread storm on every CPU, 12,511 files a
                              CPU: the iterations done (all CPUs) before ENFILE,
                              or all of them, for count and fqs

The data files stay next to the plots (build/plots/sim_*.dat).
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLOTS = os.path.join(ROOT, 'build', 'plots')
SIM = os.path.join(ROOT, 'build', 'sim', 'rcu_sim')


def storms(what):
    """The storm: lines of one rcu_sim run, as dicts."""
    out = subprocess.run([SIM, what], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        if line.startswith('storm: '):
            rows.append(dict(kv.split('=', 1) for kv in line[7:].split()))
    return rows


def write(name, lines):
    with open(os.path.join(PLOTS, name), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    os.makedirs(PLOTS, exist_ok=True)
    modes = []
    for r in storms('scale'):
        if r['mode'] not in modes:
            modes.append(r['mode'])
        mean = r['cb_latency_us'].split('/')[0]
        with open(os.path.join(PLOTS, f"sim_scale_{r['mode']}.dat"), 'a') as f:
            f.write(f"{r['ncpus']} {r['peak_qlen']} {int(mean) / 1000:.3f} {r['fqs_rounds']}\n")
    every = {}
    for r in storms('every'):
        n = int(r['ncpus'])
        if r['hog'] == 'none' and n >= 2 and int(r['max_files']) == n * (50044 // 4):
            every.setdefault(r['mode'], {})[n] = r['iterations']
    for mode, points in every.items():
        write(f'sim_every_{mode}.dat', [f'{n} {points[n]}' for n in sorted(points)])
    script = ['set terminal pngcairo size 1800,480 font ",10" noenhanced', 'set grid',
              'set logscale x 2', 'set xlabel "CPUs in the machine"', 'set key top left',
              f"set output '{PLOTS}/sim_scale.png'", 'set multiplot layout 1,3']
    for col, title in ((2, 'peak callbacks queued (one user storm)'),
                       (3, 'mean call_rcu() to callback, ms'),
                       (4, 'forcing rounds')):
        script.append(f'set title "{title}"')
        script.append('plot ' + ', '.join(
            f"'{PLOTS}/sim_scale_{m}.dat' using 1:{col} with linespoints lw 2 title '{m}'"
            for m in modes))
    script += ['unset multiplot', f"set output '{PLOTS}/sim_every.png'",
               'set terminal pngcairo size 900,480 font ",10" noenhanced', 'set logscale y 10',
               'set title "a kernel storm on every CPU, 12,511 files a CPU: iterations done"',
               'plot ' + ', '.join([f"'{PLOTS}/sim_every_{m}.dat' using 1:2 with linespoints "
                                    f"lw 2 title '{m}'" for m in every] +
                                   ['x * 50000 with lines dt 2 lc rgb "gray" '
                                    'title "all 50,000 a CPU: no ENFILE"'])]
    write('sim_plots.gp', script)
    subprocess.run(['gnuplot', os.path.join(PLOTS, 'sim_plots.gp')], check=True)
    print(f'sim-plot: {PLOTS}/sim_scale.png')
    print(f'sim-plot: {PLOTS}/sim_every.png')
    return 0


if __name__ == '__main__':
    for stale in os.listdir(PLOTS) if os.path.isdir(PLOTS) else []:
        if stale.startswith('sim_scale_') and stale.endswith('.dat'):
            os.remove(os.path.join(PLOTS, stale))
    sys.exit(main())
