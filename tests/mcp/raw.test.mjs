// tests/mcp/raw.test.mjs: protocol errors sent to `toolgate serve` as raw
// lines, asserting the exact JSON-RPC error codes, that notifications are
// never answered and that the server keeps serving after every error.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/raw.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';

function start(t, extra = []) {
  const s = new RawServer(toolgateBin(), ['--home', tempHome(t), 'serve', ...extra]);
  t.after(() => s.proc.kill('SIGKILL'));
  return s;
}

function assertError(msg, code, id) {
  assert.equal(msg.jsonrpc, '2.0');
  assert.equal(msg.error?.code, code, JSON.stringify(msg));
  assert.equal(typeof msg.error.message, 'string');
  assert.equal(msg.result, undefined);
  assert.deepEqual(msg.id, id);
}

async function assertAlive(s, id) {
  const m = await s.request({ jsonrpc: '2.0', id, method: 'ping' });
  assert.deepEqual(m, { jsonrpc: '2.0', id, result: {} });
}

test('handshake: version echoed when spoken, ours otherwise', async (t) => {
  for (const [asked, want] of [['2025-11-25', '2025-11-25'], ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'], ['2024-11-05', '2024-11-05'], ['1999-01-01', '2025-11-25']]) {
    const s = start(t);
    const m = await s.initialize(asked);
    assert.equal(m.id, 'init');
    assert.equal(m.result.protocolVersion, want);
    assert.deepEqual(m.result.capabilities, { tools: { listChanged: true }, logging: {}, resources: {}, prompts: {} });
    assert.equal(m.result.serverInfo.name, 'toolgate');
    assert.equal((await s.close()).code, 0);
  }
});

test('malformed, invalid and unknown messages get the JSON-RPC errors', async (t) => {
  const s = start(t);
  assertError(await s.request('{"jsonrpc":"2.0","id":1,"method":"ping"'), -32700, null);
  assertError(await s.request('not json at all'), -32700, null);
  assertError(await s.request('{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}'), -32700, null);
  await s.write(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"\xff\xfe"}\n', 'latin1'));
  assertError(await s.next(), -32700, null);
  await assertAlive(s, 'a1');
  assertError(await s.request('[{"jsonrpc":"2.0","id":1,"method":"ping"}]'), -32600, null);
  assertError(await s.request('"just a string"'), -32600, null);
  assertError(await s.request({ jsonrpc: '2.0', id: null, method: 'ping' }), -32600, null);
  assertError(await s.request({ jsonrpc: '2.0', id: 1.5, method: 'ping' }), -32600, null);
  assertError(await s.request({ jsonrpc: '1.0', id: 3, method: 'ping' }), -32600, 3);
  assertError(await s.request({ id: 'x', method: 'ping' }), -32600, 'x');
  assertError(await s.request({ jsonrpc: '2.0', id: 4 }), -32600, 4);
  assertError(await s.request({ jsonrpc: '2.0', id: 5, method: 42 }), -32600, 5);
  assertError(await s.request({ jsonrpc: '2.0', id: 6, method: 'ping', params: [1] }), -32602, 6);
  assertError(await s.request({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), -32600, 7); // before initialize
  assertError(await s.request({ jsonrpc: '2.0', id: 8, method: 'no/such/method' }), -32601, 8);
  assertError(await s.request({ jsonrpc: '2.0', id: 9, method: 'initialize', params: {} }), -32602, 9);
  await assertAlive(s, 'a2');
  await s.initialize();
  assertError(await s.request({ jsonrpc: '2.0', id: 10, method: 'initialize', params: { protocolVersion: '2025-11-25' } }), -32600, 10);
  assertError(await s.request({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }), -32602, 11);
  assertError(await s.request({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { arguments: {} } }), -32602, 12);
  assertError(await s.request({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'create_tool', arguments: 'x' } }), -32602, 13);
  assertError(await s.request({ jsonrpc: '2.0', id: 14, method: 'tools/list', params: { cursor: 'not-a-cursor' } }), -32602, 14);
  assertError(await s.request({ jsonrpc: '2.0', id: 15, method: 'completion/complete' }), -32601, 15);
  await assertAlive(s, 'a3');
  assert.equal((await s.close()).code, 0);
});

test('notifications and stray responses are never answered', async (t) => {
  const s = start(t);
  await s.initialize();
  await s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  await s.send({ jsonrpc: '2.0', method: 'no/such/notification' });
  await s.send({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'create_tool', arguments: {} } });
  await s.send({ jsonrpc: '2.0', method: 'ping', params: [1] });
  await s.send({ jsonrpc: '2.0', id: 77, result: {} });
  await s.send('');
  await s.send('   ');
  // The very next message must be the answer to this ping.
  await assertAlive(s, 'after');
  assert.equal((await s.close()).code, 0);
});

