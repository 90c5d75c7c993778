// tests/badinput/mcp.test.mjs: every MCP method and every meta-tool of the
// real `toolgate serve` with missing, wrong-typed, oversized and malformed
// arguments. Each request must get exactly one answer carrying its id: the
// JSON-RPC error with the expected code for protocol-level faults, or a
// tools/call result with isError:true and a one-line text for a tool-level
// fault. Afterwards the home must be unchanged: `--json list`, `--json
// history` of every tool and `git for-each-ref` of the store are identical,
// and the audit log only gained the session's own mcp_* entries.
// Run: TOOLGATE=build/cli/toolgate node --test tests/badinput/mcp.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const tg = process.env.TOOLGATE;
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'reliability', 'fixtures');

function run(home, args, input) {
  return spawnSync(tg, ['--home', home, ...args], { input, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120000 });
}

function snapshot(home) {
  const j = (args) => run(home, ['--json', ...args]).stdout;
  return {
    state: j(['list']) + j(['history', 'rel_tool']) + j(['history', 'rel_cap']) +
      execFileSync('git', ['--git-dir', join(home, 'store.git'), 'for-each-ref',
        '--format=%(refname) %(objectname)'], { encoding: 'utf8' }),
    log: JSON.parse(j(['log'])),
  };
}

function setup(t) {
  assert.ok(tg, 'TOOLGATE must name the toolgate binary');
  const dir = mkdtempSync(join(tmpdir(), 'tg_badmcp.'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  assert.equal(run(home, ['init']).status, 0);
  mkdirSync(join(dir, 'ws'));
  writeFileSync(join(home, 'config.json'), JSON.stringify({ workspace: join(dir, 'ws') }));
  assert.equal(run(home, ['create', join(fixtures, 'good')]).status, 0);
  assert.equal(run(home, ['create', join(fixtures, 'bad_test')]).status, 1);
  assert.equal(run(home, ['create', join(fixtures, 'cap')]).status, 0); // pending
  return home;
}

const init = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'badinput', version: '1' } } };
const ready = { jsonrpc: '2.0', method: 'notifications/initialized' };

// Run one session with the given messages (objects or raw strings); answers by id.
function session(home, msgs, extra = []) {
  const lines = [init, ready, ...msgs].map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
  const r = run(home, ['serve', ...extra], lines.join('\n') + '\n');
  assert.equal(r.status, 0, r.stderr);
  const answers = new Map();
  for (const line of r.stdout.split('\n').filter((l) => l)) {
    const m = JSON.parse(line);
    assert.equal(m.jsonrpc, '2.0');
    if (m.method) continue; // a notification
    const key = JSON.stringify(m.id);
    if (process.env.TG_DEBUG) console.log(line.slice(0, 300));
    assert.ok(!answers.has(key), `two answers for id ${key}`);
    answers.set(key, m);
  }
  return answers;
}

const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const big = (n) => 'x'.repeat(n);
const src = readFileSync(join(fixtures, 'good', 'tool.c'), 'utf8');
const manifest = (over) => ({
  name: 'rel_new', description: 'd', input_schema: { type: 'object', properties: {} }, source: src,
  tests: [{ name: 't', args: {}, expect: { v: 1 } }], ...over,
});

