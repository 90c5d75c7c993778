#!/usr/bin/env python3
"""bench/cpu/cpu.py TOOLGATE [N]: the CPU behind one sandboxed call.

On a temporary home (config.json sandbox_pool 2, or SANDBOX_POOL=N) it
starts `toolgate serve` (stdio; TRANSPORT=http: `serve --http` with a
client of bench/cpu/httpleg.py over one keep-alive connection;
TRANSPORT=both: one server of each, their blocks interleaved), registers
examples/word_count through create_tool with a JSON-RPC client of its own
(newline-delimited, no SDK: the client costs little and its CPU is
reported apart), then makes N sequential
tools/call in blocks of BLOCK (100) calls, and after each block spawns the
very binary the registry built (found in <home>/cache) bare BLOCK times
with the same stdin: both sides see the same load. BASE=OTHER_TOOLGATE adds
a server of that binary (an earlier build), interleaved: before and after
in one run.

Per block it reads:
  - serve: utime+stime+cutime+cstime of the serve process and of all its
    descendants alive (httpleg.tree_cpu: the HTTP worker processes, the
    waiting pool sandboxes) from /proc/<pid>/stat: their threads and the
    children they reaped (the sandboxes run), per call;
  - kthreads: the CPU of kernel threads (ppid 2: the deferred namespace
    cleanup, RCU, workqueues) over the block, per call; other users' I/O
    lands there too;
  - machine: busy time from /proc/stat minus this client's own CPU, per
    call: everything else the host ran in that time counts as well, so on
    a shared machine it is an upper bound;
  - client: this script's own CPU, per call.
PERF=FILE: the first server (stdio unless TRANSPORT=http) runs under
`perf record -g` (its threads and children, whose stage shows in the
command name: toolgate is serve, the HTTP workers and the supervisor,
MHD-connection libmicrohttpd's threads, memfd:tg-waiter a pooled child up
to exec, tool the tool); its serve column then counts perf itself, not
serve: a profile, not a figure.
SESSIONS=32 [SECONDS=15 ROUNDS=2]: the load figure instead: SESSIONS stdio
servers on one home (the tool created by the first), each called back to
back by this one client (select over their pipes) for SECONDS, new and BASE
alternated ROUNDS times; over HTTP, SESSIONS sessions of one `serve
--http`, each on its own connection and client thread: calls/s, latency
p50/p99, serve CPU per call, this client's CPU per call (it runs on the
same cores), machine minus client.
Bare spawns are measured per spawn with wait4's rusage (exact), and per
block like the rest. Medians and p99 over the blocks (per spawn for bare),
the load average before and after. No assertion: a benchmark, not a test.
"""
import json
import os
import resource
import select
import shutil
import subprocess
import sys
import tempfile
import time

from httpleg import HttpServer, http_load, tree_cpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = {'text': 'the quick brown fox jumps over the lazy dog'}
TICK = os.sysconf('SC_CLK_TCK')


