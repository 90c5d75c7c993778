// tests/mcp/http_cancel.test.mjs: notifications/cancelled over Streamable
// HTTP (issue 15; mcp/http_cancel.c). The official SDK client over
// StreamableHTTPClientTransport aborts a callTool (AbortController, which
// POSTs notifications/cancelled): the 30 s run in the worker process is
// killed, audited with reason "cancelled", and the session answers at once;
// a create_tool whose test spins is cancelled the same way (nothing stored,
// "create_cancelled"). Raw POSTs check the exact statuses: the cancelled
// request gets no response (202, empty body); another principal's cancel
// with the victim's session id is 404 and one in its own session is 202,
// and neither ends the victim's call, which runs to its own timeout.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/http_cancel.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome, toolgateBin, serveHttp as serveHttpLib } from './lib.mjs';
import { SPIN } from './fixtures.mjs';

const run = promisify(execFile);
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args],
  { maxBuffer: 1 << 24 })).stdout;


function spinManifest(name, timeoutMs, tests) {
  return {
    name,
    description: 'Spin until the timeout',
    input_schema: { type: 'object', properties: { spin: { type: 'boolean' } } },
    source: SPIN,
    tests: tests ?? [{ name: 'no spin', args: {}, expect: { spun: false } }],
    limits: { timeout_ms: timeoutMs, memory_mb: 64 },
    capabilities: [],
  };
}

async function home30s(t) {
  const home = tempHome(t);
  await tg(home, 'init');
  // a 30 s tool timeout, and a CPU share that keeps the spin from taking a core
  writeFileSync(join(home, 'config.json'), '{"max_timeout_ms": 60000, "cpu_percent": 50, "property_tests": 0}\n');
  return home;
}

const serve = (t, home) => serveHttpLib(home, { t });

const auth = (tok) => ({ Authorization: `Bearer ${tok}` });
const JSONH = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function post(url, headers, body) {
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text };
}

