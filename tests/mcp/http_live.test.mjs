// tests/mcp/http_live.test.mjs: notifications live over Streamable HTTP
// (issue 29; mcp/http_live.c). Raw POSTs read as SSE, each event stamped as
// it arrives:
//  - a create_tool with a progressToken (one of its tests busy for 1.2 s):
//    200 text/event-stream, its progress events in order with a strictly
//    growing progress, the first at least 1 s before the answer, then the
//    answer, then the stream's end;
//  - the same for the log lines after logging/setLevel info (exactly the
//    phases), and a slow call's progress (running 1 s before the answer);
//  - a client that accepts only application/json gets the plain answer
//    (application/json, no notification);
//  - a revoked token's live stream ends within 2.5 s of the revocation,
//    without the answer, while its call would run 4 s more, and that call's
//    run is cancelled (its outcome: reason cancelled, under 3.5 s);
//  - a notifications/cancelled ends a live stream without an answer;
//  - the official SDK client (StreamableHTTPClientTransport) gets a slow
//    call's progress in its onprogress at least 1 s before callTool
//    resolves.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/http_live.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHome, toolgateBin, serveHttp, sseRequest } from './lib.mjs';
import { wcManifest } from './fixtures.mjs';

const run = promisify(execFile);
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const BOTH = 'application/json, text/event-stream';

async function setup(t) {
  const home = tempHome(t);
  await tg(home, 'init');
  writeFileSync(join(home, 'config.json'), '{"property_tests": 0}\n');
  const tok = (await tg(home, 'token', 'add', 'alice')).trim();
  const srv = await serveHttp(home, { t });
  return { home, tok, srv };
}

// One POST; the answer read as it arrives: SSE events each with its
// arrival time, or the whole body.
function post(srv, tok, sid, msg, accept = BOTH) {
  const body = JSON.stringify(msg);
  const headers = { 'Content-Type': 'application/json', Accept: accept, Authorization: `Bearer ${tok}`, 'Content-Length': Buffer.byteLength(body) };
  if (sid) headers['Mcp-Session-Id'] = sid;
  return sseRequest(srv.port, '/mcp', headers, body);
}

async function session(srv, tok) {
  const init = post(srv, tok, null, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'live-test', version: '1' } } }, 'application/json, text/event-stream');
  await init.done;
  assert.equal(init.status, 200, init.text);
  const sid = init.headers['mcp-session-id'];
  const n = post(srv, tok, sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
  await n.done;
  assert.equal(n.status, 202);
  return sid;
}

async function until(pred, ms) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

// word_count with a second test busy for 1.2 s: the create runs that long
// after its build.
function slowManifest(name) {
  const m = wcManifest(name);
  m.tests.push({ name: 'slow', args: { text: 'a b c', sleep_ms: 1200 }, expect: { words: 3 } });
  return m;
}

const callMsg = (id, name, args, meta) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });

// The answer is the last event, every other event a notification before it.
function split(st, id) {
  assert.equal(st.status, 200, st.text);
  assert.match(st.headers['content-type'], /^text\/event-stream/);
  const last = st.events.at(-1);
  assert.equal(last.msg.id, id, st.text);
  assert.ok('result' in last.msg, st.text);
  const notes = st.events.slice(0, -1);
  assert.ok(notes.every((e) => e.msg.method && e.msg.id === undefined), st.text);
  return { notes, answer: last };
}

