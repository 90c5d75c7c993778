// tests/mcp/http.test.mjs: `toolgate serve --http` on 127.0.0.1 (a free port
// per test): the official SDK client over Streamable HTTP with a bearer token
// (create, list_changed on the GET stream, call, rollback, budget); raw
// fetch() and sockets for the exact statuses of hostile input (missing,
// forged and revoked tokens, a foreign Origin, a tool the principal may not
// use, header/body mismatches of the 2026-07-28 era, oversized bodies and
// headers, a slow sender, idle connections past the unauthenticated share); and two sessions
// at once where the quick call finishes while the slow one still runs.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/http.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempHome, toolgateBin, serveHttp as serveHttpLib } from './lib.mjs';
import { META_KEYS, MODERN, wcManifest } from './fixtures.mjs';

const run = promisify(execFile);
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;

async function token(home, name, ...opts) {
  return (await tg(home, 'token', 'add', name, ...opts)).trim();
}

// Start the server; resolves with { url, port, proc, stderr() } once listening.
const serve = (t, home, extra = []) => serveHttpLib(home, { extra, t });

const auth = (tok) => ({ Authorization: `Bearer ${tok}` });
const JSONH = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const modernHeaders = (method, tok, v = MODERN) => ({ ...JSONH, ...auth(tok), 'MCP-Protocol-Version': v, 'Mcp-Method': method });
const modern = (id, method, params = {}) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_KEYS() } });

async function post(url, headers, body) {
  const r = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: text ? JSON.parse(text) : undefined };
}

async function sdkClient(t, url, tok) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth(tok) } });
  const client = new Client({ name: 'toolgate-http-test', version: '1.0.0' });
  const changes = { n: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changes.n++; });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, changes, transport };
}

async function until(pred, ms = 10000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('SDK over Streamable HTTP: create, list_changed, call, rollback, budget, audit actor', async (t) => {
  const home = tempHome(t);
  const alice = await token(home, 'alice', '--max-calls', '6');
  const srv = await serve(t, home);
  const { client, changes, transport } = await sdkClient(t, srv.url, alice);
  assert.equal(client.getServerVersion().name, 'toolgate');
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);

  let r = await client.callTool({ name: 'create_tool', arguments: wcManifest() }); // call 1
  assert.equal(r.isError, undefined, JSON.stringify(r));
  await until(() => changes.n > 0); // over the GET SSE stream
  assert.ok((await client.listTools()).tools.some((x) => x.name === 'word_count'));
  r = await client.callTool({ name: 'word_count', arguments: { text: 'a b c' } }); // call 2
  assert.deepEqual(r.structuredContent, { words: 3 });
  r = await client.callTool({ name: 'create_tool', arguments: { ...wcManifest(), description: 'v2' } }); // call 3
  assert.equal(r.isError, undefined, JSON.stringify(r));
  r = await client.callTool({ name: 'rollback_tool', arguments: { name: 'word_count', version: 1 } }); // call 4
  assert.equal(r.isError, undefined, JSON.stringify(r));
  r = await client.callTool({ name: 'word_count', arguments: { text: 'x' } }); // call 5
  assert.deepEqual(r.structuredContent, { words: 1 });
  r = await client.callTool({ name: 'word_count', arguments: { text: 'x' } }); // call 6
  r = await client.callTool({ name: 'word_count', arguments: { text: 'x' } }); // call 7: over budget
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /call budget exhausted: this session allows 6 tool calls/);

  // the budget is the principal's: a second session of alice is over it too
  const second = await sdkClient(t, srv.url, alice);
  r = await second.client.callTool({ name: 'word_count', arguments: { text: 'x' } });
  assert.equal(r.isError, true);

  const entries = JSON.parse(await tg(home, '--json', 'log', '--limit', '500'));
  const mine = entries.filter((e) => String(e.actor).startsWith('mcp:'));
  assert.ok(mine.length >= 7, JSON.stringify(entries.map((e) => [e.actor, e.event])));
  for (const e of mine) assert.match(e.actor, /^mcp:alice:[0-9a-f]{32}$/);
  assert.ok(mine.some((e) => e.event === 'mcp_denied' && e.details.budget === 'calls'));
  await run(toolgateBin(), ['--home', home, 'verify']);
});