test('an oversize message is refused without holding it, then serving goes on', async (t) => {
  const s = start(t);
  await s.initialize();
  const { readFileSync } = await import('node:fs');
  const peakKb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'))[1]);
  const before = peakKb();
  // 24 MiB on one line, written in pieces as the pipe drains.
  const piece = 'x'.repeat(1 << 20);
  await s.write('{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"');
  for (let i = 0; i < 24; i++) await s.write(piece);
  await s.write('"}}\n');
  assertError(await s.next(), -32600, null);
  await assertAlive(s, 'after-big');
  if (!process.env.TG_SANITIZED) {
    // The line buffer stops at the 4 MiB cap plus one read.
    const grew = peakKb() - before;
    assert.ok(grew < 8 * 1024, `peak RSS grew by ${grew} kB over a 24 MiB line`);
  }
  // Just under the cap is served (a 4 MiB line; the cap is 4 MiB).
  const pad = 'y'.repeat((4 << 20) - 100);
  const m = await s.request(`{"jsonrpc":"2.0","id":"near","method":"ping","params":{"pad":"${pad}"}}`);
  assert.deepEqual(m, { jsonrpc: '2.0', id: 'near', result: {} });
  // CRLF line ends are accepted.
  await s.write('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
  assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 'crlf', result: {} });
  assert.equal((await s.close()).code, 0);
});

test('the last line without a newline is still served, then end of input ends the server', async (t) => {
  const s = start(t);
  await s.write('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  s.proc.stdin.end();
  assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 1, result: {} });
  assert.equal((await s.exited).code, 0);
  assert.match(s.stderr, /session [0-9a-f]{32}/);
});

test('bad flags are usage errors (exit 2), before anything is served', async (t) => {
  const { spawnSync } = await import('node:child_process');
  for (const args of [['--max-calls'], ['--max-calls', 'x'], ['--max-creates', '-1'], ['--bogus']]) {
    const r = spawnSync(toolgateBin(), ['--home', tempHome(t), 'serve', ...args], { input: '', encoding: 'utf8' });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^toolgate: serve: /);
    assert.equal(r.stdout, '');
  }
});

test('garbage and truncated messages: one error each, and the server lives on', async (t) => {
  const s = start(t);
  await s.initialize();
  // Every strict prefix of a valid request is a parse error.
  const full = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":"\\u00e9"}]}}}';
  for (let n = 1; n < full.length; n++) {
    assertError(await s.request(full.slice(0, n)), -32700, null);
  }
  // Seeded random bytes (no newline; a non-blank first byte): never valid
  // JSON-RPC, each answered by exactly one error with id null.
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let i = 0; i < 300; i++) {
    const len = 1 + Math.floor(rnd() * 300);
    const bytes = Buffer.alloc(len);
    for (let k = 0; k < len; k++) {
      let b = Math.floor(rnd() * 256);
      if (b === 0x0a) b = 0x41;
      bytes[k] = b;
    }
    if (bytes[0] <= 0x20) bytes[0] = 0x7b; // '{'
    await s.write(Buffer.concat([bytes, Buffer.from('\n')]));
    const m = await s.next();
    assert.ok(m.error && (m.error.code === -32700 || m.error.code === -32600), JSON.stringify(m));
    assert.equal(m.id, null);
  }
  await assertAlive(s, 'survived');
  assert.equal((await s.close()).code, 0);
});