test('create_tool with a progressToken: progress events arrive while it runs, in order, then the answer', { timeout: 120000 }, async (t) => {
  const { tok, srv } = await setup(t);
  const sid = await session(srv, tok);
  const st = post(srv, tok, sid, callMsg(2, 'create_tool', slowManifest('slow_wc'), { progressToken: 'c1' }));
  await st.done;
  const { notes, answer } = split(st, 2);
  assert.equal(answer.msg.result.isError, undefined, st.text);
  assert.ok(notes.every((e) => e.msg.method === 'notifications/progress' && e.msg.params.progressToken === 'c1'), st.text);
  const p = notes.map((e) => e.msg.params);
  assert.deepEqual(p.map((x) => x.message), [
    'create_tool: started', 'vet: analysing tool.c', 'build: compiling tool.c',
    'test "two words": passed', 'test "slow": passed', 'create_tool: done',
  ]);
  for (let i = 1; i < p.length; i++) assert.ok(p[i].progress > p[i - 1].progress, JSON.stringify(p));
  assert.equal(p.at(-1).progress, p.at(-1).total, JSON.stringify(p));
  // live: the events up to the first test came before the slow test ran
  const firstTest = notes[3];
  console.log(`# create_tool: first progress ${answer.at - notes[0].at} ms, 'test "two words"' ${answer.at - firstTest.at} ms before the answer`);
  assert.ok(answer.at - notes[0].at >= 1000, `first progress ${answer.at - notes[0].at} ms before the answer`);
  assert.ok(answer.at - firstTest.at >= 1000, `first test's progress ${answer.at - firstTest.at} ms before the answer`);
  assert.ok(st.ended >= answer.at);
});

test('logging at info: the phases arrive as log messages while create_tool runs; a slow call\'s progress too', { timeout: 120000 }, async (t) => {
  const { tok, srv } = await setup(t);
  const sid = await session(srv, tok);
  const lv = post(srv, tok, sid, { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'info' } });
  await lv.done;
  assert.equal(lv.status, 200, lv.text);
  const st = post(srv, tok, sid, callMsg(3, 'create_tool', slowManifest('slow_log')));
  await st.done;
  const { notes, answer } = split(st, 3);
  assert.deepEqual(notes.map((e) => [e.msg.method, e.msg.params.level, e.msg.params.logger, e.msg.params.data]), [
    ['notifications/message', 'info', 'create', 'vet: analysing tool.c'],
    ['notifications/message', 'info', 'create', 'build: compiling tool.c'],
    ['notifications/message', 'info', 'create', 'test "two words": passed'],
    ['notifications/message', 'info', 'create', 'test "slow": passed'],
  ]);
  console.log(`# logging: first message ${answer.at - notes[0].at} ms before the answer`);
  assert.ok(answer.at - notes[2].at >= 1000, `${answer.at - notes[2].at} ms`);

  // a call of the tool busy for 1.2 s: its start comes at once
  const call = post(srv, tok, sid, callMsg(4, 'slow_log', { text: 'x y', sleep_ms: 1200 }, { progressToken: 7 }));
  await call.done;
  const c = split(call, 4);
  assert.deepEqual(c.answer.msg.result.structuredContent, { words: 2 });
  const prog = c.notes.filter((e) => e.msg.method === 'notifications/progress');
  assert.deepEqual(prog.map((e) => [e.msg.params.progressToken, e.msg.params.message.replace(/\d+ ms/, 'N ms')]),
    [[7, 'slow_log: started'], [7, 'slow_log v1: running'], [7, 'slow_log v1: ran after N ms'], [7, 'slow_log: done']]);
  for (let i = 1; i < prog.length; i++) assert.ok(prog[i].msg.params.progress > prog[i - 1].msg.params.progress);
  console.log(`# slow call: 'running' ${c.answer.at - prog[1].at} ms before the answer`);
  assert.ok(c.answer.at - prog[1].at >= 1000, `${c.answer.at - prog[1].at} ms`);
});

test('a client that accepts only application/json gets the plain answer', { timeout: 120000 }, async (t) => {
  const { tok, srv } = await setup(t);
  const sid = await session(srv, tok);
  await post(srv, tok, sid, { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } }).done;
  const st = post(srv, tok, sid, callMsg(3, 'create_tool', wcManifest('json_wc'), { progressToken: 'j' }), 'application/json');
  await st.done;
  assert.equal(st.status, 200, st.text);
  assert.match(st.headers['content-type'], /^application\/json/);
  const msg = JSON.parse(st.text);
  assert.equal(msg.id, 3);
  assert.equal(msg.result.isError, undefined, st.text);
  assert.equal(msg.method, undefined);
  assert.equal(st.text.includes('notifications/'), false, st.text);
});