test('tokens: missing, forged, revoked are 401 with WWW-Authenticate; metadata per RFC 9728; a foreign Origin is 403', async (t) => {
  const home = tempHome(t);
  const bob = await token(home, 'bob');
  const srv = await serve(t, home);
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const base = srv.url.replace('/mcp', '');

  let r = await post(srv.url, JSONH, init);
  assert.equal(r.status, 401);
  assert.equal(r.headers.get('www-authenticate'), `Bearer realm="toolgate", resource_metadata="${base}/.well-known/oauth-protected-resource"`);
  r = await post(srv.url, { ...JSONH, ...auth('tgt_' + '0'.repeat(48)) }, init);
  assert.equal(r.status, 401);
  assert.equal(r.headers.get('www-authenticate'), `Bearer realm="toolgate", resource_metadata="${base}/.well-known/oauth-protected-resource", error="invalid_token"`);
  r = await post(srv.url, { ...JSONH, Authorization: 'Basic Ym9iOmJvYg==' }, init);
  assert.equal(r.status, 401);

  const meta = await fetch(`${base}/.well-known/oauth-protected-resource`);
  assert.equal(meta.status, 200);
  assert.deepEqual(await meta.json(), {
    resource: srv.url, bearer_methods_supported: ['header'], resource_name: 'toolgate', authorization_servers: [],
    resource_documentation: 'toolgate token add NAME prints a static bearer token',
  });

  r = await post(srv.url, { ...JSONH, ...auth(bob), Origin: 'http://evil.example' }, init);
  assert.equal(r.status, 403);
  assert.equal(r.json.error.code, -32600);
  r = await post(srv.url, { ...JSONH, ...auth(bob), Origin: `http://localhost:${srv.port}` }, init);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('mcp-session-id'), /^[0-9a-f]{32}$/);

  await tg(home, 'token', 'revoke', 'bob');
  r = await post(srv.url, { ...JSONH, ...auth(bob) }, init);
  assert.equal(r.status, 401);

  // the CLI: a taken name, an unknown one, a bad name; the list never shows a token
  const fail = (...a) => run(toolgateBin(), ['--home', home, ...a]).then(() => null, (e) => e);
  await token(home, 'bob');
  let e = await fail('token', 'add', 'bob');
  assert.equal(e.code, 2);
  assert.equal(e.stderr, 'toolgate: token add: token bob already exists (revoke it first)\n');
  e = await fail('token', 'revoke', 'nobody');
  assert.equal(e.code, 2);
  assert.equal(e.stderr, 'toolgate: token revoke: no token named nobody\n');
  e = await fail('token', 'add', 'Bad-Name');
  assert.equal(e.code, 2);
  const list = JSON.parse(await tg(home, '--json', 'token', 'list'));
  assert.deepEqual(list.map((x) => [x.name, x.max_calls, x.tools, x.may_approve]), [['bob', 0, null, false]]);
  assert.ok(!JSON.stringify(list).includes('tgt_'));
  const events = JSON.parse(await tg(home, '--json', 'log')).filter((x) => x.event.startsWith('token_')).map((x) => [x.actor, x.event, x.details.principal]);
  assert.deepEqual(events, [['cli', 'token_add', 'bob'], ['cli', 'token_revoke', 'bob'], ['cli', 'token_add', 'bob']]);
});

