// tests/mcp/http_pool.test.mjs: the sandbox pool of `toolgate serve --http`
// (issue 16; docs/SANDBOX.md, "The pool"). Each worker process starts its own
// pool after its fork; the call profile ($TG_CALL_PROFILE, one line per
// tools/call of a registered tool, written by the worker that served it)
// says whether the run came from the pool (pool_taken= and handed= stamps)
// or was made on the spot (setup=). Asserted, with the official SDK client
// over Streamable HTTP:
//  - sandbox_pool 2 (the default), two workers: every call, sequential and
//    concurrent, is served from a pool; a tool over its memory limit and one
//    over its time limit are refused with exactly the text they get without
//    the pool;
//  - sandbox_pool 0: the same calls, none pooled, the same answers;
//  - a worker killed with SIGKILL leaves none of its waiting sandboxes
//    behind, and the other worker goes on serving from its pool;
//  - SIGTERM stops the server and every worker's pool with it.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/http_pool.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome, toolgateBin } from './lib.mjs';
import { HOLD, SPIN, listeningUrl, wcManifest } from './fixtures.mjs';

const run = promisify(execFile);
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// {"hold":true} touches 200 MB (over its 64 MB limit); {} touches 1 MB.
// volatile: without it gcc drops the malloc and the stores (never read)

function manifest(name, source, tests, limits) {
  return { name, description: `pool test ${name}`, input_schema: { type: 'object' }, source, tests, limits, capabilities: [] };
}

function serve(t, home, profile) {
  const proc = spawn(toolgateBin(), ['--home', home, 'serve', '--http', '127.0.0.1:0', '--workers', '2'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TG_CALL_PROFILE: profile } });
  t.after(() => proc.kill('SIGKILL'));
  const exited = new Promise((resolve) => proc.on('exit', (code, sig) => resolve({ code, sig })));
  return listeningUrl(proc).then((url) => ({ url, proc, exited }));
}

