// tests/mcp/http_load.test.mjs: `serve --http` under hostile load on
// loopback, with real sockets, bounded in count and time (issue 30):
//  - before any token is checked: connections over the per-address limit
//    are refused at once (exactly http_unauth_connections_per_ip stay open);
//    300 idle connections, then 70 reconnecting byte-a-second senders,
//    from other loopback addresses, while a client with a token pings on
//    fresh connections, then the slow senders from the client's own
//    address while it pings on one keep-alive connection: every ping is
//    answered 200, none slower than 2 s;
//    the p50/p99 of each attack are printed (target p99 < 100 ms; the
//    figure itself is bench/mcp/attack.mjs's);
//  - 48 concurrent 4 MiB tools/call bodies with one valid token: every
//    request answered (200, or 503 with Retry-After past the body budget),
//    the server's peak RSS (VmHWM) under 96 MB, and it serves afterwards;
//    three chunked 3.9 MiB bodies held open one after another: the budget
//    (8 MiB) is reserved as they arrive, the third is 503 Retry-After;
//  - the config keys outside their ranges: exit 2 naming the key;
//  - a revoked token's open streams (a 2026-07-28 subscriptions/listen and
//    an initialize-era GET stream) end within a bounded time and carry no
//    list_changed after the revocation, while another principal's stream
//    gets the change; the revoked principal's session is closed (404 with
//    a new token of the same name).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/http_load.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempHome, toolgateBin, serveHttp, sseRequest } from './lib.mjs';
import { META_KEYS, MODERN, wcManifest } from './fixtures.mjs';
import { attackAddrs, idle, ping, pings, slow, summary } from './http_attack.mjs';

const run = promisify(execFile);
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MIB = 1024 * 1024;

async function setup(t, config = {}) {
  const home = tempHome(t);
  await tg(home, 'init');
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const tok = (await tg(home, 'token', 'add', 'alice')).trim();
  const srv = await serveHttp(home, { t });
  return { home, tok, srv };
}

