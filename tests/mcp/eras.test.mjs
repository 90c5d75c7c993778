// tests/mcp/eras.test.mjs: the older initialize eras (issue 29) on the real
// `toolgate serve`, stdio and HTTP, with exact outcomes:
//  - 2025-03-26 JSON-RPC batches: answered with one array in request order;
//    notifications in a batch answer nothing; each element is served as if
//    alone (a call of an unknown tool, of a pending tool, of a tool the
//    principal may not use, over the session's budget: the same answer as
//    alone) and audited per element; the empty batch, a batch over 64
//    elements, initialize and a 2026-07-28 request inside a batch are
//    -32600 (server/discover is answered); a batch holding
//    only notifications is no answer on stdio and 202 over HTTP; progress
//    notifications of an element come before the array;
//  - batches refused in every other era (2024-11-05, 2025-06-18,
//    2025-11-25) and before initialize, with the exact error;
//  - each era's shapes: no title, outputSchema or structuredContent before
//    2025-06-18 (2025-03-26 has a tool's title in annotations.title), no
//    tool annotations, no audio content (a text block instead) and no
//    progress message in 2024-11-05;
//  - over HTTP an MCP-Protocol-Version header of any spoken version is
//    accepted in a session (the one the conformance suite sends).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/eras.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawServer, serveHttp, toolgateBin } from './lib.mjs';

const run = promisify(execFile);
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;
const BATCH_ERA = '2025-03-26';
const OTHER_ERAS = ['2024-11-05', '2025-06-18', '2025-11-25'];
const WC_TEXT = '{"words":2,"lines":1,"chars":3}';
const PENDING = 'file_stats: file_stats v1 is pending: it waits for a person\'s approval and cannot be ' +
  'called until then (the operator runs `toolgate approve file_stats@1`)';
const outOfEra = (v) => ({ code: -32600, message: `Invalid Request: JSON-RPC batches are part of protocol version 2025-03-26 only (this session: ${v})` });
const AUDIO = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';
const EMPTY = { code: -32600, message: 'Invalid Request: an empty batch' };
const TOO_LONG = { code: -32600, message: 'Invalid Request: a batch holds at most 64 messages (65 sent)' };

let dir;
let home;

