"""bench/cpu/httpleg.py: the HTTP leg of bench/cpu/cpu.py.

HttpServer starts `toolgate --home H serve --http 127.0.0.1:0` (a token made
first with `toolgate token add`, the endpoint read from the "listening on"
line serve prints on stderr), opens an initialize-era session with a client
of its own over one keep-alive HTTP/1.1 connection (http.client: a JSON
body, `Accept: application/json, text/event-stream`, the `Mcp-Session-Id`
initialize answered with and `MCP-Protocol-Version` on every later request;
an answer is read as JSON or as SSE `data:` lines), and makes the same
calls as the stdio Server of cpu.py, with the same methods.

tree_cpu(pid) is how both legs read the CPU of serve: utime+stime+cutime+
cstime of serve and of every descendant still alive (children of every
thread, /proc/PID/task/TID/children, walked down), so the worker processes
of `--http`, their pooled sandboxes waiting and a run in progress count as
they spend, and the processes reaped since count through their parents'
cutime/cstime. http_load is the SESSIONS figure over HTTP: that many
sessions on one serve, each on its own connection and thread of this
client, called back to back.
"""
import http.client
import json
import os
import subprocess
import threading
import time

TICK = os.sysconf('SC_CLK_TCK')
VERSION = '2025-06-18'


def _stat(pid):
    with open(f'/proc/{pid}/stat') as f:
        rest = f.read().rsplit(')', 1)[1].split()
    return sum(int(x) for x in rest[11:15])


def _children(pid):
    out = []
    try:
        tids = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f'/proc/{pid}/task/{tid}/children') as f:
                out += [int(x) for x in f.read().split()]
        except OSError:
            pass  # the thread ended
    return out


def tree_cpu(pid):
    """seconds of CPU of pid and its living descendants, each with the
    children it reaped; a process gone between the listing and its read
    is in its parent's cutime (read before or after: a tick of error)"""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            total += _stat(p)
        except OSError:
            continue
        todo += _children(p)
    return total / TICK


class Session:
    """one initialize-era session on one keep-alive connection"""

    def __init__(self, tag, port, token):
        self.tag, self.port, self.token = tag, port, token
        self.conn, self.sid, self.id, self.used = None, None, 0, 0.0
        self.rpc('initialize', {'protocolVersion': VERSION, 'capabilities': {},
                                'clientInfo': {'name': 'bench-cpu-http', 'version': '1'}})
        self.post({'jsonrpc': '2.0', 'method': 'notifications/initialized'}, 202)

    def post(self, msg, want=200, timeout=30):
        # serve closes a connection idle past --request-timeout-ms (10 s):
        # one left idle while another server was set up is made again
        if self.conn is None or time.monotonic() - self.used > 8:
            if self.conn:
                self.conn.close()
            self.conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout)
        self.conn.timeout = timeout
        if self.conn.sock:
            self.conn.sock.settimeout(timeout)
        h = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
             'Authorization': f'Bearer {self.token}'}
        if self.sid:
            h['Mcp-Session-Id'] = self.sid
            h['MCP-Protocol-Version'] = VERSION
        self.conn.request('POST', '/mcp', json.dumps(msg).encode(), h)
        r = self.conn.getresponse()
        body = r.read()
        self.used = time.monotonic()
        if r.status != want:
            raise SystemExit(f'{self.tag}: {msg.get("method")}: HTTP {r.status} {body[:300]!r}')
        if r.getheader('Mcp-Session-Id'):
            self.sid = r.getheader('Mcp-Session-Id')
        return r.getheader('Content-Type') or '', body

    def rpc(self, method, params, timeout=30):
        self.id += 1
        ctype, body = self.post({'jsonrpc': '2.0', 'id': self.id, 'method': method,
                                 'params': params}, timeout=timeout)
        if ctype.startswith('text/event-stream'):
            msgs = [json.loads(line[5:]) for line in body.decode().split('\n')
                    if line.startswith('data:') and line[5:].strip()]
        else:
            msgs = [json.loads(body)]
        for m in msgs:
            if m.get('id') == self.id:
                if 'error' in m:
                    raise SystemExit(f'{self.tag}: {m["error"]}')
                return m['result']
        raise SystemExit(f'{self.tag}: {method}: no answer in {body[:300]!r}')

    def close(self):
        if self.conn:
            self.conn.close()