test('rights and eras over HTTP: 403 for a tool outside the principal, -32020/-32022/404/400 exactly', async (t) => {
  const home = tempHome(t);
  const carol = await token(home, 'carol', '--tools', 'word_*', 'tool_history');
  const srv = await serve(t, home);
  // modern, stateless
  let r = await post(srv.url, modernHeaders('tools/list', carol), modern(1, 'tools/list'));
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.result.tools.map((x) => x.name), ['tool_history']);
  assert.equal(r.json.result.resultType, 'complete');
  assert.equal(r.json.result.cacheScope, 'private');
  r = await post(srv.url, { ...modernHeaders('tools/call', carol), 'Mcp-Name': 'create_tool' }, modern(2, 'tools/call', { name: 'create_tool', arguments: wcManifest() }));
  assert.equal(r.status, 403);
  assert.equal(r.json.error.code, -32602);
  assert.equal(r.json.error.message, 'Invalid params: principal carol may not use tool create_tool');
  r = await post(srv.url, modernHeaders('tools/list', carol, '2025-11-25'), modern(3, 'tools/list'));
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32020);
  r = await post(srv.url, modernHeaders('tools/call', carol), modern(4, 'tools/list'));
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32020);
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'MCP-Protocol-Version': '1900-01-01', 'Mcp-Method': 'tools/list' },
    { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { ...META_KEYS(), 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.json.error, { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '1900-01-01' } });
  r = await post(srv.url, modernHeaders('completion/complete', carol), modern(6, 'completion/complete'));
  assert.equal(r.status, 404);
  assert.equal(r.json.error.code, -32601);
  // 2026-07-28: no ping (404 -32601); no client capabilities in _meta: 400 -32602
  r = await post(srv.url, modernHeaders('ping', carol), modern(61, 'ping'));
  assert.equal(r.status, 404);
  assert.equal(r.json.error.code, -32601);
  {
    const body = modern(62, 'tools/list');
    delete body.params._meta['io.modelcontextprotocol/clientCapabilities'];
    r = await post(srv.url, modernHeaders('tools/list', carol), body);
    assert.equal(r.status, 400);
    assert.deepEqual(r.json.error, { code: -32602, message: 'Invalid params: tools/list needs _meta io.modelcontextprotocol/clientCapabilities' });
  }
  r = await post(srv.url, modernHeaders('server/discover', carol), modern(7, 'server/discover'));
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.result.supportedVersions, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  // legacy without a session, with an unknown one
  r = await post(srv.url, { ...JSONH, ...auth(carol) }, { jsonrpc: '2.0', id: 8, method: 'tools/list' });
  assert.equal(r.status, 400);
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'Mcp-Session-Id': 'f'.repeat(32) }, { jsonrpc: '2.0', id: 9, method: 'tools/list' });
  assert.equal(r.status, 404);
  // a session of carol is not dave's
  const dave = await token(home, 'dave');
  r = await post(srv.url, { ...JSONH, ...auth(carol) }, { jsonrpc: '2.0', id: 10, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const sid = r.headers.get('mcp-session-id');
  r = await post(srv.url, { ...JSONH, ...auth(dave), 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', id: 11, method: 'tools/list' });
  assert.equal(r.status, 404);
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(r.status, 202);
  // another version spoken here is accepted (the client SHOULD send the
  // negotiated one; only an unsupported one MUST be 400)
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' }, { jsonrpc: '2.0', id: 12, method: 'tools/list' });
  assert.equal(r.status, 200);
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '1999-01-01' }, { jsonrpc: '2.0', id: 12, method: 'tools/list' });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /MCP-Protocol-Version is not a version this server speaks/);
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'Mcp-Session-Id': sid }, '{"jsonrpc":"2.0","id":13,');
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32700);
  const del = await fetch(srv.url, { method: 'DELETE', headers: { ...auth(carol), 'Mcp-Session-Id': sid } });
  assert.equal(del.status, 204);
  r = await post(srv.url, { ...JSONH, ...auth(carol), 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', id: 14, method: 'tools/list' });
  assert.equal(r.status, 404);
});

// Raw bytes on a socket; resolves with what came back when the server closed.
function rawExchange(port, chunks, { gapMs = 0, waitMs = 15000 } = {}) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    const t0 = Date.now();
    sock.setEncoding('latin1');
    sock.on('data', (d) => { got += d; });
    const done = () => resolve({ got, ms: Date.now() - t0 });
    sock.on('close', done);
    sock.on('error', () => {});
    const timer = setTimeout(() => { sock.destroy(); }, waitMs);
    sock.on('close', () => clearTimeout(timer));
    (async () => {
      for (const c of chunks) {
        if (sock.destroyed) return;
        sock.write(c);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    })();
  });
}

test('hostile HTTP input: oversized body and headers, a slow sender, idle connections evicted', async (t) => {
  const home = tempHome(t);
  const eve = await token(home, 'eve');
  const srv = await serve(t, home, ['--max-body', '4096', '--request-timeout-ms', '1500', '--idle-timeout-s', '2', '--max-connections', '4']);
  let r = await post(srv.url, { ...JSONH, ...auth(eve) }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(5000) } }));
  assert.equal(r.status, 413);
  // chunked, no Content-Length: cut while arriving
  const big = 'x'.repeat(8000);
  let x = await rawExchange(srv.port, [`POST /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${eve}\r\nTransfer-Encoding: chunked\r\n\r\n`, `${(big.length).toString(16)}\r\n${big}\r\n0\r\n\r\n`]);
  assert.match(x.got, /^HTTP\/1\.1 413 /);
  x = await rawExchange(srv.port, [`GET /mcp HTTP/1.1\r\nHost: a\r\nX-Pad: ${'p'.repeat(20000)}\r\n\r\n`]);
  assert.match(x.got, /^HTTP\/1\.1 431 /);

  // slowloris: a header byte every 300 ms never completes a request; closed at
  // the header deadline (2 s)
  const slow = rawExchange(srv.port, Array.from({ length: 60 }, (_, i) => (i === 0 ? 'POST /mcp HTTP/1.1\r\n' : 'X')), { gapMs: 300 });
  // meanwhile a normal request is served
  r = await post(srv.url, modernHeaders('server/discover', eve), modern(2, 'server/discover'));
  assert.equal(r.status, 200);
  x = await slow;
  assert.equal(x.got, '');
  assert.ok(x.ms < 8000, `slow sender lived ${x.ms} ms`);

  // four idle connections: unauthenticated ones may hold 3 of the 4 slots
  // (http_auth_reserve_percent 25) and one slot stays free, so the fourth
  // evicts the oldest
  const idle = [];
  let closed = 0;
  for (let i = 0; i < 4; i++) {
    const s = net.connect(srv.port, '127.0.0.1');
    s.on('error', () => {});
    s.on('close', () => closed++);
    await new Promise((res) => s.on('connect', res));
    idle.push(s);
  }
  await new Promise((res) => setTimeout(res, 200));
  assert.equal(closed, 1);
  // a fifth evicts the next oldest and is served at once
  x = await rawExchange(srv.port, [`POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`], { waitMs: 10000 });
  assert.match(x.got, /^HTTP\/1\.1 401 /);
  assert.ok(x.ms < 1000, `served after ${x.ms} ms`);
  assert.equal(closed, 2);
  // the rest go at the header deadline (http_header_timeout_ms, 2 s)
  await Promise.all(idle.map((s) => new Promise((res) => (s.destroyed ? res() : s.on('close', res)))));
  r = await post(srv.url, modernHeaders('server/discover', eve), modern(3, 'server/discover'));
  assert.equal(r.status, 200);
});