// One home for the file: word_count active, wc_typed (word_count with an
// output_schema) and the conformance suite's test_audio_content active, file_stats pending (it asks for workspace:read),
// no property tests (they would only slow the creates down).
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tg-eras-'));
  home = join(dir, 'home');
  mkdirSync(home);
  mkdirSync(join(dir, 'ws'));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ property_tests: 0, workspace: join(dir, 'ws') }));
  await tg(home, 'create', join(SRC, 'examples', 'word_count'));
  await tg(home, 'create', join(SRC, 'examples', 'file_stats'));
  const typed = join(dir, 'wc_typed');
  mkdirSync(typed);
  copyFileSync(join(SRC, 'examples', 'word_count', 'tool.c'), join(typed, 'tool.c'));
  const m = JSON.parse(readFileSync(join(SRC, 'examples', 'word_count', 'tool.json'), 'utf8'));
  const int = { type: 'integer' };
  m.name = 'wc_typed';
  m.output_schema = { type: 'object', properties: { words: int, lines: int, chars: int }, required: ['words'] };
  writeFileSync(join(typed, 'tool.json'), JSON.stringify(m));
  await tg(home, 'create', typed);
  await tg(home, 'create', join(SRC, 'tests', 'conformance', 'tools', 'test_audio_content'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const rpc = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const call = (id, name, args = {}, meta) => rpc(id, 'tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) });
const note = (method) => ({ jsonrpc: '2.0', method });
const noId = ({ id, ...rest }) => rest;

async function stdio(t, version, ...flags) {
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve', ...flags]);
  t.after(() => s.proc.kill('SIGKILL'));
  if (version) {
    const m = await s.initialize(version);
    assert.equal(m.result.protocolVersion, version);
  }
  return s;
}

// The audit entries after seq `from` (toolgate log --json).
async function auditSince(from) {
  return JSON.parse(await tg(home, 'log', '--json')).filter((e) => e.seq > from);
}
const lastSeq = async () => Math.max(0, ...(await auditSince(0)).map((e) => e.seq));
const rows = (entries, tool) => entries.filter((e) => e.tool === tool).map((e) => e.event);

test('stdio 2025-03-26: a batch is answered in order, each element as if alone', async (t) => {
  const s = await stdio(t, BATCH_ERA);
  // alone first
  const seq0 = await lastSeq();
  const wc = await s.request(call(1, 'word_count', { text: 'a b' }));
  const ghost = await s.request(call(2, 'ghost'));
  const pending = await s.request(call(3, 'file_stats', { file: 'x' }));
  assert.deepEqual(wc.result, { content: [{ type: 'text', text: WC_TEXT }] });
  assert.deepEqual(ghost.error, { code: -32602, message: 'Unknown tool: ghost' });
  assert.deepEqual(pending.result, { content: [{ type: 'text', text: PENDING }], isError: true });
  const seq1 = await lastSeq();
  const alone = await auditSince(seq0);

  // then the same three in a batch, with a ping, a notification and
  // elements that are refused on their own
  await s.send([
    rpc('p', 'ping'), note('notifications/initialized'),
    call(11, 'word_count', { text: 'a b' }), call(12, 'ghost'), call(13, 'file_stats', { file: 'x' }),
    42, rpc(14, 'no/such'), rpc(15, 'initialize', { protocolVersion: BATCH_ERA, capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
    rpc(16, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } }),
    rpc(17, 'server/discover', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } }),
  ]);
  const got = await s.next();
  assert.ok(Array.isArray(got), JSON.stringify(got));
  assert.deepEqual(got, [
    { jsonrpc: '2.0', id: 'p', result: {} },
    { ...noId(wc), id: 11 },
    { ...noId(ghost), id: 12 },
    { ...noId(pending), id: 13 },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } },
    { jsonrpc: '2.0', id: 14, error: { code: -32601, message: 'Method not found: no/such' } },
    { jsonrpc: '2.0', id: 15, error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' } },
    { jsonrpc: '2.0', id: 16, error: { code: -32600, message: 'Invalid Request: a 2026-07-28 request cannot be part of a batch' } },
    { jsonrpc: '2.0', id: 17, result: got[8]?.result },
  ]);
  assert.deepEqual(got[8].result.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  // audited per element, as alone
  const batched = await auditSince(seq1);
  assert.deepEqual(rows(batched, 'word_count'), ['call', 'call_result', 'mcp_call']);
  assert.deepEqual(rows(batched, 'word_count'), rows(alone, 'word_count'));
  assert.deepEqual(rows(batched, 'file_stats'), rows(alone, 'file_stats'));
  // the session goes on
  assert.deepEqual(await s.request(rpc('after', 'ping')), { jsonrpc: '2.0', id: 'after', result: {} });
  assert.equal((await s.close()).code, 0);
});

test('stdio 2025-03-26: budgets count each element; progress comes before the array', async (t) => {
  const s = await stdio(t, BATCH_ERA, '--max-calls', '2');
  await s.send([call(1, 'word_count', { text: 'a b' }), call(2, 'word_count', { text: 'a b' }, { progressToken: 'k' }), call(3, 'word_count', { text: 'a b' })]);
  const progress = [];
  let m;
  while (!Array.isArray(m = await s.next())) progress.push(m);
  assert.deepEqual(progress.map((p) => [p.method, p.params.progressToken, p.params.progress]),
    [0, 1, 2, 3].map((i) => ['notifications/progress', 'k', i]));
  assert.equal(progress[0].params.message, 'word_count: started');
  assert.deepEqual(m.map((r) => r.id), [1, 2, 3]);
  assert.deepEqual(m[1].result, { content: [{ type: 'text', text: WC_TEXT }] });
  assert.deepEqual(m[2].result, {
    content: [{ type: 'text', text: 'call budget exhausted: this session allows 2 tool calls (--max-calls / session_max_calls)' }],
    isError: true,
  });
  // alone, past the budget: the same answer
  assert.deepEqual((await s.request(call(4, 'word_count', { text: 'a b' }))).result, m[2].result);
  await s.close();
});

test('stdio: empty, over-long, notification-only batches; the limit is 64', async (t) => {
  const s = await stdio(t, BATCH_ERA);
  assert.deepEqual(await s.request('[]'), { jsonrpc: '2.0', id: null, error: EMPTY });
  const pings = (n) => Array.from({ length: n }, (_, i) => rpc(i, 'ping'));
  assert.deepEqual(await s.request(pings(65)), { jsonrpc: '2.0', id: null, error: TOO_LONG });
  const full = await s.request(pings(64));
  assert.deepEqual(full, pings(64).map((p) => ({ jsonrpc: '2.0', id: p.id, result: {} })));
  // notifications only: no answer at all (the next line is the ping's)
  await s.send([note('notifications/initialized'), note('notifications/whatever')]);
  assert.deepEqual(await s.request(rpc('x', 'ping')), { jsonrpc: '2.0', id: 'x', result: {} });
  await s.close();
});

test('stdio: batches are refused before initialize and in every other era', async (t) => {
  const pre = await stdio(t, null);
  assert.deepEqual(await pre.request([rpc(1, 'ping')]),
    { jsonrpc: '2.0', id: null, error: outOfEra('not initialized') });
  await pre.close();
  for (const v of OTHER_ERAS) {
    const s = await stdio(t, v);
    assert.deepEqual(await s.request([rpc(1, 'ping'), rpc(2, 'ping')]), { jsonrpc: '2.0', id: null, error: outOfEra(v) });
    assert.deepEqual(await s.request('[]'), { jsonrpc: '2.0', id: null, error: outOfEra(v) });
    // nothing of it was served; single requests are
    assert.deepEqual(await s.request(rpc(3, 'ping')), { jsonrpc: '2.0', id: 3, result: {} });
    await s.close();
  }
});

test('stdio: each era\'s shapes', async (t) => {
  for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
    t.after(() => s.proc.kill('SIGKILL'));
    const init = await s.initialize(v);
    const modern = v >= '2025-06-18';
    assert.equal(init.result.serverInfo.title, modern ? 'toolgate' : undefined, v);
    const tools = (await s.request(rpc(1, 'tools/list'))).result.tools;
    const create = tools.find((x) => x.name === 'create_tool');
    const wc = tools.find((x) => x.name === 'word_count');
    const typed = tools.find((x) => x.name === 'wc_typed');
    assert.equal(create.title, modern ? 'Create or update a tool' : undefined, v);
    assert.equal(create.annotations?.title, v === '2025-03-26' ? 'Create or update a tool' : undefined, v);
    assert.equal('outputSchema' in wc, false, v);
    assert.deepEqual(typed.outputSchema?.required, modern ? ['words'] : undefined, v);
    assert.equal('annotations' in wc, v !== '2024-11-05', v);
    const res = (await s.request(call(2, 'word_count', { text: 'a b' }, { progressToken: 'p' })));
    const notes = [];
    let m = res;
    while (m.method) { notes.push(m); m = await s.next(); }
    assert.equal(m.id, 2);
    assert.deepEqual(m.result.structuredContent, modern ? { words: 2, lines: 1, chars: 3 } : undefined, v);
    assert.equal(m.result.content[0].text, WC_TEXT);
    assert.equal(notes.length, 4);
    assert.equal(notes[0].params.message, v === '2024-11-05' ? undefined : 'word_count: started', v);
    const audio = (await s.request(call(5, 'test_audio_content'))).result.content;
    assert.deepEqual(audio, [v === '2024-11-05'
      ? { type: 'text', text: '[audio content (audio/wav) left out: protocol version 2024-11-05 has no audio content]' }
      : { type: 'audio', data: AUDIO, mimeType: 'audio/wav' }], v);
    const prompt = (await s.request(rpc(3, 'prompts/list'))).result.prompts[0];
    assert.equal(prompt.name, 'write_tool');
    assert.equal(prompt.title, modern ? 'Write a toolgate tool' : undefined, v);
    const res0 = (await s.request(rpc(4, 'resources/list'))).result.resources[0];
    assert.equal(res0.uri, 'toolgate://sdk/tool.h');
    assert.equal('title' in res0, modern, v);
    await s.close();
  }
});