test('a revoked token: its live stream ends at once, without the answer', { timeout: 120000 }, async (t) => {
  const { home, tok, srv } = await setup(t);
  const sid = await session(srv, tok);
  const created = post(srv, tok, sid, callMsg(2, 'create_tool', wcManifest('wc')));
  await created.done;
  assert.equal(JSON.parse(created.text).result.isError, undefined, created.text);
  const st = post(srv, tok, sid, callMsg(3, 'wc', { text: 'a', sleep_ms: 4000 }, { progressToken: 'r' }));
  assert.ok(await until(() => st.events.length >= 1, 4000), 'the first progress came');
  const started = Date.now();
  assert.equal(st.events[0].msg.params.message, 'wc: started');
  await tg(home, 'token', 'revoke', 'alice');
  const revoked = Date.now();
  await st.done;
  console.log(`# revoked: the live stream ended ${st.ended - revoked} ms after the revoke returned`);
  assert.ok(st.ended - revoked < 2500, `${st.ended - revoked} ms`);
  assert.ok(st.ended - started < 3500, 'before the 4 s call could end');
  assert.deepEqual(st.events.filter((e) => e.msg.id !== undefined), [], 'no answer to a revoked token');
  // and the call itself stopped with its authority: the worker's run was
  // cancelled, not run to its end
  let outcome;
  for (const end = Date.now() + 8000; !outcome && Date.now() < end; await sleep(100)) {
    const log = JSON.parse(await tg(home, 'log', '--json', '--limit', '1000'));
    outcome = log.find((e) => e.event === 'call_result' && e.tool === 'wc');
  }
  assert.ok(outcome, 'the call has an outcome');
  assert.equal(outcome.details.reason, 'cancelled', JSON.stringify(outcome));
  assert.equal(outcome.details.ok, false);
  assert.ok(outcome.details.wall_ms < 3500, `the run lasted ${outcome.details.wall_ms} ms of its 4 s`);
});

test('notifications/cancelled ends a live stream without an answer', { timeout: 120000 }, async (t) => {
  const { tok, srv } = await setup(t);
  const sid = await session(srv, tok);
  const created = post(srv, tok, sid, callMsg(2, 'create_tool', wcManifest('wc')));
  await created.done;
  const st = post(srv, tok, sid, callMsg(3, 'wc', { text: 'a', sleep_ms: 4000 }, { progressToken: 'k' }));
  assert.ok(await until(() => st.events.length >= 1, 4000), 'the first progress came');
  const cancelled = Date.now();
  const c = post(srv, tok, sid, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'test' } });
  await c.done;
  assert.equal(c.status, 202);
  await st.done;
  assert.ok(st.ended - cancelled < 2500, `${st.ended - cancelled} ms`);
  assert.deepEqual(st.events.filter((e) => e.msg.id !== undefined), [], 'no answer to a cancelled request');
  assert.equal(st.events[0].msg.params.message, 'wc: started');
});

test('the SDK client: a slow call\'s progress reaches onprogress before callTool resolves', { timeout: 120000 }, async (t) => {
  const { tok, srv } = await setup(t);
  const client = new Client({ name: 'live-sdk', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
  t.after(() => client.close());
  const made = await client.callTool({ name: 'create_tool', arguments: wcManifest('wc') });
  assert.equal(made.isError, undefined, JSON.stringify(made));
  const seen = [];
  const res = await client.callTool({ name: 'wc', arguments: { text: 'a b c', sleep_ms: 1200 } }, undefined,
    { onprogress: (p) => seen.push({ at: Date.now(), p }) });
  const resolved = Date.now();
  assert.deepEqual(res.structuredContent, { words: 3 });
  assert.deepEqual(seen.map((s) => s.p.message.replace(/\d+ ms/, 'N ms')),
    ['wc: started', 'wc v1: running', 'wc v1: ran after N ms', 'wc: done']);
  console.log(`# SDK: onprogress 'running' ${resolved - seen[1].at} ms before callTool resolved`);
  assert.ok(resolved - seen[1].at >= 1000, `${resolved - seen[1].at} ms`);
});