// [id, message, expected]: expected is a JSON-RPC error code or 'tool' (isError result)
const cases = [
  // protocol level, every method
  ['m1', { jsonrpc: '2.0', id: 'm1', method: 'initialize', params: { protocolVersion: 5 } }, -32600],
  ['m2', { jsonrpc: '2.0', id: 'm2', method: 'tools/list', params: { cursor: 5 } }, -32602],
  ['m3', { jsonrpc: '2.0', id: 'm3', method: 'tools/list', params: { cursor: big(10000) } }, -32602],
  ['m4', { jsonrpc: '2.0', id: 'm4', method: 'tools/list', params: { cursor: 'tg1.zz' } }, -32602],
  ['m5', { jsonrpc: '2.0', id: 'm5', method: 'tools/list', params: 'x' }, -32600],
  ['m6', { jsonrpc: '2.0', id: 'm6', method: 'tools/call' }, -32602],
  ['m7', { jsonrpc: '2.0', id: 'm7', method: 'tools/call', params: {} }, -32602],
  ['m8', { jsonrpc: '2.0', id: 'm8', method: 'tools/call', params: { name: 5 } }, -32602],
  ['m9', { jsonrpc: '2.0', id: 'm9', method: 'tools/call', params: { name: big(100000) } }, -32602],
  ['m10', call('m10', 'no_such_tool', {}), -32602],
  // a pending tool: an error result naming its approval (tests/mcp/papercuts.test.mjs)
  ['m11', call('m11', 'rel_cap', {}), 'tool'],
  ['m12', call('m12', 'rel_tool', [1]), -32602],
  ['m13', call('m13', 'rel_tool', 'x'), -32602],
  ['m14', call('m14', 'rel_tool', null), -32602],
  ['m15', { jsonrpc: '2.0', id: 'm15', method: 'resources/read', params: { uri: 'file:///etc/passwd' } }, -32002], // only toolgate:// resources: never a host file
  ['m16', { jsonrpc: '2.0', id: 'm16', method: 'ping', params: 5 }, -32600],
  ['m17', { jsonrpc: '2.0', id: 'm17', method: 'tools/call', params: { name: 'rel_tool', arguments: {}, _meta: 5 } }, 'any'],
  // a registered tool with arguments its schema refuses (properties {} allows extras: use types)
  ['t1', call('t1', 'rel_tool', { [big(200)]: big(600000) }), 'any'],
  // create_tool: missing, wrong-typed, oversized, malformed
  ['c1', call('c1', 'create_tool', {}), 'tool'],
  ['c2', call('c2', 'create_tool', manifest({ name: 5 })), 'tool'],
  ['c3', call('c3', 'create_tool', manifest({ name: 'Bad-Name' })), 'tool'],
  ['c4', call('c4', 'create_tool', manifest({ name: 'create_tool' })), 'tool'],
  ['c5', call('c5', 'create_tool', manifest({ description: 5 })), 'tool'],
  ['c6', call('c6', 'create_tool', manifest({ description: big(5000) })), 'tool'],
  ['c7', call('c7', 'create_tool', manifest({ source: 5 })), 'tool'],
  ['c8', call('c8', 'create_tool', manifest({ source: '' })), 'tool'],
  ['c9', call('c9', 'create_tool', manifest({ source: src + '/*' + big(270000) + '*/\n' })), 'tool'],
  ['c11', call('c11', 'create_tool', manifest({ source: src + '/* \u001b[2J */\n' })), 'tool'],
  ['c12', call('c12', 'create_tool', manifest({ tests: 'x' })), 'tool'],
  ['c13', call('c13', 'create_tool', manifest({ tests: [] })), 'tool'],
  ['c14', call('c14', 'create_tool', manifest({ tests: Array.from({ length: 101 }, (_, i) => ({ name: 't' + i, args: {}, expect: 1 })) })), 'tool'],
  ['c15', call('c15', 'create_tool', manifest({ input_schema: { type: 'string' } })), 'tool'],
  ['c16', call('c16', 'create_tool', manifest({ input_schema: { type: 'object', pattern: 'x' } })), 'tool'],
  ['c17', call('c17', 'create_tool', manifest({ limits: { timeout_ms: -1 } })), 'tool'],
  ['c18', call('c18', 'create_tool', manifest({ limits: { memory_mb: 1e12 } })), 'tool'],
  ['c19', call('c19', 'create_tool', manifest({ capabilities: ['network'] })), 'tool'],
  ['c20', call('c20', 'create_tool', manifest({ capabilities: 'workspace:read' })), 'tool'],
  ['c21', call('c21', 'create_tool', manifest({ run_as: 'root' })), 'tool'],
  ['c22', call('c22', 'create_tool', manifest({ description: 'a\u202eb' })), 'tool'],
  // rollback_tool
  ['r1', call('r1', 'rollback_tool', {}), 'tool'],
  ['r2', call('r2', 'rollback_tool', { name: 5 }), 'tool'],
  ['r3', call('r3', 'rollback_tool', { name: 'no_such' }), 'tool'],
  ['r4', call('r4', 'rollback_tool', { name: 'rel_tool', version: -1 }), 'tool'],
  ['r5', call('r5', 'rollback_tool', { name: 'rel_tool', version: '1' }), 'tool'],
  ['r7', call('r7', 'rollback_tool', { name: 'rel_tool', version: 4294967297 }), 'tool'],
  ['r8', call('r8', 'rollback_tool', { name: 'rel_tool', version: 2 }), 'tool'], // failed
  ['r9', call('r9', 'rollback_tool', { name: 'rel_tool', version: 1 }), 'any'], // active: idempotent
  ['r10', call('r10', 'rollback_tool', { name: 'rel_tool' }), 'tool'], // nothing earlier
  ['r11', call('r11', 'rollback_tool', { name: 'rel_cap', version: 1 }), 'tool'], // pending
  ['r12', call('r12', 'rollback_tool', { name: 'rel_tool', extra: 1 }), 'tool'],
  ['r13', call('r13', 'rollback_tool', { name: big(100000) }), 'tool'],
  // tool_history and list_tool_versions
  ['h1', call('h1', 'tool_history', {}), 'tool'],
  ['h2', call('h2', 'tool_history', { name: ['rel_tool'] }), 'tool'],
  ['h3', call('h3', 'tool_history', { name: 'no_such' }), 'tool'],
  ['h4', call('h4', 'tool_history', { name: 'rel_tool', x: 1 }), 'tool'],
  ['l1', call('l1', 'list_tool_versions', {}), 'tool'],
  ['l2', call('l2', 'list_tool_versions', { name: null }), 'tool'],
  ['l3', call('l3', 'list_tool_versions', { name: 'Bad\nName' }), 'tool'],
  ['l4', call('l4', 'list_tool_versions', { name: big(70) }), 'tool'],
];