// ---- HTTP ----------------------------------------------------------------

const JSONH = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function post(url, headers, body) {
  const r = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: text ? JSON.parse(text) : null };
}

async function session(url, auth, version) {
  const r = await post(url, { ...JSONH, ...auth }, rpc(0, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'eras', version: '1' } }));
  assert.equal(r.json.result.protocolVersion, version);
  const sid = r.headers.get('mcp-session-id');
  const h = { ...JSONH, ...auth, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': version };
  assert.equal((await post(url, h, note('notifications/initialized'))).status, 202);
  return { sid, h };
}

test('HTTP 2025-03-26: batches answered as arrays, each element as alone; refused in 2025-11-25', async (t) => {
  const out = await tg(home, 'token', 'add', 'wc_only', '--tools', 'word_count', 'file_stats');
  const auth = { Authorization: `Bearer ${out.match(/tgt_[0-9a-f]{48}/)[0]}` };
  const srv = await serveHttp(home, { t });
  const { sid, h } = await session(srv.url, auth, BATCH_ERA);
  const actor = `mcp:wc_only:${sid}`;

  // alone: a tool the principal may not use is 403
  const forbidden = await post(srv.url, h, call(1, 'create_tool', {}));
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.json.error.code, -32602);
  const seq0 = await lastSeq();
  let r = await post(srv.url, h, [
    call(2, 'word_count', { text: 'a b' }), note('notifications/initialized'), call(3, 'create_tool', {}),
    call(4, 'file_stats', { file: 'x' }), rpc(5, 'ping'),
  ]);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^application\/json/);
  assert.deepEqual(r.json, [
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: WC_TEXT }] } },
    { ...noId(forbidden.json), id: 3 },
    { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: PENDING }], isError: true } },
    { jsonrpc: '2.0', id: 5, result: {} },
  ]);
  const mine = (await auditSince(seq0)).filter((e) => e.actor === actor);
  assert.deepEqual(rows(mine, 'word_count'), ['call', 'call_result', 'mcp_call']);

  // notifications only: 202, no body
  r = await post(srv.url, h, [note('notifications/initialized'), note('notifications/x')]);
  assert.equal(r.status, 202);
  assert.equal(r.text, '');
  // not batches at all: 400
  r = await post(srv.url, h, '[]');
  assert.equal(r.status, 400);
  assert.deepEqual(r.json.error, EMPTY);
  r = await post(srv.url, h, Array.from({ length: 65 }, (_, i) => rpc(i, 'ping')));
  assert.equal(r.status, 400);
  assert.deepEqual(r.json.error, TOO_LONG);

  // 2025-11-25: refused; its session accepts a 2025-03-26 header (a version
  // spoken here) for single requests, but keeps its own era
  const late = await session(srv.url, auth, '2025-11-25');
  r = await post(srv.url, late.h, [rpc(1, 'ping')]);
  assert.equal(r.status, 400);
  assert.deepEqual(r.json, { jsonrpc: '2.0', id: null, error: outOfEra('2025-11-25') });
  r = await post(srv.url, { ...late.h, 'MCP-Protocol-Version': BATCH_ERA }, call(2, 'word_count', { text: 'a b' }));
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.result.structuredContent, { words: 2, lines: 1, chars: 3 });
  r = await post(srv.url, { ...late.h, 'MCP-Protocol-Version': BATCH_ERA }, [rpc(3, 'ping')]);
  assert.deepEqual(r.json.error, outOfEra('2025-11-25'));
});