// A raw initialize-era session: its id.
async function rawSession(url, tok) {
  const r = await post(url, { ...JSONH, ...auth(tok) }, { jsonrpc: '2.0', id: 1,
    method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {},
      clientInfo: { name: 'raw', version: '1' } } });
  assert.equal(r.status, 200, r.text);
  const sid = r.headers.get('mcp-session-id');
  const n = await post(url, { ...JSONH, ...auth(tok), 'Mcp-Session-Id': sid },
    { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(n.status, 202);
  return sid;
}

const cancelMsg = (requestId) => ({ jsonrpc: '2.0', method: 'notifications/cancelled',
  params: { requestId, reason: 'test' } });

async function auditLog(home) {
  return JSON.parse(await tg(home, 'log', '--json', '--limit', '1000'));
}

test('SDK over HTTP: an aborted callTool kills the 30 s run in the worker; an aborted create stores nothing', async (t) => {
  const home = await home30s(t);
  const alice = (await tg(home, 'token', 'add', 'alice')).trim();
  const srv = await serve(t, home);
  const transport = new StreamableHTTPClientTransport(new URL(srv.url),
    { requestInit: { headers: auth(alice) } });
  const client = new Client({ name: 'toolgate-http-cancel-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  let r = await client.callTool({ name: 'create_tool', arguments: spinManifest('spin', 30000) });
  assert.equal(r.isError, undefined, JSON.stringify(r));

  // 1. a call aborted after 1 s
  const ac = new AbortController();
  const t0 = Date.now();
  const call = client.callTool({ name: 'spin', arguments: { spin: true } }, undefined,
    { signal: ac.signal, timeout: 60000 });
  setTimeout(() => ac.abort('the user pressed stop'), 1000);
  await assert.rejects(call);
  // the session's next request is answered within seconds, not after 30
  r = await client.callTool({ name: 'spin', arguments: {} });
  assert.deepEqual(r.structuredContent, { spun: false });
  const took = Date.now() - t0;
  assert.ok(took < 10000, `the session answered after ${took} ms`);

  // 2. a create whose test spins, aborted while the test runs
  const ac2 = new AbortController();
  const t1 = Date.now();
  const create = client.callTool({ name: 'create_tool', arguments: spinManifest('spin_slow', 30000,
    [{ name: 'spins', args: { spin: true }, expect: { spun: true } }]) }, undefined,
  { signal: ac2.signal, timeout: 60000 });
  setTimeout(() => ac2.abort('stop'), 2500);
  await assert.rejects(create);
  r = await client.callTool({ name: 'tool_history', arguments: { name: 'spin_slow' } });
  assert.equal(r.isError, true, `a version of the cancelled create was stored: ${JSON.stringify(r)}`);
  assert.ok(Date.now() - t1 < 15000, `answered after ${Date.now() - t1} ms`);

  const log = await auditLog(home);
  const outcome = log.find((e) => e.event === 'call_result' && e.tool === 'spin' &&
    e.details.reason === 'cancelled');
  assert.ok(outcome, `no cancelled call outcome: ${JSON.stringify(log.slice(-6))}`);
  assert.equal(outcome.details.ok, false);
  assert.ok(outcome.details.wall_ms < 10000, `the run lasted ${outcome.details.wall_ms} ms`);
  assert.match(outcome.actor, /^mcp:alice:[0-9a-f]{32}$/);
  const cc = log.find((e) => e.event === 'create_cancelled' && e.tool === 'spin_slow');
  assert.ok(cc, `no create_cancelled entry: ${JSON.stringify(log.slice(-6))}`);
  assert.ok(!log.find((e) => e.event === 'create' && e.tool === 'spin_slow'));
});

test('raw HTTP: the owner\'s cancel drops the response (202, empty); another principal cannot cancel the call', async (t) => {
  const home = await home30s(t);
  const alice = (await tg(home, 'token', 'add', 'alice')).trim();
  const bob = (await tg(home, 'token', 'add', 'bob')).trim();
  const srv = await serve(t, home);
  const sa = await rawSession(srv.url, alice);
  const ah = { ...JSONH, ...auth(alice), 'Mcp-Session-Id': sa };
  let r = await post(srv.url, ah, { jsonrpc: '2.0', id: 2, method: 'tools/call',
    params: { name: 'create_tool', arguments: spinManifest('spin4', 4000) } });
  assert.equal(r.status, 200, r.text);
  assert.equal(JSON.parse(r.text).result.isError, undefined, r.text);

  // 1. bob tries to cancel alice's 4 s call: with her session id (404), and
  // in a session of his own under the same request id (202, nothing named)
  const t0 = Date.now();
  const victim = post(srv.url, ah, { jsonrpc: '2.0', id: 7, method: 'tools/call',
    params: { name: 'spin4', arguments: { spin: true } } });
  await new Promise((res) => setTimeout(res, 1000));
  r = await post(srv.url, { ...JSONH, ...auth(bob), 'Mcp-Session-Id': sa }, cancelMsg(7));
  assert.equal(r.status, 404, r.text);
  assert.match(r.text, /no such session/);
  const sb = await rawSession(srv.url, bob);
  r = await post(srv.url, { ...JSONH, ...auth(bob), 'Mcp-Session-Id': sb }, cancelMsg(7));
  assert.equal(r.status, 202);
  r = await victim;
  assert.equal(r.status, 200, r.text);
  const res = JSON.parse(r.text);
  assert.equal(res.id, 7);
  assert.equal(res.result.isError, true, r.text);
  assert.match(res.result.content[0].text, /time/i);
  assert.ok(Date.now() - t0 >= 3500, `the call ended after ${Date.now() - t0} ms, before its timeout`);

  // 2. alice cancels her own call: no response for it (202, empty body)
  const t1 = Date.now();
  const mine = post(srv.url, ah, { jsonrpc: '2.0', id: 8, method: 'tools/call',
    params: { name: 'spin4', arguments: { spin: true } } });
  await new Promise((res) => setTimeout(res, 1000));
  r = await post(srv.url, ah, cancelMsg(8));
  assert.equal(r.status, 202);
  r = await mine;
  assert.equal(r.status, 202, `the cancelled request was answered: ${r.text}`);
  assert.equal(r.text, '');
  assert.ok(Date.now() - t1 < 3500, `the cancelled call lasted ${Date.now() - t1} ms`);
  // the session goes on
  r = await post(srv.url, ah, { jsonrpc: '2.0', id: 9, method: 'ping' });
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), { jsonrpc: '2.0', id: 9, result: {} });

  const log = await auditLog(home);
  const outcomes = log.filter((e) => e.event === 'call_result' && e.tool === 'spin4');
  assert.equal(outcomes.length, 2, JSON.stringify(outcomes));
  const reasons = outcomes.map((e) => e.details.reason).sort();
  assert.deepEqual(reasons, ['cancelled', 'timeout'], JSON.stringify(outcomes));
  for (const e of outcomes) assert.match(e.actor, /^mcp:alice:/);
});
