#!/usr/bin/env python3
"""bench/verify/measure.py RUNS HOME... -- TOOLGATE...: run `TOOLGATE --home
HOME verify --json` RUNS times for each home and binary, interleaved (round
by round, so a change of the host's load hits every binary alike), and print
the median and p99 of the wall time and of the CPU (user+sys of the child,
getrusage) in ms. A run that does not exit 0 stops the bench."""
import os
import resource
import subprocess
import sys
import time


def pct(values, p):
    v = sorted(values)
    k = max(0, min(len(v) - 1, -(-p * len(v) // 100) - 1))
    return v[k]


def one(tg, home):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([tg, '--home', home, 'verify', '--json'], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f'bench/verify: {tg} verify {home}: exit {r.returncode}: {r.stderr.decode()[:300]}')
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main():
    args = sys.argv[1:]
    sep = args.index('--')
    runs, homes, bins = int(args[0]), args[1:sep], args[sep + 1:]
    res = {(b, h): ([], []) for b in bins for h in homes}
    load0 = os.getloadavg()[0]
    for b in bins:  # warm the page cache
        for h in homes:
            one(b, h)
    for _ in range(runs):
        for h in homes:
            for b in bins:
                w, c = one(b, h)
                res[(b, h)][0].append(w)
                res[(b, h)][1].append(c)
    print(f'load average {load0:.1f} -> {os.getloadavg()[0]:.1f}')
    print(f"{'home':8} {'wall p50':>9} {'wall p99':>9} {'cpu p50':>8} {'cpu p99':>8}  binary")
    for h in homes:
        for b in bins:
            w, c = res[(b, h)]
            print(f'{os.path.basename(h):8} {pct(w, 50):9.1f} {pct(w, 99):9.1f} {pct(c, 50):8.1f} '
                  f'{pct(c, 99):8.1f}  {b}')


main()
