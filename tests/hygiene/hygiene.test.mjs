// tests/hygiene/hygiene.test.mjs: resource hygiene of the real toolgate.
//  - `toolgate serve`: after the first call, the server's open descriptors
//    (/proc/PID/fd), threads (/proc/PID/task) and child processes are
//    counted; after 60 more requests of every kind (tool calls that pass and
//    fail, a create_tool that passes, one the analyzer rejects, one whose
//    test fails, history, rollbacks, lists) they must be the same; at end of
//    input it exits 0 and leaves no process behind.
//  - one-shot commands (`create`, `call`, a `call` with bad arguments,
//    `sandbox exec` of a program killed by its timeout): once toolgate has
//    exited, no process of the run remains (nothing whose command line or
//    executable names the test's folder, no `sleep 31.4159`), and no sandbox
//    cgroup folder named after the toolgate process (tg-PID-N) is left in the
//    memory or pids hierarchies (v1) or the unified one (v2).
// Also runs under ASan+LSan in the sanitizer build (each toolgate process
// then checks its own leaks at exit).
// Run: TOOLGATE=build/cli/toolgate node --test tests/hygiene/hygiene.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, readdirSync, readFileSync, readlinkSync, existsSync, cpSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const tg = process.env.TOOLGATE;
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'reliability', 'fixtures');

function run(home, args, input) {
  return spawnSync(tg, ['--home', home, ...args], { input, encoding: 'utf8', timeout: 120000 });
}

