// tests/mcp/cancel.test.mjs: notifications/cancelled ends the build or run
// in flight (issue 15; mcp/cancel.c). A tool that spins for up to 30 s is
// called and cancelled: with the official SDK client (AbortController on
// callTool, which sends notifications/cancelled), and with a raw JSON-RPC
// driver that checks no response is ever sent for the cancelled request and
// that the next request is answered within a few seconds. The audit log
// shows the call's outcome with reason "cancelled". A create_tool whose
// test spins is cancelled the same way: nothing is stored, the audit log
// has "create_cancelled".
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/cancel.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';
import { SPIN } from './fixtures.mjs';

const run = promisify(execFile);


function spinManifest(name, tests) {
  return {
    name,
    description: 'Spin until the timeout',
    input_schema: { type: 'object', properties: { spin: { type: 'boolean' } } },
    source: SPIN,
    tests: tests ?? [{ name: 'no spin', args: {}, expect: { spun: false } }],
    limits: { timeout_ms: 30000, memory_mb: 64 },
    capabilities: [],
  };
}

async function home30s(t) {
  const home = tempHome(t);
  await run(toolgateBin(), ['--home', home, 'init']);
  // a 30 s tool timeout, and a CPU share that keeps the spin from taking a core
  writeFileSync(join(home, 'config.json'), '{"max_timeout_ms": 60000, "cpu_percent": 50, "property_tests": 0}\n');
  return home;
}

async function auditLog(home) {
  const { stdout } = await run(toolgateBin(), ['--home', home, 'log', '--json'], { maxBuffer: 1 << 24 });
  return JSON.parse(stdout);
}

test('SDK client: an aborted callTool kills the 30 s run; the session answers at once', async (t) => {
  const home = await home30s(t);
  const transport = new StdioClientTransport({
    command: toolgateBin(), args: ['--home', home, 'serve'], stderr: 'pipe',
  });
  const client = new Client({ name: 'toolgate-cancel-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  let r = await client.callTool({ name: 'create_tool', arguments: spinManifest('spin') });
  assert.equal(r.isError, undefined, JSON.stringify(r));

  const ac = new AbortController();
  const t0 = Date.now();
  const call = client.callTool({ name: 'spin', arguments: { spin: true } }, undefined,
    { signal: ac.signal, timeout: 60000 });
  setTimeout(() => ac.abort('the user pressed stop'), 1000);
  await assert.rejects(call);
  // the next request is answered within a few seconds, not after 30
  r = await client.callTool({ name: 'spin', arguments: {} });
  const took = Date.now() - t0;
  assert.deepEqual(r.structuredContent, { spun: false });
  assert.ok(took < 8000, `the session answered after ${took} ms`);

  const log = await auditLog(home);
  const outcome = log.find((e) => e.event === 'call_result' && e.tool === 'spin' &&
    e.details.reason === 'cancelled');
  assert.ok(outcome, `no cancelled call outcome in the audit log: ${JSON.stringify(log.slice(-4))}`);
  assert.equal(outcome.details.ok, false);
  assert.ok(outcome.details.wall_ms < 10000, `the run lasted ${outcome.details.wall_ms} ms`);
});

test('raw JSON-RPC: no response for the cancelled request, the next one at once; a cancelled create stores nothing', async (t) => {
  const home = await home30s(t);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  t.after(() => s.close());
  await s.initialize();
  let m = await s.request({ jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: { name: 'create_tool', arguments: spinManifest('spin') } }, 60000);
  assert.equal(m.id, 1);
  assert.equal(m.result.isError, undefined, JSON.stringify(m));
  // a list_changed notification may come with it
  const drain = async () => {
    for (;;) {
      const x = await s.next(300).catch(() => null);
      if (!x) return;
      assert.ok(!x.id, `an unexpected response: ${JSON.stringify(x)}`);
    }
  };
  await drain();

  // 1. a call, cancelled after 1 s, then a ping
  await s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call',
    params: { name: 'spin', arguments: { spin: true } } });
  await new Promise((res) => setTimeout(res, 1000));
  const t0 = Date.now();
  await s.send({ jsonrpc: '2.0', method: 'notifications/cancelled',
    params: { requestId: 2, reason: 'test' } });
  await s.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  m = await s.next(8000);
  assert.equal(m.id, 3, `the first message after the cancel: ${JSON.stringify(m)}`);
  assert.deepEqual(m.result, {});
  assert.ok(Date.now() - t0 < 8000);
  // nothing more comes for id 2
  m = await s.request({ jsonrpc: '2.0', id: 4, method: 'ping' });
  assert.equal(m.id, 4, JSON.stringify(m));

  // 2. a create whose test spins, cancelled while the test runs
  const t1 = Date.now();
  await s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call',
    params: { name: 'create_tool', arguments: spinManifest('spin_slow',
      [{ name: 'spins', args: { spin: true }, expect: { spun: true } }]) } });
  await new Promise((res) => setTimeout(res, 2500));
  await s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
  m = await s.request({ jsonrpc: '2.0', id: 6, method: 'tools/call',
    params: { name: 'tool_history', arguments: { name: 'spin_slow' } } }, 10000);
  assert.equal(m.id, 6, `the first message after the cancel: ${JSON.stringify(m)}`);
  assert.equal(m.result.isError, true, 'no version of the cancelled create was stored');
  assert.ok(Date.now() - t1 < 15000, `answered after ${Date.now() - t1} ms`);

  const log = await auditLog(home);
  const call = log.find((e) => e.event === 'call_result' && e.tool === 'spin' &&
    e.details.reason === 'cancelled');
  assert.ok(call, 'the cancelled call is logged with reason cancelled');
  const create = log.find((e) => e.event === 'create_cancelled' && e.tool === 'spin_slow');
  assert.ok(create, `no create_cancelled entry: ${JSON.stringify(log.slice(-4))}`);
  assert.ok(!log.find((e) => e.event === 'create' && e.tool === 'spin_slow'),
    'the cancelled create recorded a version');
});