function status(pid, key) {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

test('before any token: per-address limit, 300 idle connections, 70 slow senders', { timeout: 120000 }, async (t) => {
  const { tok, srv } = await setup(t);
  // 30 connections from one address: the default limit of 16 holds
  const socks = [];
  let refused = 0;
  for (let i = 0; i < 30; i++) {
    const s = net.connect({ port: srv.port, host: '127.0.0.1', localAddress: '127.0.0.50' });
    s.on('error', () => {});
    s.on('close', () => refused++);
    socks.push(s);
  }
  await sleep(700);
  assert.equal(refused, 14, 'connections past http_unauth_connections_per_ip (16) closed at once');
  socks.forEach((s) => s.destroy());
  await sleep(200);

  const report = {};
  for (const [name, start, keepAlive] of [
    ['idle x300', () => idle(srv.port, 300, attackAddrs(20))],
    ['slow x70', () => slow(srv.port, 70, attackAddrs(5))],
    // from the client's own address: a client that keeps its connection
    // (as the SDK does) is never evicted once it has shown its token
    ['slow x70 from 127.0.0.1, keep-alive', () => slow(srv.port, 70, ['127.0.0.1']), true],
  ]) {
    // a keep-alive client connects (and shows its token) before the attack
    const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
    if (agent) assert.equal((await ping(srv.port, tok, agent)).status, 200);
    const a = start();
    await sleep(1500); // the attack is in place
    const res = await pings(srv.port, tok, 6000, { agent });
    if (agent) agent.destroy();
    a.stop();
    const s = summary(res);
    report[name] = { ...s, attackers_opened: a.stats.opened };
    console.log(`# ${name}: authenticated ping ${JSON.stringify(report[name])} (ms)`);
    assert.equal(s.ok, s.n, `${name}: every ping answered 200: ${JSON.stringify(res.filter((r) => r.status !== 200).slice(0, 3))}`);
    assert.ok(s.n >= 20, `${name}: ${s.n} pings`);
    assert.ok(s.max < 2000, `${name}: slowest ping ${s.max} ms`);
    await sleep(2500); // the server drops what is left of the attack
  }
  const after = await ping(srv.port, tok);
  assert.equal(after.status, 200);
});

test('48 concurrent 4 MiB tools/call bodies: RSS under 96 MB, every request answered, then served', { timeout: 120000 }, async (t) => {
  // the 48 come from one address: no per-address limit here
  const { tok, srv } = await setup(t, { http_unauth_connections_per_ip: 0 });
  const pid = srv.proc.pid;
  const before = status(pid, 'VmHWM');
  const pad = 'x'.repeat(4 * MIB - 1024);
  // one Buffer for all: the client, one node thread, must send its
  // headers within the server's header deadline on each of the 48 sockets
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: { text: pad }, _meta: META_KEYS() } }));
  assert.ok(body.length <= 4 * MIB);
  const one = () => new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1', port: srv.port, path: '/mcp', method: 'POST', agent: false,
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${tok}`,
        'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'no_such_tool', 'Content-Length': body.length, Connection: 'close',
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, retry: res.headers['retry-after'], text }));
    });
    req.on('error', (e) => resolve({ status: 0, error: e.code }));
    req.setTimeout(60000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
  const res = await Promise.all(Array.from({ length: 48 }, one));
  const peak = status(pid, 'VmHWM');
  const counts = {};
  for (const r of res) counts[r.status] = (counts[r.status] ?? 0) + 1;
  console.log(`# 48 x 4 MiB bodies: server VmHWM ${(before / MIB).toFixed(1)} MiB before, ${(peak / MIB).toFixed(1)} MiB peak, VmRSS after ${(status(pid, 'VmRSS') / MIB).toFixed(1)} MiB; statuses ${JSON.stringify(counts)}`);
  for (const r of res) {
    assert.ok(r.status === 200 || r.status === 503, `status ${r.status} ${r.error ?? ''} ${r.text?.slice(0, 200) ?? ''}`);
    if (r.status === 503) {
      assert.equal(r.retry, '1');
      assert.match(r.text, /budget of request bodies in flight/);
    } else {
      const j = JSON.parse(r.text);
      assert.equal(j.id, 7);
      assert.match(JSON.stringify(j), /no_such_tool/);
    }
  }
  assert.ok(counts[503] > 0, 'some bodies were past the budget');
  assert.ok(counts[200] > 0, 'some were served');
  if (!process.env.TG_SANITIZED) // ASan's shadow memory and quarantine
    assert.ok(peak < 96 * 1000 * 1000, `peak RSS ${peak} bytes`);
  assert.equal((await ping(srv.port, tok)).status, 200);
});

test('chunked bodies reserve the budget as they arrive: of three 3.9 MiB bodies held open one after another, the third is 503', { timeout: 60000 }, async (t) => {
  const { tok, srv } = await setup(t);
  const pid = srv.proc.pid;
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'no_such_tool', arguments: { text: 'y'.repeat(3.9 * MIB) }, _meta: META_KEYS() } }));
  const head = `POST /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${tok}\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: ${MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: no_such_tool\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
  const conns = [];
  for (let i = 0; i < 3; i++) { // one after another: 3.9 + 3.9 fit in 8 MiB, the third does not
    const c = { got: '', closed: null };
    c.sock = net.connect(srv.port, '127.0.0.1');
    c.sock.setEncoding('utf8');
    c.sock.on('data', (d) => { c.got += d; });
    c.sock.on('error', () => {});
    c.closed = new Promise((res) => c.sock.on('close', res));
    c.sock.write(head);
    c.sock.write(`${(body.length - 1).toString(16)}\r\n`);
    c.sock.write(body.subarray(0, body.length - 1));
    c.sock.write('\r\n');
    conns.push(c);
    await sleep(700); // all but its last byte has arrived
  }
  for (const c of conns) c.sock.end(`1\r\n${String.fromCharCode(body[body.length - 1])}\r\n0\r\n\r\n`);
  await Promise.all(conns.map((c) => c.closed));
  const statuses = conns.map((c) => Number(/^HTTP\/1\.1 (\d+) /.exec(c.got)?.[1]));
  console.log(`# three chunked 3.9 MiB bodies: statuses ${statuses}, server VmHWM ${(status(pid, 'VmHWM') / MIB).toFixed(1)} MiB`);
  assert.deepEqual(statuses, [200, 200, 503]);
  assert.match(conns[2].got, /\r\nRetry-After: 1\r\n/i);
  assert.match(conns[2].got, /budget of request bodies in flight/);
  assert.match(conns[0].got, /Unknown tool: no_such_tool/);
  assert.equal((await ping(srv.port, tok)).status, 200);
});