test('bad input to every method and meta-tool: the right error, nothing changed', (t) => {
  const home = setup(t);
  const before = snapshot(home);
  const answers = session(home, cases.map((c) => c[1]));
  for (const [id, msg, want] of cases) {
    const a = answers.get(JSON.stringify(id));
    assert.ok(a, `${id}: no answer to ${JSON.stringify(msg).slice(0, 200)}`);
    if (want === 'any') {
      assert.ok(a.error || a.result, `${id}: neither error nor result`);
      if (a.result) assert.ok(a.result.content || a.result.structuredContent, `${id}: result without content`);
      continue;
    }
    if (want === 'tool') {
      assert.equal(a.error, undefined, `${id}: ${JSON.stringify(a)}`);
      assert.equal(a.result?.isError, true, `${id}: ${JSON.stringify(a).slice(0, 300)}`);
      const text = a.result.content?.[0]?.text;
      assert.equal(typeof text, 'string', `${id}: no text`);
      assert.ok(text.length > 0 && text.length < 20000, `${id}: text length ${text.length}`);
      assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/.test(text), `${id}: control characters in ${JSON.stringify(text)}`);
    } else {
      assert.equal(a.error?.code, want, `${id}: ${JSON.stringify(a).slice(0, 300)}`);
      assert.equal(typeof a.error.message, 'string');
      assert.ok(a.error.message.length < 20000, `${id}: error message of ${a.error.message.length} bytes`);
    }
  }
  const after = snapshot(home);
  assert.equal(after.state, before.state, 'list, history or refs changed');
  const added = after.log.slice(before.log.length);
  assert.deepEqual(after.log.slice(0, before.log.length), before.log, 'the audit log was rewritten');
  for (const e of added) {
    // the registry records every call it was asked for (its intent and
    // outcome, fail closed: docs/REGISTRY.md), bad arguments included
    assert.ok(e.event.startsWith('mcp_') || e.event === 'call' || e.event === 'call_result',
              `unexpected audit event ${JSON.stringify(e)}`);
    assert.ok(e.actor.startsWith('mcp:'), `unexpected actor ${e.actor}`);
  }
});

test('malformed and oversized lines: JSON-RPC errors, the session goes on, nothing changed', (t) => {
  const home = setup(t);
  const before = snapshot(home);
  const lines = [
    '{"jsonrpc":"2.0","id":1,"method":"ping"',
    '\u00ff\u00fe',
    '[]',
    '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
    // one line over the 4 MiB cap, then the session must still answer
    JSON.stringify(call('huge', 'create_tool', manifest({ source: big(5 << 20) }))),
    { jsonrpc: '2.0', id: 'alive', method: 'ping' },
  ];
  const r = run(home, ['serve'], [init, ready, ...lines].map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join('\n') + '\n');
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  const errs = out.filter((m) => m.error);
  // parse error x2, not an object, bad id type, the over-long line
  assert.deepEqual(errs.map((m) => m.error.code), [-32700, -32700, -32600, -32600, -32600], JSON.stringify(errs).slice(0, 500));
  for (const e of errs) assert.equal(e.id, null, JSON.stringify(e));
  assert.ok(out.some((m) => m.id === 'alive' && m.result), 'no answer after the bad lines');
  const after = snapshot(home);
  assert.equal(after.state, before.state);
  for (const e of after.log.slice(before.log.length)) assert.ok(e.event.startsWith('mcp_'), JSON.stringify(e));
});

// Valid JSON (RFC 8259) that the strict reader refuses: a string holding
// \u0000, an integer past 64 bits. The server answers a parse error with id
// null, so the client never gets an answer to its request and waits until
// its own timeout. Reported (cli/mcp_server.c, tg_mcp_server_handle); kept
// here as a TODO test, not counted as a failure until it is fixed.
test('valid JSON the reader refuses still gets an answer carrying its id', { todo: 'id-less parse error for \\u0000 / 1e20 (reported)' }, (t) => {
  const home = setup(t);
  const answers = session(home, [
    call('nul', 'create_tool', manifest({ source: src + 'int x;\u0000\n' })),
    call('bigint', 'rollback_tool', { name: 'rel_tool', version: 1e20 }),
  ]);
  for (const id of ['nul', 'bigint']) {
    const a = answers.get(JSON.stringify(id));
    assert.ok(a, `no answer carrying id ${id}: ${JSON.stringify([...answers.values()]).slice(0, 400)}`);
    assert.ok(a.error?.code === -32602 || a.result?.isError === true, JSON.stringify(a));
  }
});