def start_serve(tag, binary, home, pool, workers=None, perf=None):
    """serve --http on home (config.json sandbox_pool) with a new token:
    (Popen, port, token)"""
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, 'config.json'), 'w') as f:
        json.dump({'sandbox_pool': pool}, f)
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
    out = subprocess.run([binary, '--home', home, 'token', 'add', 'bench'], env=env,
                         capture_output=True, text=True, check=True).stdout
    token = next((w for w in out.split() if w.startswith('tgt_')), None)
    if not token:
        raise SystemExit(f'{tag}: token add printed no token')
    cmd = [binary, '--home', home, 'serve', '--http', '127.0.0.1:0']
    if workers:
        cmd += ['--workers', str(workers)]
    if perf:
        cmd = ['perf', 'record', '-q', '-F', '4999', '-g', '-o', perf, '--'] + cmd
    log = os.path.join(home, 'serve.log')
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=open(log, 'w'), env=env)
    for _ in range(300):
        with open(log) as f:
            text = f.read()
        if 'listening on http://127.0.0.1:' in text:
            port = int(text.split('listening on http://127.0.0.1:', 1)[1].split('/', 1)[0])
            return p, port, token
        if p.poll() is not None:
            raise SystemExit(f'{tag}: serve --http exited: {text[-300:]}')
        time.sleep(0.05)
    p.kill()
    raise SystemExit(f'{tag}: serve --http did not listen within 15 s')


class HttpServer:
    """the stdio Server's methods (call, cpu, close) over Streamable HTTP"""

    def __init__(self, tag, binary, home, pool, manifest, args, check, perf=None):
        self.tag, self.home, self.args, self.check = tag, home, args, check
        self.perf = perf
        self.p, self.port, self.token = start_serve(tag, binary, home, pool, perf=perf)
        self.s = Session(tag, self.port, self.token)
        r = self.s.rpc('tools/call', {'name': 'create_tool', 'arguments': manifest}, timeout=300)
        if r.get('isError'):
            raise SystemExit(f'{tag}: create_tool failed: {r}')
        for _ in range(20):
            self.call()

    def call(self):
        self.check(self.tag, self.s.rpc('tools/call', {'name': 'word_count', 'arguments': self.args}))

    def cpu(self):
        return tree_cpu(self.p.pid)

    def front(self):
        """utime+stime of serve itself (libmicrohttpd's threads, the
        hand-off to a worker), seconds; perf's under PERF"""
        with open(f'/proc/{self.p.pid}/stat') as f:
            rest = f.read().rsplit(')', 1)[1].split()
        return (int(rest[11]) + int(rest[12])) / TICK

    def close(self):
        self.s.close()
        if self.perf:  # serve under perf record: serve ends, perf writes its file
            for c in _children(self.p.pid):
                os.kill(c, 15)
        else:
            self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def http_load(srv, sessions, secs, self_cpu, machine_busy, q):
    """sessions on srv (an HttpServer), each on its own connection and
    thread, called back to back for secs: the figures of cpu.py's load()"""
    ss = [srv.s] + [Session(f'{srv.tag}{i}', srv.port, srv.token) for i in range(1, sessions)]
    lat, errors = [], []
    lock = threading.Lock()
    go = threading.Event()
    stop = [0.0]

    def loop(s):
        go.wait()
        mine = []
        try:
            while time.monotonic() < stop[0]:
                t = time.monotonic()
                srv.check(s.tag, s.rpc('tools/call', {'name': 'word_count', 'arguments': srv.args}))
                mine.append((time.monotonic() - t) * 1000)
        except BaseException as e:  # SystemExit from a bad answer too
            errors.append(f'{s.tag}: {e}')
        with lock:
            lat.extend(mine)

    # one call each, one after the other, before the clock starts: every
    # connection has shown its token (32 fresh connections from one
    # address at once are past http_unauth_connections_per_ip, and a new
    # one evicts one still waiting for its headers: docs/MCP.md) and none
    # has idled long enough to be made again
    for s in ss:
        srv.check(s.tag, s.rpc('tools/call', {'name': 'word_count', 'arguments': srv.args}))
    threads = [threading.Thread(target=loop, args=(s,)) for s in ss]
    for t in threads:
        t.start()
    cpu0, c0, m0 = srv.cpu(), self_cpu(), machine_busy()
    t0 = time.monotonic()
    stop[0] = t0 + secs
    go.set()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    c1, m1, cpu1 = self_cpu(), machine_busy(), srv.cpu()
    for s in ss[1:]:
        s.close()
    if errors:
        raise SystemExit('; '.join(errors[:3]))
    done = len(lat)
    return {'calls/s': done / wall, 'p50 ms': q(lat, .5), 'p99 ms': q(lat, .99),
            'serve ms/call': (cpu1 - cpu0) * 1000 / done,
            'client ms/call': (c1 - c0) * 1000 / done,
            'machine-client ms/call': ((m1 - m0) - (c1 - c0)) * 1000 / done}
