// bench/mcp/load.mjs TOOLGATE [SESSIONS] [SECONDS] [WORKERS]: the load figure
// of `toolgate serve --http`: SESSIONS SDK clients (Streamable HTTP, one
// bearer token) call word_count back to back for SECONDS on one server with
// WORKERS registry handles, then the same with SESSIONS separate stdio
// servers (StdioClientTransport) on the same home. Prints per-call p50/p99
// and calls per second of each (and the client's own CPU per call: it runs on
// the same cores), checks that the audit log holds exactly one
// `mcp_call` entry per call made, and that `toolgate verify` is clean.
// SANDBOX_POOL=N sets config.json sandbox_pool (each HTTP worker's pool and
// each stdio server's); TG_LOAD_HTTP_ONLY=1 skips the stdio servers.
// Run: node bench/mcp/load.mjs build/cli/toolgate 32 30 4 (all on 127.0.0.1)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [bin, sArg, dArg, wArg] = process.argv.slice(2);
const S = Number(sArg ?? 32), D = Number(dArg ?? 30), W = Number(wArg ?? 4);
const sdk = new URL('../../tests/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', sdk));
const { StdioClientTransport } = await import(new URL('client/stdio.js', sdk));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', sdk));
const { wcManifest } = await import(new URL('../../tests/mcp/fixtures.mjs', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'tg-load-'));
const home = join(dir, 'home');
const tg = (...a) => execFileSync(bin, ['--home', home, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
const ARGS = { text: 'the quick brown fox jumps over the lazy dog' };

function stats(ms, secs) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { calls: s.length, p50_ms: +at(0.5).toFixed(2), p99_ms: +at(0.99).toFixed(2), max_ms: +s[s.length - 1].toFixed(2), calls_per_s: +(s.length / secs).toFixed(1), wall_s: +secs.toFixed(2) };
}

// CPU seconds of a process, the children it reaped (a server's tool runs)
// and its live children (the HTTP workers), from /proc (0 when gone).
function procCpu(pid) {
  let t = 0;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    t = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) t += procCpu(c);
  } catch { /* gone */ }
  return t;
}
const serverCpu = (pids) => pids.reduce((a, p) => a + procCpu(p), 0);

async function drive(clients, pids) {
  const times = [];
  let errors = 0;
  const end = Date.now() + D * 1000;
  const t0 = performance.now();
  const scpu0 = serverCpu(pids);
  const cpu0 = process.cpuUsage(); // the client's own CPU: it shares the cores with the server
  await Promise.all(clients.map(async (c) => {
    while (Date.now() < end) {
      const a = performance.now();
      const r = await c.callTool({ name: 'word_count', arguments: ARGS });
      times.push(performance.now() - a);
      if (r.isError || r.structuredContent?.words !== 9) errors++;
    }
  }));
  const cpu = process.cpuUsage(cpu0);
  const scpu = serverCpu(pids) - scpu0;
  const per = (x) => +(x / Math.max(1, times.length)).toFixed(3);
  return { ...stats(times, (performance.now() - t0) / 1000), errors, server_cpu_ms_per_call: per(scpu * 1000), client_cpu_ms_per_call: per((cpu.user + cpu.system) / 1000) };
}

const auditCalls = () => JSON.parse(tg('--json', 'log', '--limit', '1000000')).filter((e) => e.event === 'mcp_call').length;

let srv;
try {
  const token = tg('token', 'add', 'load').trim();
  // SANDBOX_POOL=N: config.json sandbox_pool (default: the config's, 2)
  if (process.env.SANDBOX_POOL !== undefined)
    writeFileSync(join(home, 'config.json'), JSON.stringify({ sandbox_pool: Number(process.env.SANDBOX_POOL) }));
  srv = spawn(bin, ['--home', home, 'serve', '--http', '127.0.0.1:0', '--workers', String(W), '--max-connections', String(S * 4 + 16)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((res, rej) => {
    let e = '';
    srv.stderr.on('data', (d) => { e += d; const m = e.match(/listening on (\S+)/); if (m) res(m[1]); });
    srv.on('exit', () => rej(new Error(e)));
  });
  const http = [];
  for (let i = 0; i < S; i++) {
    const c = new Client({ name: `load-${i}`, version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    http.push(c);
  }
  const created = await http[0].callTool({ name: 'create_tool', arguments: wcManifest() });
  if (created.isError) throw new Error(JSON.stringify(created));
  const before = auditCalls();
  const h = await drive(http, [srv.pid]);
  await Promise.all(http.map((c) => c.close()));
  srv.kill('SIGTERM');
  const afterHttp = auditCalls();

  const stdio = [];
  const stdioPids = [];
  const skipStdio = process.env.TG_LOAD_HTTP_ONLY === '1'; // profiling the HTTP server alone
  for (let i = 0; i < (skipStdio ? 0 : S); i++) {
    const c = new Client({ name: `load-stdio-${i}`, version: '1' });
    const tr = new StdioClientTransport({ command: bin, args: ['--home', home, 'serve'], stderr: 'ignore' });
    await c.connect(tr);
    stdio.push(c);
    stdioPids.push(tr.pid);
  }
  const s = skipStdio ? { calls: 0 } : await drive(stdio, stdioPids);
  await Promise.all(stdio.map((c) => c.close()));
  const afterStdio = auditCalls();
  tg('verify');
  console.log(JSON.stringify({
    sessions: S, seconds: D, workers: W,
    http: { ...h, audit_calls: afterHttp - before },
    stdio: { ...s, audit_calls: afterStdio - afterHttp },
    audit_exact: afterHttp - before === h.calls && afterStdio - afterHttp === s.calls,
    verify: 'clean',
  }, null, 1));
} finally {
  if (srv && srv.exitCode === null) srv.kill('SIGKILL'); // an error above left it running
  rmSync(dir, { recursive: true, force: true });
}