function setup(t) {
  assert.ok(tg, 'TOOLGATE must name the toolgate binary');
  const dir = mkdtempSync(join(tmpdir(), 'tg_hyg.'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  assert.equal(run(home, ['init']).status, 0);
  const r = run(home, ['create', join(fixtures, 'good')]);
  assert.equal(r.status, 0, r.stderr);
  return { dir, home };
}

const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;
const fdList = (pid) => readdirSync(`/proc/${pid}/fd`).map((fd) => {
  try { return `${fd} -> ${readlinkSync(`/proc/${pid}/fd/${fd}`)}`; } catch { return `${fd} -> ?`; }
}).sort();
const threadCount = (pid) => readdirSync(`/proc/${pid}/task`).length;
// serve keeps one fresh net namespace made ahead for its next run (a new one
// after every run: tg_sandbox_prepare) by a thread that runs while the run's
// own descriptors close, so its identity and its descriptor number are left
// out. It also keeps its v1 cgroup slot locked; which slot that is depends on
// what the tests running beside this one hold (a slot with memory still
// charged after a build is given up for the first free one), so the slot's
// number is left out too, not that it is one.
const fdListStable = (pid) => fdList(pid)
  .map((l) => l.replace(/^\d+ -> net:\[\d+\]$/, '* -> net:[spare]')
    .replace(/\/tg-slot-\d+(\/|$)/, '/tg-slot-*$1')
    .replace(/\/tg-\d+-cpu\d+\//, '/tg-*-cpu*/')).sort();
const spareFds = (pid) => fdList(pid).filter((l) => / -> net:\[/.test(l)).length;

function processes() {
  const out = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let exe = '';
      try { exe = readlinkSync(`/proc/${p}/exe`); } catch { /* kernel thread or gone */ }
      out.push({ pid: Number(p), ppid, cmd, exe });
    } catch { /* exited meanwhile */ }
  }
  return out;
}
const childrenOf = (pid) => processes().filter((p) => p.ppid === pid);

// Where the sandbox creates its cgroups: our own cgroup in each hierarchy.
function cgroupDirs() {
  const dirs = [];
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, ctrl, path] = line.split(':');
    if (path === undefined) continue;
    if (ctrl === '' && existsSync(join('/sys/fs/cgroup', path, 'cgroup.procs')) && !existsSync('/sys/fs/cgroup/memory')) dirs.push(join('/sys/fs/cgroup', path));
    for (const c of ctrl.split(',')) if (c === 'memory' || c === 'pids') dirs.push(join('/sys/fs/cgroup', c, path));
  }
  return dirs.filter((d) => existsSync(d));
}
function leftoverCgroups(pid) {
  const left = [];
  for (const d of cgroupDirs()) {
    for (const e of readdirSync(d)) if (e.startsWith(`tg-${pid}-`)) left.push(join(d, e));
  }
  return left;
}

async function settle(pred, ms = 3000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return pred();
}

function assertNothingLeft(dir, pid, what) {
  const left = processes().filter((p) => p.cmd.includes(dir) || p.exe.includes(dir) ||
    p.cmd.includes('31.4159') || p.ppid === pid);
  assert.deepEqual(left, [], `${what}: processes left behind`);
  assert.deepEqual(leftoverCgroups(pid), [], `${what}: sandbox cgroups left behind`);
}

// Spawn and wait; resolves {pid, status, stdout, stderr}.
function runAsync(home, args, input = '') {
  return new Promise((resolve) => {
    const p = spawn(tg, ['--home', home, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('close', (status) => resolve({ pid: p.pid, status, stdout, stderr }));
    // a command that needs no input may exit before this write: EPIPE is fine
    p.stdin.on('error', () => {});
    p.stdin.end(input);
  });
}

test('one-shot commands leave no process and no cgroup behind', async (t) => {
  const { dir, home } = setup(t);
  mkdirSync(join(dir, 'v2'));
  cpSync(join(fixtures, 'good', 'tool.json'), join(dir, 'v2', 'tool.json'));
  writeFileSync(join(dir, 'v2', 'tool.c'), readFileSync(join(fixtures, 'good', 'tool.c'), 'utf8') + '/* v2 */\n');
  const cases = [
    [['create', join(dir, 'v2')], 0],
    [['create', join(fixtures, 'bad_test')], 1],
    [['create', join(fixtures, 'evil')], 1],
    [['call', 'rel_tool', '{}'], 0],
    [['call', 'rel_tool', '[1]'], 2],
    [['rollback', 'rel_tool'], 0],
    [['sandbox', 'exec', '--timeout-ms', '300', '--', '/usr/bin/sleep', '31.4159'], 1],
    [['sandbox', 'exec', '--', '/usr/bin/true'], 0],
  ];
  for (const [args, want] of cases) {
    const r = await runAsync(home, args);
    assert.equal(r.status, want, `${args.join(' ')}: ${r.stderr}`);
    await settle(() => processes().every((p) => !(p.cmd.includes('31.4159') || p.ppid === r.pid)) &&
      leftoverCgroups(r.pid).length === 0);
    assertNothingLeft(dir, r.pid, args.join(' '));
  }
});

test('toolgate serve: descriptors, threads and children stable over 60 requests', async (t) => {
  const { dir, home } = setup(t);
  // the unpooled server (the pool has its own test below)
  writeFileSync(join(home, 'config.json'), JSON.stringify({ sandbox_pool: 0 }));
  const srv = spawn(tg, ['--home', home, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => { try { srv.kill('SIGKILL'); } catch { /* gone */ } });
  srv.stderr.on('data', () => {});
  const rl = createInterface({ input: srv.stdout });
  const waiting = new Map();
  rl.on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
  });
  let next = 1;
  const request = (method, params) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    srv.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const call = (name, args) => request('tools/call', { name, arguments: args });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hygiene', version: '1' } });
  srv.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const first = await call('rel_tool', {});
  assert.deepEqual(first.result.structuredContent, { v: 1 }, JSON.stringify(first));
  // the shared net namespace of filtered runs, made by the first call
  // (sandbox/netns.c); no spare: no run without the filter came
  const spares = process.getuid() === 0 ? 1 : 0; // made by us with CAP_SYS_ADMIN only
  await settle(() => spareFds(srv.pid) === spares && threadCount(srv.pid) === 1);
  const fds0 = fdListStable(srv.pid), threads0 = threadCount(srv.pid);
  assert.deepEqual(childrenOf(srv.pid), [], 'children after the first call');

  const src = readFileSync(join(fixtures, 'good', 'tool.c'), 'utf8');
  const manifest = (over) => ({ name: 'rel_tool', description: 'hygiene', input_schema: { type: 'object', properties: {} }, source: src, tests: [{ name: 't', args: {}, expect: { v: 1 } }], ...over });
  for (let i = 0; i < 12; i++) {
    assert.deepEqual((await call('rel_tool', { i })).result.structuredContent, { v: 1 });
    assert.equal((await call('rel_tool', [i])).error?.code, -32602);
    assert.ok((await request('tools/list', {})).result.tools.length >= 5);
    assert.ok((await call('tool_history', { name: 'rel_tool' })).result);
    assert.ok((await call('list_tool_versions', { name: 'nosuch' })).result.isError);
  }
  const created = await call('create_tool', manifest({ source: src + '/* v2 */\n' }));
  assert.equal(created.result.isError, undefined, JSON.stringify(created).slice(0, 400));
  const rejected = await call('create_tool', manifest({ source: '#include <stdlib.h>\nint main(void) { system("id"); return 0; }\n' }));
  assert.equal(rejected.result.isError, true);
  const failed = await call('create_tool', manifest({ tests: [{ name: 't', args: {}, expect: { v: 2 } }] }));
  assert.equal(failed.result.isError, true);
  assert.ok((await call('rollback_tool', { name: 'rel_tool' })).result);
  assert.deepEqual((await call('rel_tool', {})).result.structuredContent, { v: 1 });

  await settle(() => childrenOf(srv.pid).length === 0 && fdCount(srv.pid) === fds0.length &&
    threadCount(srv.pid) === threads0);
  assert.deepEqual(childrenOf(srv.pid), [], 'children left by the requests');
  assert.equal(spareFds(srv.pid), spares, 'one net namespace held: the shared one (root)');
  assert.deepEqual(fdListStable(srv.pid), fds0, 'descriptors after 65 requests differ from after the first call');
  assert.equal(threadCount(srv.pid), threads0, 'threads');
  const code = await new Promise((resolve) => { srv.on('close', resolve); srv.stdin.end(); });
  assert.equal(code, 0);
  await settle(() => leftoverCgroups(srv.pid).length === 0);
  assertNothingLeft(dir, srv.pid, 'serve');
});

// The same session with the default pool of 2 sandboxes made ahead (no
// config.json: sandbox_pool 2, docs/SANDBOX.md "The pool"): the pool's own children,
// threads and descriptors stay, bounded and stable: after 60 requests (the
// tool calls served from the pool) the server holds the same number of
// children (2, each waiting for one run), threads and descriptors as after
// the first call, and at end of input it exits 0 and leaves nothing behind.
test('toolgate serve with the default pool (sandbox_pool 2): bounded and stable', async (t) => {
  const { dir, home } = setup(t);
  const srv = spawn(tg, ['--home', home, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => { try { srv.kill('SIGKILL'); } catch { /* gone */ } });
  srv.stderr.on('data', () => {});
  const rl = createInterface({ input: srv.stdout });
  const waiting = new Map();
  rl.on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
  });
  let next = 1;
  const request = (method, params) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    srv.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const call = (name, args) => request('tools/call', { name, arguments: args });
  // pipe, socket and pidfd identities change with every entry: counted by
  // kind. The v1 cgroup slots: one per entry, and up to four kept for reuse
  // by the process once their runs are over (sandbox/cgroup.c), each held
  // with its folders and three control files (cgroup_v1.c); v1 cpu folders:
  // up to four kept (cgroup_cpu.c), each with its quota file held: bounded,
  // not compared (a refill under way holds one more of each).
  const cgHeld = (l) => /\/tg-slot-\*(\/|$)/.test(l) || /\/tg-\*-cpu\*\//.test(l);
  const slotFds = (pid) => fdListStable(pid).filter((l) => /\/tg-slot-\*(\/|$)/.test(l)).length;
  const cpuFds = (pid) => fdListStable(pid).filter((l) => /\/tg-\*-cpu\*\//.test(l)).length;
  const fdKinds = (pid) => fdListStable(pid).filter((l) => !cgHeld(l))
    .map((l) => l.replace(/^\d+ -> /, '').replace(/\[\d+\]$/, '[*]')).sort();
  // a waiting entry's child is the waiter program exec'd from its memfd
  // (sandbox/waiter), not a copy of serve
  const poolKids = (pid) => childrenOf(pid).filter((p) => p.exe.startsWith('/memfd:tg-waiter'));
  const snapshot = () => JSON.stringify([childrenOf(srv.pid).length, threadCount(srv.pid), fdKinds(srv.pid)]);
  // stable: the same snapshot twice, 300 ms apart (the refill is done)
  const steady = async () => {
    let last = '';
    return settle(() => { const s = snapshot(); const ok = s === last && childrenOf(srv.pid).length === 2; last = s; return ok; }, 10000);
  };
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hygiene', version: '1' } });
  srv.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const first = await call('rel_tool', {});
  assert.deepEqual(first.result.structuredContent, { v: 1 }, JSON.stringify(first));
  assert.ok(await steady(), `pool after the first call: ${snapshot()}`);
  const kids0 = childrenOf(srv.pid), threads0 = threadCount(srv.pid), fds0 = fdKinds(srv.pid);
  assert.equal(kids0.length, 2, 'two children waiting, one per entry');
  assert.equal(poolKids(srv.pid).length, 2, JSON.stringify(kids0));
  for (let i = 0; i < 30; i++) {
    assert.deepEqual((await call('rel_tool', { i })).result.structuredContent, { v: 1 });
    assert.equal((await call('rel_tool', [i])).error?.code, -32602);
  }
  const created = await call('create_tool', {
    name: 'rel_tool', description: 'hygiene', input_schema: { type: 'object', properties: {} },
    source: readFileSync(join(fixtures, 'good', 'tool.c'), 'utf8') + '/* v2 */\n',
    tests: [{ name: 't', args: {}, expect: { v: 1 } }] });
  assert.equal(created.result.isError, undefined, JSON.stringify(created).slice(0, 400));
  assert.deepEqual((await call('rel_tool', {})).result.structuredContent, { v: 1 });
  assert.ok(await steady(), `pool after 62 requests: ${snapshot()}`);
  const kids1 = childrenOf(srv.pid);
  assert.equal(kids1.length, 2, 'children after the requests');
  assert.ok(kids1.every((k) => !kids0.some((o) => o.pid === k.pid)),
    'every entry served one run and was replaced');
  assert.equal(threadCount(srv.pid), threads0, 'threads');
  assert.deepEqual(fdKinds(srv.pid), fds0, 'descriptors after the requests differ from after the first call');
  assert.ok(slotFds(srv.pid) <= 5 * (2 + 4), `cgroup slots held: ${slotFds(srv.pid)}`);
  assert.ok(cpuFds(srv.pid) <= 4 + 3, `cpu folders held: ${cpuFds(srv.pid)}`);
  const code = await new Promise((resolve) => { srv.on('close', resolve); srv.stdin.end(); });
  assert.equal(code, 0);
  await settle(() => leftoverCgroups(srv.pid).length === 0 && childrenOf(srv.pid).length === 0);
  assertNothingLeft(dir, srv.pid, 'serve with a pool');
});
