#!/usr/bin/env python3
"""bench/cpu/stages.py PERF_DATA [CALLS]: where the CPU of a served call
goes, from the profile `PERF=FILE bench/cpu/cpu.py` records (perf record -g
on `toolgate serve` and everything it starts).

Each sample is put in a stage by its command name and the main thread:
  serve       the serve process's main thread (request, registry, reply)
              and, over HTTP, libmicrohttpd's threads (MHD-connection)
  worker      over HTTP, the main thread of a registry worker process
              (another toolgate process with threads of its own; a
              sandbox child has one thread until exec): the registry
              work stdio's serve does on its main thread
  supervisor  their other threads (a run's tracer, the pool's refill)
  child       a sandbox child up to exec (cloned from serve: still named
              toolgate; memfd:tg-waiter: a pooled child waiting, then
              loading the tool)
  tool        the tool itself (named after its binary)
  other       the compiler of create_tool and the rest
and, in the kernel, by the system call (or fault, exit, interrupt) its
call chain went through. Prints each stage's share of the samples, user
against kernel, its top system calls and, given CALLS (the calls the run
made), milliseconds per call at the sampling rate's resolution.
"""
import collections
import re
import subprocess
import sys

SYS = re.compile(r'(?:__x64_sys_|__do_sys_|__se_sys_|ksys_)(\w+)')


def samples(path):
    out = subprocess.run(['perf', 'script', '-i', path, '-F', 'comm,pid,tid,period,ip,sym'],
                         capture_output=True, text=True, check=True).stdout
    for block in out.split('\n\n'):
        lines = [l for l in block.split('\n') if l.strip()]
        if not lines:
            continue
        head = lines[0].split()
        try:
            period = int(head[-1])
            pid, tid = (int(x) for x in head[-2].split('/'))
            comm = ' '.join(head[:-2])
        except (ValueError, IndexError):
            continue
        frames = []
        for l in lines[1:]:
            parts = l.split(None, 1)
            if len(parts) == 2:
                frames.append((int(parts[0], 16), parts[1]))
        yield comm, pid, tid, period, frames


def kind(frames):
    """'user' or the kernel entry the sample went through"""
    if not frames or frames[0][0] < 0xffff000000000000:
        return 'user'
    for _, sym in reversed(frames):  # outermost first
        m = SYS.match(sym)
        if m:
            return m.group(1)
    names = ' '.join(s for _, s in frames)
    if 'do_seccomp' in names:  # __x64_sys_seccomp inlined
        return 'seccomp'
    for key in ('exc_page_fault', 'do_exit', 'do_group_exit', 'ret_from_fork', 'schedule_tail',
                'irq', 'softirq', 'apic_timer'):
        if key in names:
            return key
    return 'kernel:other'


def main():
    path = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    main_tid = None
    per = collections.defaultdict(collections.Counter)
    all_samples = list(samples(path))
    # over HTTP (libmicrohttpd's threads seen), the toolgate processes with
    # more than one thread: serve and its workers (a stdio profile has no
    # workers: its create's helpers stay with the supervisor, as before)
    http = any(c == 'MHD-connection' for c, *_ in all_samples)
    threaded = {pid for comm, pid, tid, _, _ in all_samples
                if http and comm == 'toolgate' and tid != pid}
    for comm, pid, tid, period, frames in all_samples:
        if main_tid is None and comm == 'toolgate':
            main_tid = tid  # perf's first sample of serve: its main thread
        if comm == 'toolgate':
            if tid == main_tid:
                stage = 'serve'
            elif tid == pid and pid in threaded:
                stage = 'worker'
            else:
                stage = 'toolgate-other'
        elif comm == 'MHD-connection':
            stage = 'serve'
        elif comm.startswith('memfd:tg'):
            stage = 'child'
        elif comm == 'tool':
            stage = 'tool'
        else:
            stage = 'other'
        per[stage][kind(frames)] += period
    # a toolgate thread that is not serve's main one: the supervisor's
    # threads and, until exec, the children cloned from them; told apart
    # by what they run (a child's set-up calls vs a tracer's waits)
    child_calls = {'pivot_root', 'mount', 'move_mount', 'open_tree', 'umount', 'chdir', 'chroot',
                   'seccomp', 'prctl', 'execveat', 'execve', 'setgroups', 'setresuid',
                   'setresgid', 'capset', 'mkdir', 'symlink', 'sethostname', 'exit_group'}
    for k, v in per.pop('toolgate-other', {}).items():
        per['child' if k in child_calls or k == 'ret_from_fork' else 'supervisor'][k] += v
    total = sum(sum(c.values()) for c in per.values())
    for stage in ('serve', 'worker', 'supervisor', 'child', 'tool', 'other'):
        c = per.get(stage)
        if not c:
            continue
        n = sum(c.values())
        user = c.get('user', 0)
        line = f'{stage:10s} {100 * n / total:5.1f}%  user {100 * user / n:4.0f}%'
        if calls:
            line += f'  {n / 1e6 / calls:.3f} ms/call'
        print(line)
        top = [(k, v) for k, v in c.most_common() if k != 'user'][:8]
        print('           kernel: ' + ', '.join(f'{k} {100 * v / n:.0f}%' for k, v in top))


if __name__ == '__main__':
    main()