test('the keys of hostile load have floors and ceilings: a value outside is exit 2 naming the key', async (t) => {
  const home = tempHome(t);
  await tg(home, 'init');
  for (const [key, bad, range] of [
    ['http_header_timeout_ms', 99, '100 and 10000'], ['http_header_timeout_ms', 10001, '100 and 10000'],
    ['http_unauth_connections_per_ip', 10001, '0 and 10000'], ['http_auth_reserve_percent', 91, '0 and 90'],
    ['http_body_budget_mb', 0, '1 and 4096'], ['http_body_budget_mb', 4097, '1 and 4096'],
  ]) {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ [key]: bad }));
    const e = await run(toolgateBin(), ['--home', home, 'serve', '--http', '127.0.0.1:0']).then(() => null, (x) => x);
    assert.equal(e?.code, 2, `${key} ${bad}`);
    assert.equal(e.stderr, `toolgate: serve: ${join(home, 'config.json')}: ${key}: must be between ${range}\n`);
  }
});

const sse = sseRequest;

async function until(pred, ms) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) return false;
    await sleep(25);
  }
  return true;
}

async function createTool(home, name) {
  const dir = join(home, '..', `src-${name}`);
  const m = wcManifest(name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.c'), m.source);
  writeFileSync(join(dir, 'tool.json'), JSON.stringify({ ...m, source: 'tool.c' }));
  await tg(home, 'create', dir);
}

test('a revoked token: its open streams end at once, no list_changed after, its session closed', { timeout: 120000 }, async (t) => {
  const { home, tok, srv } = await setup(t, { property_tests: 0 });
  const bob = (await tg(home, 'token', 'add', 'bob')).trim();
  const listen = (token) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META_KEYS() } });
    return sse(srv.port, '/mcp', {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}`,
      'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'subscriptions/listen', 'Content-Length': body.length,
    }, body);
  };
  // alice: an initialize-era session and its GET stream, and a listen
  const init = await fetch(srv.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${tok}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  const get = sse(srv.port, '/mcp', { Accept: 'text/event-stream', Authorization: `Bearer ${tok}`, 'Mcp-Session-Id': sid });
  const aliceListen = listen(tok);
  const bobListen = listen(bob);
  assert.ok(await until(() => aliceListen.events.length === 1 && bobListen.events.length === 1 && get.status === 200, 5000), 'streams open');
  assert.equal(aliceListen.events[0].msg.method, 'notifications/subscriptions/acknowledged');

  const t0 = Date.now();
  await tg(home, 'token', 'revoke', 'alice');
  const revokedAt = Date.now();
  await createTool(home, 'word_count'); // a toolset change right after
  assert.ok(await until(() => bobListen.events.some((e) => e.msg.method === 'notifications/tools/list_changed'), 10000),
    "bob's stream gets the change");
  assert.ok(await until(() => aliceListen.ended && get.ended, 5000), "alice's streams ended");
  console.log(`# revoked token: listen stream ended ${aliceListen.ended - revokedAt} ms, GET stream ${get.ended - revokedAt} ms after the revoke returned (${revokedAt - t0} ms)`);
  assert.ok(aliceListen.ended - revokedAt < 3000 && get.ended - revokedAt < 3000);
  const late = [...aliceListen.events, ...get.events].filter((e) => e.msg.method === 'notifications/tools/list_changed');
  assert.deepEqual(late, [], 'no list_changed to a revoked token');
  assert.equal(bobListen.ended, false, "bob's stream stays open");
  bobListen.req.destroy();

  // the session is gone: a new token of the same name does not find it
  const tok2 = (await tg(home, 'token', 'add', 'alice')).trim();
  const r = await fetch(srv.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${tok2}`, 'Mcp-Session-Id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
  assert.equal(r.status, 404);
  // and the old token is refused
  assert.equal((await ping(srv.port, tok)).status, 401);
});