async function client(t, url, tok) {
  const c = new Client({ name: 'http-pool-test', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
  t.after(() => c.close());
  return c;
}

// children of every thread of pid (the pool's children are cloned by its
// tracer threads)
function children(pid) {
  const out = [];
  let tasks = [];
  try { tasks = readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tasks) {
    try {
      out.push(...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch { /* the thread ended */ }
  }
  return out;
}

// gone, or a zombie (nothing held but its pid)
function alive(pid) {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch { return false; }
}

async function until(what, cond, ms = 15000) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

// the profile's lines: { pooled, setup } per call
function profileLines(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.startsWith('call us ')).map((l) => ({
    pooled: / pool_taken=\d+/.test(l) && / handed=\d+/.test(l),
    setup: / setup=\d+/.test(l),
  }));
}

// A run that finds its worker's pool empty takes the ordinary path (by
// design: making an entry costs what the ordinary path costs), so whether a
// call is pooled depends on whether the refill after the previous run was
// done. Before each sequential call of the pooled server the test waits
// until every worker holds its two entries and a moment more for them to
// be ready (a loaded machine makes one in well under that); without the
// wait a fast client outran the refill now and then (mcp_http_pool).
async function poolsFull(srv) {
  if (!srv) return;
  await until('every worker holds its pool', () => {
    const ws = children(srv.proc.pid);
    return ws.length === 2 && ws.every((w) => children(w).length >= 2);
  });
  await sleep(150);
}

// The calls each configuration makes: 6 sequential, 4 at once, then the two
// limits; returns the limit answers' texts. srv: the pooled server to wait
// for between sequential calls, or null.
async function calls(t, url, tok, srv = null) {
  const cs = [await client(t, url, tok), await client(t, url, tok)];
  for (let i = 0; i < 6; i++) {
    await poolsFull(srv);
    const r = await cs[0].callTool({ name: 'word_count', arguments: { text: 'a b c' } });
    assert.equal(r.structuredContent?.words, 3, JSON.stringify(r));
  }
  await poolsFull(srv);
  const rs = await Promise.all([0, 1, 2, 3].map((i) => cs[i % 2].callTool({ name: 'word_count', arguments: { text: 'x y', sleep_ms: 20 } })));
  for (const r of rs) assert.equal(r.structuredContent?.words, 2, JSON.stringify(r));
  await poolsFull(srv);
  const mem = await cs[0].callTool({ name: 'hold', arguments: { hold: true } });
  await poolsFull(srv);
  const time = await cs[0].callTool({ name: 'spin', arguments: { spin: true } });
  assert.equal(mem.isError, true, JSON.stringify(mem));
  assert.equal(time.isError, true, JSON.stringify(time));
  return { mem: mem.content[0].text, time: time.content[0].text };
}

test('serve --http: calls come from the workers\' pools, limits hold, sandbox_pool 0 pools nothing, a killed worker leaves no sandbox', { timeout: 240000 }, async (t) => {
  const home = tempHome(t);
  const tok = (await tg(home, 'token', 'add', 'pool')).trim();
  const dir = dirname(home);

  // ---- sandbox_pool 2 (the default) ----
  const prof1 = join(dir, 'profile.pool');
  const srv = await serve(t, home, prof1);
  const c0 = await client(t, srv.url, tok);
  for (const m of [
    wcManifest(),
    manifest('hold', HOLD, [{ name: 'small', args: {}, expect: { held_mb: 1 } }], { timeout_ms: 10000, memory_mb: 64 }),
    manifest('spin', SPIN, [{ name: 'quick', args: {}, expect: { spun: false } }], { timeout_ms: 500, memory_mb: 64 }),
  ]) {
    const r = await c0.callTool({ name: 'create_tool', arguments: m });
    assert.equal(r.isError, undefined, JSON.stringify(r));
  }
  const withPool = await calls(t, srv.url, tok, srv);
  // a worker writes a call's line just after its answer
  await until('12 profile lines', () => profileLines(prof1).length >= 12, 5000).catch(() => {});
  let lines = profileLines(prof1);
  assert.equal(lines.length, 12, `one profile line per call: ${readFileSync(prof1, 'utf8')}`);
  assert.deepEqual(lines.filter((l) => l.pooled === l.setup), [], 'each call pooled or set up, not both');
  // the 8 sequential calls find full pools; of the 4 at once, each
  // worker's first two do (all 4 may go to one worker)
  assert.ok(lines.filter((l) => l.pooled).length >= 10,
    `calls served from a pool: ${readFileSync(prof1, 'utf8')}`);
  assert.equal(withPool.mem, 'killed by the sandbox: memory limit of 64 MB');
  assert.equal(withPool.time, 'killed by the sandbox: timeout after 500 ms');

  // a worker killed with SIGKILL: its waiting sandboxes die with it
  const workers = children(srv.proc.pid);
  assert.equal(workers.length, 2, `two workers: ${workers}`);
  await until('worker 1 has its pool ready', () => children(workers[1]).length >= 2);
  const entries = children(workers[1]);
  process.kill(workers[1], 'SIGKILL');
  await until(`the killed worker's sandboxes ${entries} end`, () => !entries.some(alive));
  // the other worker goes on, from its pool
  const r = await c0.callTool({ name: 'word_count', arguments: { text: 'still here' } });
  assert.equal(r.structuredContent?.words, 2, JSON.stringify(r));
  await until('13 profile lines', () => profileLines(prof1).length >= 13, 5000).catch(() => {});
  lines = profileLines(prof1);
  assert.equal(lines.length, 13);
  assert.equal(lines[12].pooled, true);

  // SIGTERM: the server and the pools of its workers end
  const w0entries = children(workers[0]);
  assert.ok(w0entries.length >= 1, 'worker 0 holds its pool');
  srv.proc.kill('SIGTERM');
  const how = await Promise.race([srv.exited, new Promise((r) => setTimeout(() => r('hung'), 20000).unref())]);
  assert.deepEqual(how, { code: 0, sig: null });
  await until('worker 0\'s sandboxes end', () => !w0entries.some(alive) && !alive(workers[0]));

  // ---- sandbox_pool 0 ----
  writeFileSync(join(home, 'config.json'), JSON.stringify({ sandbox_pool: 0, property_tests: 0 }));
  const prof0 = join(dir, 'profile.nopool');
  const srv0 = await serve(t, home, prof0);
  const without = await calls(t, srv0.url, tok);
  await until('12 profile lines', () => profileLines(prof0).length >= 12, 5000).catch(() => {});
  lines = profileLines(prof0);
  assert.equal(lines.length, 12, `one profile line per call: ${existsSync(prof0) ? readFileSync(prof0, 'utf8') : 'none'}`);
  assert.deepEqual(lines.filter((l) => l.pooled || !l.setup), [], 'no call pooled');
  assert.deepEqual(children(children(srv0.proc.pid)[0]), [], 'no waiting sandbox');
  // the same refusals, word for word, from a pooled and a fresh sandbox
  assert.equal(withPool.mem, without.mem);
  assert.equal(withPool.time, without.time);
});
