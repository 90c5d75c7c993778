// tests/mcp/modern.test.mjs: the 2026-07-28 era of `toolgate serve` on stdio,
// in raw JSON-RPC lines (the SDK installed speaks only the initialize era):
// server/discover answered exactly, -32022 for an unsupported version, no
// handshake needed, resultType on every result, ttlMs/cacheScope and a
// sorted tools/list, subscriptions/listen acknowledged and fed list_changed,
// and both eras in one process.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/modern.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';
import { META_KEYS, MODERN, wcManifest } from './fixtures.mjs';

function start(t) {
  const s = new RawServer(toolgateBin(), ['--home', tempHome(t), 'serve']);
  t.after(() => s.proc.kill('SIGKILL'));
  return s;
}
const req = (id, method, params = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_KEYS() } });
const META = ['create_tool', 'list_tool_versions', 'rollback_tool', 'run_program', 'tool_history'];
const SUPPORTED = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

test('server/discover: exact answer before any handshake; without _meta it is -32602 (SEP-2575)', async (t) => {
  const s = start(t);
  const m = await s.request(req('d1', 'server/discover'));
  const version = m.result._meta['io.modelcontextprotocol/serverInfo'].version;
  assert.deepEqual(m, {
    jsonrpc: '2.0', id: 'd1',
    result: {
      resultType: 'complete', supportedVersions: SUPPORTED,
      capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolgate', title: 'toolgate', version } },
      instructions: m.result.instructions, ttlMs: 0, cacheScope: 'public',
    },
  });
  assert.match(version, /^\d+\.\d+\.\d+$/);
  assert.match(m.result.instructions, /create_tool/);
  assert.deepEqual(await s.request({ jsonrpc: '2.0', id: 2, method: 'server/discover' }),
    { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: server/discover needs _meta io.modelcontextprotocol/protocolVersion' } });
  assert.equal((await s.close()).code, 0);
});

test('an unsupported version is -32022 with the supported list; the process keeps serving', async (t) => {
  const s = start(t);
  for (const v of ['1900-01-01', '2025-11-25']) {
    const m = await s.request({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { ...META_KEYS(), 'io.modelcontextprotocol/protocolVersion': v } } });
    assert.deepEqual(m, { jsonrpc: '2.0', id: 7, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: SUPPORTED, requested: v } } });
  }
  const bad = await s.request({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 5 } } });
  assert.equal(bad.error.code, -32602);
  const listen = await s.request({ jsonrpc: '2.0', id: 9, method: 'subscriptions/listen', params: { notifications: {} } });
  assert.equal(listen.error.code, -32602); // no _meta version
  const nf = await s.request(req(10, 'resources/subscribe', { uri: 'toolgate://policy' }));
  assert.deepEqual(nf.error.code, -32601);
  // no ping in this era; every request carries its client's capabilities
  assert.deepEqual(await s.request(req(11, 'ping')),
    { jsonrpc: '2.0', id: 11, error: { code: -32601, message: 'Method not found: ping' } });
  const nocaps = { ...META_KEYS() };
  delete nocaps['io.modelcontextprotocol/clientCapabilities'];
  assert.deepEqual(await s.request({ jsonrpc: '2.0', id: 12, method: 'tools/list', params: { _meta: nocaps } }),
    { jsonrpc: '2.0', id: 12, error: { code: -32602, message: 'Invalid params: tools/list needs _meta io.modelcontextprotocol/clientCapabilities' } });
  assert.equal((await s.close()).code, 0);
});

test('modern session: list, create, subscription list_changed, call; a legacy session in the same process', async (t) => {
  const s = start(t);
  let m = await s.request(req(1, 'tools/list'));
  assert.equal(m.result.resultType, 'complete');
  assert.equal(m.result.ttlMs, 0);
  assert.equal(m.result.cacheScope, 'private');
  assert.deepEqual(m.result.tools.map((x) => x.name), META); // sorted, deterministic

  m = await s.request(req('L', 'subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: true } }));
  assert.deepEqual(m, {
    jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' }, notifications: { toolsListChanged: true } },
  });

  m = await s.request(req(2, 'tools/call', { name: 'create_tool', arguments: wcManifest() }), 60000);
  assert.equal(m.id, 2, JSON.stringify(m));
  assert.equal(m.result.resultType, 'complete');
  assert.equal(m.result.isError, undefined, JSON.stringify(m));
  m = await s.next();
  assert.deepEqual(m, { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } } });

  m = await s.request(req(3, 'tools/call', { name: 'word_count', arguments: { text: 'one two three' } }), 30000);
  assert.deepEqual(m.result.structuredContent, { words: 3 });
  assert.equal(m.result.resultType, 'complete');

  // the legacy era in the same process: no resultType there
  m = await s.initialize();
  assert.equal(m.result.protocolVersion, '2025-11-25');
  m = await s.request({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
  assert.equal(m.result.resultType, undefined);
  assert.deepEqual(m.result.tools.map((x) => x.name), [...META, 'word_count'].sort());

  // cancelled subscription: no more notifications for it
  await s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L' } });
  assert.equal((await s.close()).code, 0);
});