def q(xs, p):
    xs = sorted(xs)
    if not xs:
        return float('nan')
    return xs[min(len(xs) - 1, max(0, int(-(-p * len(xs) // 1)) - 1))]


def kthreads_cpu():
    total = 0
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/stat') as f:
                rest = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if rest[1] == '2' or d == '2':
            total += int(rest[11]) + int(rest[12])
    return total / TICK


def machine_busy():
    with open('/proc/stat') as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / TICK


def self_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def manifest():
    """examples/word_count as create_tool's arguments"""
    ex = os.path.join(ROOT, 'examples', 'word_count')
    with open(os.path.join(ex, 'tool.json')) as f:
        m = json.load(f)
    with open(os.path.join(ex, m['source'])) as f:
        m['source'] = f.read()
    # 32 sessions on 2 busy cores: a call may wait for one of the
    # host's run slots longer than the example's 2 s
    m['limits']['timeout_ms'] = 10000
    return m


class Server:
    def __init__(self, tag, binary, home, pool, create=True, perf=None):
        self.tag, self.home = tag, home
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, 'config.json'), 'w') as f:
            json.dump({'sandbox_pool': pool}, f)
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
        extra = os.environ.get(tag.upper() + '_ENV') # BASE_ENV, NEW_ENV: e.g. TG_SANDBOX_TEMPLATE=0
        if extra:
            env.update(kv.split('=', 1) for kv in extra.split(','))
        if os.environ.get('TG_CALL_PROFILE'): # per-stage stamps (common/prof.c)
            env['TG_CALL_PROFILE'] = os.environ['TG_CALL_PROFILE'] + '.' + tag
        cmd = [binary, '--home', home, 'serve']
        if perf:  # serve and its children sampled
            cmd = ['perf', 'record', '-q', '-F', '4999', '-g', '-o', perf, '--'] + cmd
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.buf = b''
        self.id = 0
        self.rpc('initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                                'clientInfo': {'name': 'bench-cpu', 'version': '1'}})
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
        if create:
            self.create()
        for _ in range(20):
            self.call()

    def create(self):
        r = self.rpc('tools/call', {'name': 'create_tool', 'arguments': manifest()}, timeout=300)
        if r.get('isError'):
            raise SystemExit(f'{self.tag}: create_tool failed: {r}')

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b'\n')
        self.p.stdin.flush()

    def start(self, method, params):
        self.id += 1
        self.send({'jsonrpc': '2.0', 'id': self.id, 'method': method, 'params': params})

    def answer(self):
        """the answer to the last request if it is complete in the buffer"""
        while b'\n' in self.buf:
            line, self.buf = self.buf.split(b'\n', 1)
            m = json.loads(line)
            if m.get('id') == self.id:
                if 'error' in m:
                    raise SystemExit(f'{self.tag}: {m["error"]}')
                return m['result']
        return None

    def rpc(self, method, params, timeout=30):
        self.start(method, params)
        fd = self.p.stdout.fileno()
        end = time.monotonic() + timeout
        while True:
            r = self.answer()
            if r is not None:
                return r
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise SystemExit(f'{self.tag}: {method}: no answer in {timeout} s')
            chunk = os.read(fd, 65536)
            if not chunk:
                raise SystemExit(f'{self.tag}: serve exited')
            self.buf += chunk

    def call(self):
        check(self.tag, self.rpc('tools/call', {'name': 'word_count', 'arguments': ARGS}))

    def cpu(self):
        return tree_cpu(self.p.pid)

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def check(tag, r):
    if r.get('isError') or r.get('structuredContent', {}).get('words') != 9:
        raise SystemExit(f'{tag}: bad result {r}')


def load(tag, binary, home, pool, sessions, secs):
    """SESSIONS stdio servers on one home, each called back to back for
    SECS: calls/s, latency, serve CPU per call, this client's CPU per call"""
    ss = [Server(f'{tag}{i}', binary, home, pool, create=(i == 0)) for i in range(sessions)]
    try:
        by_fd = {s.p.stdout.fileno(): s for s in ss}
        cpu0 = sum(s.cpu() for s in ss)
        c0, m0 = self_cpu(), machine_busy()
        t0 = time.monotonic()
        sent, lat, done = {}, [], 0
        for s in ss:
            s.start('tools/call', {'name': 'word_count', 'arguments': ARGS})
            sent[s.tag] = time.monotonic()
        while time.monotonic() - t0 < secs:
            for fd in select.select(list(by_fd), [], [], 1)[0]:
                s = by_fd[fd]
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise SystemExit(f'{s.tag}: serve exited')
                s.buf += chunk
                r = s.answer()
                if r is None:
                    continue
                check(s.tag, r)
                now = time.monotonic()
                lat.append((now - sent[s.tag]) * 1000)
                done += 1
                s.start('tools/call', {'name': 'word_count', 'arguments': ARGS})
                sent[s.tag] = now
        wall = time.monotonic() - t0
        c1, m1 = self_cpu(), machine_busy()
        cpu1 = sum(s.cpu() for s in ss)
        for s in ss:  # the calls in flight
            while s.answer() is None:
                select.select([s.p.stdout.fileno()], [], [], 30)
                s.buf += os.read(s.p.stdout.fileno(), 65536)
        return {'calls/s': done / wall, 'p50 ms': q(lat, .5), 'p99 ms': q(lat, .99),
                'serve ms/call': (cpu1 - cpu0) * 1000 / done,
                'client ms/call': (c1 - c0) * 1000 / done,
                'machine-client ms/call': ((m1 - m0) - (c1 - c0)) * 1000 / done}
    finally:
        for s in ss:
            s.close()


def newest_executable(root):
    best = None
    for d, _, files in os.walk(root):
        for n in files:
            p = os.path.join(d, n)
            st = os.stat(p)
            if st.st_mode & 0o111 and (best is None or st.st_mtime > best[0]):
                best = (st.st_mtime, p)
    if not best:
        raise SystemExit(f'no built tool under {root}')
    return best[1]


def bare_once(tool, data):
    r, w = os.pipe()
    r2, w2 = os.pipe()
    pid = os.posix_spawn(tool, [tool], {}, file_actions=[
        (os.POSIX_SPAWN_DUP2, r, 0), (os.POSIX_SPAWN_DUP2, w2, 1),
        (os.POSIX_SPAWN_CLOSE, w), (os.POSIX_SPAWN_CLOSE, r2)])
    os.close(r)
    os.close(w2)
    os.write(w, data)
    os.close(w)
    out = b''
    while True:
        c = os.read(r2, 4096)
        if not c:
            break
        out += c
    os.close(r2)
    _, status, ru = os.wait4(pid, 0)
    if status != 0 or json.loads(out).get('words') != 9:
        raise SystemExit(f'bare run failed: {status} {out!r}')
    return ru.ru_utime + ru.ru_stime


def block(measure, run):
    s0, k0, m0, c0 = measure(), kthreads_cpu(), machine_busy(), self_cpu()
    run()
    c1 = self_cpu()
    s1, k1, m1 = measure(), kthreads_cpu(), machine_busy()
    return s1 - s0, k1 - k0, (m1 - m0) - (c1 - c0), c1 - c0


def plan(binary):
    """the servers, in the order their blocks run: (tag, binary, http?)
    for each TRANSPORT (stdio, http or both) and build (BASE)"""
    t = os.environ.get('TRANSPORT', 'stdio')
    ts = {'stdio': ['stdio'], 'http': ['http'], 'both': ['stdio', 'http']}.get(t)
    if ts is None:
        raise SystemExit(f'TRANSPORT={t}: stdio, http or both')
    runs = [('new', binary)] + ([('base', os.environ['BASE'])] if os.environ.get('BASE') else [])
    return [(tag if tr == 'stdio' else f'http-{tag}', b, tr == 'http') for tr in ts for tag, b in runs]


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    bs = int(os.environ.get('BLOCK', '100'))
    pool = int(os.environ.get('SANDBOX_POOL', '2'))
    legs = plan(binary)
    tmp = tempfile.mkdtemp(prefix='tg-bench-cpu-')
    servers = []
    if os.environ.get('SESSIONS'):
        sessions, secs = int(os.environ['SESSIONS']), float(os.environ.get('SECONDS', '15'))
        try:
            for rnd in range(int(os.environ.get('ROUNDS', '2'))):
                for tag, b, http in legs:
                    la = os.getloadavg()[0]
                    home = os.path.join(tmp, f'{tag}{rnd}')
                    if http:
                        srv = HttpServer(tag, b, home, pool, manifest(), ARGS, check)
                        try:
                            r = http_load(srv, sessions, secs, self_cpu, machine_busy, q)
                        finally:
                            srv.close()
                    else:
                        r = load(tag, b, home, pool, sessions, secs)
                    print(f'{tag:9s} {sessions} sessions x {secs:.0f} s (load {la:.1f}): ' +
                          ', '.join(f'{k} {v:.2f}' for k, v in r.items()), flush=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    try:
        for i, (tag, b, http) in enumerate(legs):
            home, perf = os.path.join(tmp, tag), (os.environ.get('PERF') if i == 0 else None)
            servers.append(HttpServer(tag, b, home, pool, manifest(), ARGS, check, perf=perf)
                           if http else Server(tag, b, home, pool, perf=perf))
        tool = newest_executable(os.path.join(servers[0].home, 'cache'))
        data = json.dumps(ARGS).encode()
        for _ in range(20):
            bare_once(tool, data)
        rows = {s.tag: [] for s in servers}
        rows['bare'] = []
        per_spawn = []
        front = {s.tag: [] for s in servers if hasattr(s, 'front')}
        load0 = os.getloadavg()
        for done in range(0, n, bs):
            k = min(bs, n - done)
            for s in servers:
                def calls(s=s):
                    for _ in range(k):
                        s.call()
                f0 = s.front() if s.tag in front else 0
                rows[s.tag].append([x / k for x in block(s.cpu, calls)])
                if s.tag in front:
                    front[s.tag].append((s.front() - f0) * 1000 / k)
            spawned = []

            def spawns():
                for _ in range(k):
                    spawned.append(bare_once(tool, data))
            ch = lambda: sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])
            rows['bare'].append([x / k for x in block(ch, spawns)])
            per_spawn += spawned
        load1 = os.getloadavg()
        print(f'{n} calls per server in blocks of {bs}, pool {pool}; load average '
              f'{load0[0]:.2f} -> {load1[0]:.2f} (two cores: {os.cpu_count()} CPUs)')
        print('per call, ms: median (p99) over blocks   serve+children  kthreads  machine-client  client')
        bare_med = q([r[0] for r in rows['bare']], .5)
        for tag, rs in rows.items():
            cols = []
            for i in range(4):
                xs = [r[i] * 1000 for r in rs]
                cols.append(f'{q(xs, .5):6.3f} ({q(xs, .99):6.3f})')
            ratio = q([r[0] for r in rs], .5) / bare_med if bare_med > 0 else float('nan')
            print(f'  {tag:9s} {cols[0]}  {cols[1]}  {cols[2]}  {cols[3]}   x bare {ratio:.2f}')
        ms = [x * 1000 for x in per_spawn]
        print(f'  bare per spawn (wait4 rusage): median {q(ms, .5):.3f} ms  p99 {q(ms, .99):.3f} ms')
        for tag, xs in front.items():
            print(f'  {tag}: of which the front process (serve itself, not its workers): '
                  f'median {q(xs, .5):.3f} ms  p99 {q(xs, .99):.3f} ms')
    finally:
        for s in servers:
            s.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