test('one server, many sessions: list_changed reaches all; a slow call in one session does not stall another', async (t) => {
  const home = tempHome(t);
  const tok = await token(home, 'team');
  const srv = await serve(t, home, ['--workers', '4']);
  const a = await sdkClient(t, srv.url, tok);
  const b = await sdkClient(t, srv.url, tok);
  // a 2026-07-28 subscriber beside the two initialize-era sessions
  const ctl = new AbortController();
  t.after(() => ctl.abort());
  const listen = await fetch(srv.url, { method: 'POST', signal: ctl.signal, headers: modernHeaders('subscriptions/listen', tok), body: JSON.stringify(modern('L1', 'subscriptions/listen', { notifications: { toolsListChanged: true } })) });
  assert.equal(listen.status, 200);
  assert.equal(listen.headers.get('content-type'), 'text/event-stream');
  const reader = listen.body.getReader();
  let sse = '';
  const sseEvents = () => sse.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  (async () => { for (;;) { const { value, done } = await reader.read().catch(() => ({ done: true })); if (done) return; sse += Buffer.from(value).toString(); } })();

  let r = await a.client.callTool({ name: 'create_tool', arguments: wcManifest() });
  assert.equal(r.isError, undefined, JSON.stringify(r));
  // list_changed reaches every session: a's and b's GET streams, the subscriber
  await until(() => a.changes.n > 0 && b.changes.n > 0 && sseEvents().length >= 2);
  assert.deepEqual(sseEvents().slice(0, 2), [
    { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' }, notifications: { toolsListChanged: true } } },
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' } } },
  ]);
  const order = [];
  const slow = a.client.callTool({ name: 'word_count', arguments: { text: 'slow one', sleep_ms: 4000 } }, undefined, { timeout: 60000 })
    .then((res) => { order.push('slow'); return res; });
  await new Promise((res) => setTimeout(res, 500)); // the slow call is running
  r = await b.client.callTool({ name: 'word_count', arguments: { text: 'quick' } });
  order.push('quick');
  assert.deepEqual(r.structuredContent, { words: 1 });
  assert.deepEqual((await slow).structuredContent, { words: 2 });
  assert.deepEqual(order, ['quick', 'slow']);
});

test('--insecure-no-auth is refused off loopback, and remote addresses need --allow-remote', async (t) => {
  const home = tempHome(t);
  for (const [args, msg] of [
    [['--http', '0.0.0.0:0'], /not a loopback address: serving other machines needs --allow-remote/],
    [['--http', '0.0.0.0:0', '--allow-remote', '--insecure-no-auth'], /--insecure-no-auth is allowed on a loopback address only/],
    [['--allow-remote'], /go with --http/],
  ]) {
    const e = await run(toolgateBin(), ['--home', home, 'serve', ...args]).then(() => null, (err) => err);
    assert.ok(e, 'must fail');
    assert.equal(e.code, 2, e.stderr);
    assert.match(e.stderr, msg);
  }
  const srv = await serve(t, home, ['--insecure-no-auth']);
  assert.match(srv.stderr(), /WARNING: --insecure-no-auth/);
  const r = await post(srv.url, modernHeaders('tools/list', 'none'), modern(1, 'tools/list'));
  assert.equal(r.status, 200);
});

test('SIGTERM stops the server cleanly with streams open', async (t) => {
  const home = tempHome(t);
  const tok = await token(home, 'op');
  const srv = await serve(t, home);
  const { client } = await sdkClient(t, srv.url, tok); // its GET stream is open
  await client.listTools();
  const exited = new Promise((res) => srv.proc.on('exit', (code, signal) => res({ code, signal })));
  const t0 = Date.now();
  srv.proc.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.ok(Date.now() - t0 < 10000);
  assert.match(srv.stderr(), /toolgate: serve: stopped\n$/);
  await run(toolgateBin(), ['--home', home, 'verify']);
});
