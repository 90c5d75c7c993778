// tests/mcp/fault_http_kill.test.mjs: group commit under kill -9. Eight SDK
// sessions call a registered tool back to back over Streamable HTTP on one
// `toolgate serve --http --workers 4` (the workers share one group commit,
// registry/commit.c); the server is killed with SIGKILL in the middle of the
// batch (its workers die with it). Then, from the audit log: every call a
// client saw acknowledged has its mcp_call entry (no acknowledgement before
// the entry was committed), each mcp_call sits right after the call_result
// of the same call (one transaction: never one without the other), no call
// is logged twice, at most the calls in flight at the kill stay unfinished,
// and `toolgate verify` is clean.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/fault_http_kill.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome, toolgateBin, serveHttp as serveHttpLib } from './lib.mjs';
import { wcManifest } from './fixtures.mjs';

const run = promisify(execFile);
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args], { maxBuffer: 1 << 28 })).stdout;
const SESSIONS = 8;

const serve = (home) => serveHttpLib(home, { extra: ['--workers', '4'] });

test('kill -9 of serve --http mid-batch: no acknowledged call without its entries', async (t) => {
  const home = tempHome(t);
  const tok = (await tg(home, 'token', 'add', 'fault')).trim();
  const srv = await serve(home);
  t.after(() => srv.proc.kill('SIGKILL'));
  const clients = [];
  for (let i = 0; i < SESSIONS; i++) {
    const c = new Client({ name: `fault-${i}`, version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
    clients.push(c);
  }
  const created = await clients[0].callTool({ name: 'create_tool', arguments: wcManifest() });
  assert.equal(created.isError, undefined, JSON.stringify(created));

  let stop = false;
  let acked = 0;
  const loops = clients.map(async (c, i) => {
    while (!stop) {
      try {
        const r = await c.callTool({ name: 'word_count', arguments: { text: 'a b c', sleep_ms: (i % 4) * 2 } });
        if (!stop && !r.isError && r.structuredContent?.words === 3) acked++;
        else if (!stop) throw new Error(`bad result: ${JSON.stringify(r)}`);
      } catch (e) {
        if (!stop) throw e;
      }
    }
  });
  // kill once the batch is well under way
  const t0 = Date.now();
  while (acked < 60 && Date.now() - t0 < 60000) await new Promise((r) => setTimeout(r, 20));
  const ackedAtKill = acked;
  srv.proc.kill('SIGKILL');
  stop = true;
  await Promise.allSettled(loops);
  await Promise.allSettled(clients.map((c) => c.close())); // no reconnecting streams left
  assert.ok(ackedAtKill >= 60, `only ${ackedAtKill} calls were acknowledged`);
  // the workers die with the server (PDEATHSIG): wait until the database is ours
  await new Promise((r) => setTimeout(r, 500));

  const log = JSON.parse(await tg(home, '--json', 'log', '--limit', '1000000'));
  const ours = log.filter((e) => e.tool === 'word_count');
  const mcp = ours.filter((e) => e.event === 'mcp_call');
  const results = ours.filter((e) => e.event === 'call_result');
  const intents = ours.filter((e) => e.event === 'call');
  assert.ok(mcp.length >= ackedAtKill, `${ackedAtKill} calls acknowledged but only ${mcp.length} mcp_call entries`);
  assert.ok(mcp.length <= acked + SESSIONS, `${mcp.length} mcp_call entries for ${acked} acknowledged calls`);
  assert.equal(results.length, mcp.length, 'every call_result has its mcp_call and back');
  const bySeq = new Map(log.map((e) => [e.seq, e]));
  for (const e of mcp) {
    const prev = bySeq.get(e.seq - 1);
    assert.equal(prev?.event, 'call_result', `mcp_call ${e.seq} does not follow its call_result`);
    assert.equal(prev.actor, e.actor);
  }
  const ids = results.map((e) => e.details.call);
  assert.equal(new Set(ids).size, ids.length, 'no call has two outcomes');
  const intentIds = new Set(intents.map((e) => e.details.call));
  for (const id of ids) assert.ok(intentIds.has(id), `call ${id} has an outcome but no intent`);
  assert.ok(intents.length - results.length <= SESSIONS, `${intents.length - results.length} unfinished calls`);
  const v = JSON.parse(await tg(home, '--json', 'verify'));
  assert.equal(v.ok, true, JSON.stringify(v.problems));
});

// The server process starts no thread before it forks its workers: the net
// namespace maker of the sandbox, once started in the server, could hold its
// lock at a fork, and the worker's first tool run then waited on it forever
// (seen under load: a call that never returned, a server that SIGTERM could
// not stop). Sixteen workers each run their first calls at once; every call
// returns and SIGTERM stops the server.
test('serve --http: every worker serves its first calls, SIGTERM stops the server', async (t) => {
  const home = tempHome(t);
  const tok = (await tg(home, 'token', 'add', 'first')).trim();
  const proc = spawn(toolgateBin(), ['--home', home, 'serve', '--http', '127.0.0.1:0', '--workers', '16'], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => proc.kill('SIGKILL'));
  let err = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening: ${err}`)), 15000);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  const clients = [];
  for (let i = 0; i < 16; i++) {
    const c = new Client({ name: `first-${i}`, version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
    clients.push(c);
  }
  const created = await clients[0].callTool({ name: 'create_tool', arguments: wcManifest() });
  assert.equal(created.isError, undefined, JSON.stringify(created));
  const timeout = (ms) => new Promise((_, rej) => setTimeout(() => rej(new Error(`no answer in ${ms} ms`)), ms).unref());
  for (let round = 0; round < 2; round++) {
    const calls = clients.map((c) => c.callTool({ name: 'word_count', arguments: { text: 'x y', sleep_ms: 30 } }));
    const rs = await Promise.race([Promise.all(calls), timeout(60000)]);
    for (const r of rs) assert.equal(r.structuredContent?.words, 2, JSON.stringify(r));
  }
  await Promise.all(clients.map((c) => c.close()));
  const exited = new Promise((resolve) => proc.on('exit', (code, sig) => resolve({ code, sig })));
  proc.kill('SIGTERM');
  const how = await Promise.race([exited, timeout(20000)]);
  assert.equal(how.code, 0, `exit ${JSON.stringify(how)}: ${err}`);
});
