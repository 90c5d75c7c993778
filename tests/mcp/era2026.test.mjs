// tests/mcp/era2026.test.mjs: what the pre-release conformance suite
// (tests/conformance/2026) asks of the 2026-07-28 era, in raw HTTP with exact
// statuses and bodies: a request without _meta, without its protocol version
// or without client capabilities is 400 with -32602 (SEP-2575), server/discover
// included; the methods the era removed are 404 with -32601; resources,
// resource templates and prompts are served, each list and resources/read
// with a cache hint (SEP-2549), a missing resource is -32602 naming the uri
// (SEP-2164); Mcp-Name must carry the body's name or uri, trimmed, plain or
// =?base64?...?= (SEP-2243), else 400 with -32020; log messages only for a
// request whose _meta names a logLevel (no logging/setLevel in the era).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/era2026.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RawServer, tempHome, toolgateBin, serveHttp } from './lib.mjs';
import { META_KEYS, MODERN, wcManifest } from './fixtures.mjs';

const run = promisify(execFile);
const JSONH = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function start(t) {
  const home = tempHome(t);
  const tok = (await run(toolgateBin(), ['--home', home, 'token', 'add', 'erin'])).stdout.trim();
  const srv = await serveHttp(home, { t });
  // one request: method, params (with _meta unless given), extra headers
  const rpc = async (id, method, params = {}, headers = {}, meta = META_KEYS()) => {
    const body = { jsonrpc: '2.0', id, method, params: meta ? { ...params, _meta: meta } : params };
    const r = await fetch(srv.url, {
      method: 'POST',
      headers: { ...JSONH, Authorization: `Bearer ${tok}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, ...headers },
      body: JSON.stringify(body),
    });
    return { status: r.status, json: await r.json() };
  };
  rpc.url = srv.url;
  rpc.tok = tok;
  return rpc;
}

test('SEP-2575: server/discover and the others without _meta, its version or client capabilities: 400, -32602', async (t) => {
  const rpc = await start(t);
  const noCaps = { ...META_KEYS() };
  delete noCaps['io.modelcontextprotocol/clientCapabilities'];
  const noVersion = { ...META_KEYS() };
  delete noVersion['io.modelcontextprotocol/protocolVersion'];
  const V = 'io.modelcontextprotocol/protocolVersion';
  const C = 'io.modelcontextprotocol/clientCapabilities';
  const cases = [
    [101, 'server/discover', null, `Invalid params: server/discover needs _meta ${V}`],
    [102, 'server/discover', noVersion, `Invalid params: server/discover needs _meta ${V}`],
    [104, 'server/discover', noCaps, `Invalid params: server/discover needs _meta ${C}`],
    [105, 'resources/list', noCaps, `Invalid params: resources/list needs _meta ${C}`],
  ];
  for (const [id, method, meta, message] of cases) {
    const r = await rpc(id, method, {}, {}, meta);
    assert.equal(r.status, 400, method);
    assert.deepEqual(r.json, { jsonrpc: '2.0', id, error: { code: -32602, message } });
  }
  // clientInfo is optional
  const info = { ...META_KEYS() };
  delete info['io.modelcontextprotocol/clientInfo'];
  const ok = await rpc(106, 'server/discover', {}, {}, info);
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json.result.capabilities, { tools: { listChanged: true }, resources: {}, prompts: {} });
});

test('SEP-2575: the methods the era removed and unknown ones are 404 with -32601 and the request id', async (t) => {
  const rpc = await start(t);
  for (const [i, method] of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'completion/complete', 'unknown/method'].entries()) {
    const r = await rpc(500 + i, method);
    assert.equal(r.status, 404, method);
    assert.deepEqual(r.json, { jsonrpc: '2.0', id: 500 + i, error: { code: -32601, message: `Method not found: ${method}` } });
  }
});

test('resources, templates and prompts in the 2026-07-28 era, with cache hints (SEP-2549, SEP-2164)', async (t) => {
  const rpc = await start(t);
  const hint = { ttlMs: 0, cacheScope: 'public', resultType: 'complete' };
  let r = await rpc(1, 'resources/list');
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.result.resources.map((x) => x.uri), ['toolgate://sdk/tool.h', 'toolgate://docs/SDK.md', 'toolgate://policy']);
  assert.deepEqual({ ...r.json.result, resources: undefined }, { ...hint, resources: undefined });

  r = await rpc(2, 'resources/templates/list');
  assert.deepEqual(r, { status: 200, json: { jsonrpc: '2.0', id: 2, result: { resourceTemplates: [], ...hint } } });

  r = await rpc(3, 'resources/read', { uri: 'toolgate://sdk/tool.h' }, { 'Mcp-Name': 'toolgate://sdk/tool.h' });
  assert.equal(r.status, 200);
  assert.equal(r.json.result.contents.length, 1);
  assert.equal(r.json.result.contents[0].mimeType, 'text/x-c');
  assert.match(r.json.result.contents[0].text, /tg_tool_read_args/);
  assert.equal(r.json.result.ttlMs, 0);
  assert.equal(r.json.result.cacheScope, 'public');

  const missing = 'test://nonexistent';
  r = await rpc(4, 'resources/read', { uri: missing }, { 'Mcp-Name': missing });
  assert.equal(r.status, 200); // a JSON-RPC error of a served request
  assert.deepEqual(r.json, { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Resource not found', data: { uri: missing } } });

  r = await rpc(5, 'prompts/list');
  assert.deepEqual(r.json.result.prompts.map((p) => p.name), ['write_tool']);
  assert.equal(r.json.result.ttlMs, 0);
  assert.equal(r.json.result.cacheScope, 'public');
  r = await rpc(6, 'prompts/get', { name: 'write_tool', arguments: { task: 'count words' } }, { 'Mcp-Name': 'write_tool' });
  assert.equal(r.status, 200);
  assert.equal(r.json.result.resultType, 'complete');
  assert.match(r.json.result.messages[0].content.text, /that does this: "count words"/);
  r = await rpc(7, 'prompts/get', { name: 'nope' }, { 'Mcp-Name': 'nope' });
  assert.deepEqual(r.json.error, { code: -32602, message: 'Invalid params: unknown prompt (the prompts: write_tool)' });
});

test('SEP-2243: Mcp-Name must carry the body name or uri: missing or different is 400 -32020; whitespace and base64 are fine', async (t) => {
  const rpc = await start(t);
  const call = (id, headers) => rpc(id, 'tools/call', { name: 'tool_history', arguments: { name: 'none' } }, headers);
  const mismatch = (id, what) => ({ status: 400, json: { jsonrpc: '2.0', id, error: { code: -32020, message: `Header mismatch: Mcp-Name ${what}` } } });
  assert.deepEqual(await call(1, {}), mismatch(1, "is missing; it must equal the body's params.name"));
  assert.deepEqual(await call(2, { 'Mcp-Name': 'wrong_tool_name' }), mismatch(2, "does not match the body's params.name"));
  assert.deepEqual(await call(3, { 'Mcp-Name': 'TOOL_HISTORY' }), mismatch(3, "does not match the body's params.name"));
  assert.deepEqual(await call(4, { 'Mcp-Name': '=?base64?dG9vbF9oaXN0b3J5X?=' }), mismatch(4, "does not match the body's params.name"));
  for (const [id, v] of [[5, '  tool_history  '], [6, 'tool_history'], [7, `=?base64?${Buffer.from('tool_history').toString('base64')}?=`]]) {
    const r = await call(id, { 'Mcp-Name': v });
    assert.equal(r.status, 200, v);
    assert.equal(r.json.result.resultType, 'complete', v);
  }
  const r = await rpc(8, 'resources/read', { uri: 'toolgate://policy' }, { 'Mcp-Name': 'toolgate://sdk/tool.h' });
  assert.deepEqual(r, mismatch(8, "does not match the body's params.uri"));
  // a method value differing in case is a mismatch too
  const m = await rpc(9, 'tools/list', {}, { 'Mcp-Method': 'TOOLS/LIST' });
  assert.deepEqual(m, { status: 400, json: { jsonrpc: '2.0', id: 9, error: { code: -32020, message: "Header mismatch: Mcp-Method does not match the body's method" } } });
});

test('2026-07-28 logging is the request\'s: notifications/message only with _meta logLevel, at or above it; a bad level is 400 -32602', async (t) => {
  const rpc = await start(t);
  const LL = 'io.modelcontextprotocol/logLevel';
  const broken = { ...wcManifest('broken'), source: '#include <toolgate/tool.h>\nint main(void) { return nope; }\n' };
  const create = (id, meta) => fetch(rpc.url, {
    method: 'POST',
    headers: { ...JSONH, Authorization: `Bearer ${rpc.tok}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'create_tool' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_tool', arguments: broken, _meta: meta } }),
  }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), text: await r.text() }));
  const events = (text) => text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));

  let r = await create(1, META_KEYS({ [LL]: 'info' }));
  assert.equal(r.status, 200);
  assert.equal(r.type, 'text/event-stream');
  let ev = events(r.text);
  const logs = ev.filter((m) => m.method === 'notifications/message');
  assert.deepEqual(logs[0], { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'create', data: 'vet: analysing tool.c' } });
  assert.ok(logs.some((m) => m.params.level === 'error'), JSON.stringify(logs));
  assert.ok(logs.every((m) => m.params.level !== 'debug'));
  assert.equal(ev.at(-1).id, 1);
  assert.equal(ev.at(-1).result.isError, true);

  r = await create(2, META_KEYS({ [LL]: 'error' }));
  ev = events(r.text);
  assert.ok(ev.length > 1);
  assert.deepEqual([...new Set(ev.filter((m) => m.method).map((m) => m.params.level))], ['error']);

  r = await create(3, META_KEYS());
  assert.equal(r.type, 'application/json');
  const m = JSON.parse(r.text);
  assert.equal(m.id, 3);
  assert.equal(m.result.isError, true);

  r = await create(4, META_KEYS({ [LL]: 'loud' }));
  assert.equal(r.status, 400);
  assert.deepEqual(JSON.parse(r.text), { jsonrpc: '2.0', id: 4, error: { code: -32602, message: `Invalid params: _meta ${LL} must be one of debug, info, notice, warning, error, critical, alert, emergency` } });
});

