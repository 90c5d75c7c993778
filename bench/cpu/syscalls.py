#!/usr/bin/env python3
"""bench/cpu/syscalls.py TOOLGATE [N]: the system calls of one pooled stdio
call, counted.

Runs `toolgate serve` under `perf trace` (tracepoints, not ptrace: under
`strace -f` the pool cannot trace its children and every run takes the
unpooled path) on a temporary home set up as cpu.py does (its Server),
makes N calls (default 60) and counts, between the 10th and the last
request read from stdin, the system calls of serve's main thread
("serve"), of the tool and its waiter ("tool") and of everything else
serve started ("other": the supervisor's threads, the pool's making, the
child up to exec), per call, highest first. Nothing is asserted.
"""
import collections
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu  # noqa: E402


def main():
    binary = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    tmp = tempfile.mkdtemp(prefix='tg-syscalls-')
    try:
        out = os.path.join(tmp, 'trace')
        wrap = os.path.join(tmp, 'wrap.sh')
        with open(wrap, 'w') as f:
            f.write(f'#!/bin/sh\nexec perf trace -o {out} -- {binary} "$@"\n')
        os.chmod(wrap, 0o755)
        s = cpu.Server('new', wrap, os.path.join(tmp, 'home'), 2)
        for _ in range(n):
            s.call()
        s.close()
        with open(out, errors='replace') as f:
            lines = f.read().splitlines()
        main_tid = re.search(r'toolgate/(\d+)', lines[0]).group(1)
        req = re.compile(rf'toolgate/{main_tid} read\(buf: 0x[0-9a-f]+, count: 65536\)\s+= [1-9]')
        reads = [i for i, l in enumerate(lines) if req.search(l)]
        first, last = reads[-n + 10], reads[-1]
        calls = n - 11
        count = collections.Counter()
        for line in lines[first:last]:
            m = re.search(r'\): (\S+?)/\d+ (\w+)\(', line)
            if not m:
                continue
            if f'/{main_tid} ' in line:
                who = 'serve'
            elif m.group(1) in ('tool', 'memfd:tg-waite'):
                who = 'tool'
            else:
                who = 'other'
            count[(who, m.group(2))] += 1
        serve = sum(v for k, v in count.items() if k[0] == 'serve')
        print(f'{calls} calls, {sum(count.values()) / calls:.1f} system calls per call, '
              f'serve main thread {serve / calls:.1f}')
        for (who, name), v in count.most_common():
            if v / calls >= 0.5:
                print(f'{v / calls:8.1f} {who}:{name}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
