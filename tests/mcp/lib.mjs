// tests/mcp/lib.mjs: helpers of the MCP tests: a temporary home per test, the
// server binary from the environment (TOOLGATE=path of `toolgate`), and a raw
// line client that writes exact bytes to `toolgate serve` and reads its
// newline-delimited answers.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';

export function toolgateBin() {
  const bin = process.env.TOOLGATE;
  if (!bin) throw new Error('set TOOLGATE to the toolgate executable');
  return bin;
}

// Remove a test's folder, retried: a server still writing its last files
// makes the rmdir fail (ENOTEMPTY). Never throws: a hook that throws skips
// the test's hooks after it, and a server left running holds the test file
// open until ctest's timeout (seen in CI: mcp_http).
async function removeDir(dir) {
  for (let i = 0; ; i++) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
      return;
    } catch (e) {
      if (i >= 40) {
        console.error(`tests/mcp: ${dir} left behind: ${e.message}`);
        return;
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}

// A temporary folder with a home in it; the processes pushed on procs are
// killed, then the folder removed, in one after hook (hooks run in the
// order they were registered, so a kill registered later by the test would
// come after the removal).
export function tempHomeWithProcs(t, prefix = 'tg-mcp-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const procs = [];
  t.after(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await removeDir(dir);
  });
  // The fixtures here misbehave on some valid inputs by design (word_count's
  // unbounded sleep_ms, half's output, spin): no property tests, which would
  // find exactly that (docs/REGISTRY.md, "Property tests"). A test that
  // writes its own config.json and creates such a fixture says it too.
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, 'config.json'), '{"property_tests": 0}\n');
  return { dir, home, procs };
}

export function tempHome(t) {
  return tempHomeWithProcs(t).home;
}

// A server on pipes, read line by line. next() resolves with the next parsed
// message (or rejects after a timeout); stdout must carry only JSON lines.
export class RawServer {
  constructor(bin, args) {
    this.proc = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.buf = '';
    this.queue = [];
    this.waiters = [];
    this.stderr = '';
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d) => {
      this.buf += d;
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        let msg;
        try {
          msg = JSON.parse(line);
        } catch (e) {
          msg = { __notJson: line };
        }
        const w = this.waiters.shift();
        if (w) w.resolve(msg);
        else this.queue.push(msg);
      }
    });
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (d) => { this.stderr += d; });
    this.exited = new Promise((resolve) => this.proc.on('close', (code, signal) => resolve({ code, signal })));
  }

  write(data) {
    return new Promise((resolve, reject) =>
      this.proc.stdin.write(data, (err) => (err ? reject(err) : resolve())));
  }

  send(obj) {
    return this.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
  }

  next(timeoutMs = 10000) {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    return new Promise((resolve, reject) => {
      const w = { resolve: (m) => { clearTimeout(w.timer); resolve(m); } };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`no message within ${timeoutMs} ms; stderr: ${this.stderr}`));
      }, timeoutMs);
      this.waiters.push(w);
    });
  }

  async request(obj, timeoutMs) {
    await this.send(obj);
    return this.next(timeoutMs);
  }

  async initialize(version = '2025-11-25') {
    const m = await this.request({
      jsonrpc: '2.0', id: 'init', method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } },
    });
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return m;
  }

  async close() {
    this.proc.stdin.end();
    return this.exited;
  }
}

// Start `toolgate serve --http 127.0.0.1:0` on home with extra flags;
// resolves with { url, port, proc, stderr() } once the server says where it
// listens. The process is killed by the test's after hook (t) or pushed on
// procs for tempHomeWithProcs to kill; neither: the caller kills it.
export function serveHttp(home, { extra = [], t = null, procs = null } = {}) {
  const proc = spawn(toolgateBin(), ['--home', home, 'serve', '--http', '127.0.0.1:0', ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  if (procs) procs.push(proc);
  if (t) t.after(() => proc.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening: ${err}`)), 15000);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/);
      if (m) { clearTimeout(timer); resolve({ url: m[1], port: Number(m[2]), proc, stderr: () => err }); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}: ${err}`)); });
  });
}

// An HTTP request to 127.0.0.1:port whose answer is read as it arrives:
// status, headers, the whole text, the SSE events (parsed data, each with
// its arrival time), ended (the time the answer ended, or false); done
// resolves then; req is the request (destroy() it to hang up).
export function sseRequest(port, path, headers, body) {
  const st = { events: [], text: '', ended: false, status: 0, headers: {} };
  st.done = new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', agent: false, headers }, (res) => {
      st.status = res.statusCode;
      st.headers = res.headers;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        st.text += d;
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const chunk = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = chunk.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('');
          if (data) st.events.push({ at: Date.now(), msg: JSON.parse(data) });
        }
      });
      res.on('end', () => { st.ended = Date.now(); resolve(); });
      res.on('error', () => { st.ended = Date.now(); resolve(); });
    });
    req.on('error', () => { st.ended = Date.now(); resolve(); });
    st.req = req;
    req.end(body);
  });
  return st;
}