test('stdio: a 2026-07-28 request\'s logLevel is its own; an initialize-era session in the same process keeps the level it set', async (t) => {
  const s = new RawServer(toolgateBin(), ['--home', tempHome(t), 'serve']);
  t.after(() => s.proc.kill('SIGKILL'));
  const broken = { ...wcManifest('broken'), source: '#include <toolgate/tool.h>\nint main(void) { return nope; }\n' };
  const until = async (id) => { const got = []; for (;;) { const m = await s.next(30000); got.push(m); if (m.id === id) return got; } };
  await s.initialize();
  assert.deepEqual(await s.request({ jsonrpc: '2.0', id: 'lv', method: 'logging/setLevel', params: { level: 'error' } }), { jsonrpc: '2.0', id: 'lv', result: {} });
  // modern, at info: info lines before its answer
  await s.send({ jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: { name: 'create_tool', arguments: broken, _meta: META_KEYS({ 'io.modelcontextprotocol/logLevel': 'info' }) } });
  let got = await until('m1');
  assert.deepEqual(got[0].params, { level: 'info', logger: 'create', data: 'vet: analysing tool.c' });
  // modern without a level: nothing but the answer
  await s.send({ jsonrpc: '2.0', id: 'm2', method: 'tools/call', params: { name: 'create_tool', arguments: broken, _meta: META_KEYS() } });
  got = await until('m2');
  assert.equal(got.length, 1);
  // the session's own level is still error
  await s.send({ jsonrpc: '2.0', id: 'l1', method: 'tools/call', params: { name: 'create_tool', arguments: broken } });
  got = await until('l1');
  assert.ok(got.length > 1);
  assert.deepEqual([...new Set(got.filter((m) => m.method === 'notifications/message').map((m) => m.params.level))], ['error']);
  assert.equal((await s.close()).code, 0);
});

test('SEP-2243 x-mcp-header: create_tool refuses the keyword, so no tool advertises a header parameter the server would not check', async (t) => {
  const rpc = await start(t);
  const m = wcManifest('routed');
  m.input_schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, additionalProperties: false };
  const r = await rpc(1, 'tools/call', { name: 'create_tool', arguments: m }, { 'Mcp-Name': 'create_tool' });
  assert.equal(r.status, 200);
  assert.equal(r.json.result.isError, true);
  assert.match(r.json.result.content[0].text, /input_schema\.properties\.region\.x-mcp-header: unknown keyword \(toolgate refuses what it would not enforce/);
  const list = await rpc(2, 'tools/list');
  assert.deepEqual(list.json.result.tools.filter((x) => x.name === 'routed'), []);
});
