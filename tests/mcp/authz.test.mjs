// tests/mcp/authz.test.mjs: one choke point decides every run (registry/authz/,
// docs/THREAT_MODEL.md "One decision"). A home built by the local operator
// (CLI): vault (a capability-free word counter, two versions, v2 active),
// writer (workspace:write, approved, a real workspace with a seeded
// log.txt), word_relay ("calls" vault, ghost and writer; approved) and
// word_relay2 ("calls" word_relay; approved); tests/bridge/authz/relay.c
// reports each bridged call's code and message. Two principals: alice
// (--tools 'word_*' vault ghost and the meta-tools) and mallory (the same without
// vault). For each act on vault, tools/call, create_tool's target,
// rollback_tool, tool_history, list_tool_versions, a run_program callee, a
// bridged callee at depth 1 (word_relay) and at depth 2 (word_relay2 ->
// word_relay -> vault), over HTTP in the 2025-06-18 session era (raw fetch
// and the official SDK client) and the 2026-07-28 stateless era: alice's
// act runs; mallory's is refused with the exact status (403), JSON-RPC
// error (-32602) and message, or the exact bridge error ("denied",
// "principal mallory may not use tool vault"), each with its audit entry
// (mcp_denied with right/act/meta, bridge_call "denied" at its depth), and
// vault's versions are unchanged. A name mallory may not use is refused the
// same whether or not such a tool exists (ghost): no existence oracle
// through the bridge or run_program's calls. On stdio with
// --hide-write-tools, writer is absent as a direct call, a bridged callee
// and a run_program callee (refused as if it did not exist), and log.txt
// is unchanged.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/authz.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempHomeWithProcs, toolgateBin } from './lib.mjs';
import { META_KEYS, MODERN, listeningUrl } from './fixtures.mjs';

const run = promisify(execFile);
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RELAY = readFileSync(join(SRC, 'tests', 'bridge', 'authz', 'relay.c'), 'utf8');
const WRITER = readFileSync(join(SRC, 'tests', 'bridge', 'authz', 'writer.c'), 'utf8');
const WORD_COUNT = readFileSync(join(SRC, 'examples', 'word_count', 'tool.c'), 'utf8');
const SEED = 'seed\n';
const META = ['create_tool', 'rollback_tool', 'tool_history', 'list_tool_versions', 'run_program'];
const WORDS = { words: 2, lines: 1, chars: 3 };
const RELAY_SCHEMA = {
  type: 'object',
  properties: { tool: { type: 'string' }, via: { type: 'string' }, n: { type: 'integer' } },
  additionalProperties: false,
};
const TEXT_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false };

const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;

function manifest(name, source, tests, extra = {}) {
  return {
    name, description: `authz test tool ${name}`, input_schema: name.includes('relay') ? RELAY_SCHEMA : TEXT_SCHEMA,
    source, tests, limits: { timeout_ms: 5000, max_tool_calls: 8 }, ...extra,
  };
}

const vaultManifest = (description = 'the vault') => ({
  ...manifest('vault', WORD_COUNT, [{ name: 'two', args: { text: 'a b' }, expect: WORDS }]), description,
});

// The operator's tools, through the CLI.
async function createDir(home, dir, m) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.c'), m.source);
  writeFileSync(join(dir, 'tool.json'), JSON.stringify({ ...m, source: 'tool.c' }));
  return tg(home, 'create', dir);
}

async function buildHome(t) {
  const { dir, home, procs } = tempHomeWithProcs(t, 'tg-authz-');
  const ws = join(dir, 'ws');
  await tg(home, 'init');
  mkdirSync(ws);
  chmodSync(ws, 0o777); // the sandbox's user writes there
  writeFileSync(join(ws, 'log.txt'), SEED);
  chmodSync(join(ws, 'log.txt'), 0o666);
  writeFileSync(join(home, 'config.json'), JSON.stringify({ workspace: ws }));
  const d = (n) => join(dir, 'src', n);
  await createDir(home, d('vault1'), vaultManifest('the vault, v1'));
  await createDir(home, d('vault2'), vaultManifest('the vault, v2'));
  await createDir(home, d('writer'), manifest('writer', WRITER,
    [{ name: 'no workspace', args: { text: 't' }, expect: { entry: 0 } }], { capabilities: ['workspace:write'] }));
  await tg(home, 'approve', 'writer@1');
  const viaVault = { calls: ['ok'], message: '', result: WORDS };
  await createDir(home, d('word_relay'), manifest('word_relay', RELAY,
    [{ name: 'vault', args: { tool: 'vault' }, expect: viaVault }], { calls: ['vault', 'ghost', 'writer'] }));
  await tg(home, 'approve', 'word_relay@1');
  await createDir(home, d('word_relay2'), manifest('word_relay2', RELAY,
    [{ name: 'via', args: { tool: 'vault', via: 'word_relay' }, tool_results: { word_relay: viaVault },
       expect: { calls: ['ok'], message: '', result: viaVault } }], { calls: ['word_relay'] }));
  await tg(home, 'approve', 'word_relay2@1');
  return { dir, home, ws, procs };
}

const logOf = async (home) => JSON.parse(await tg(home, 'log', '--json', '--limit', '5000'));
const afterSeq = (entries, seq) => entries.filter((e) => e.seq > seq);
const lastSeq = async (home) => Math.max(0, ...(await logOf(home)).map((e) => e.seq));
const vaultState = async (home) => {
  const h = JSON.parse(await tg(home, 'history', 'vault', '--json'));
  return { active: h.active, versions: h.versions.map((v) => [v.version, v.status, v.commit]) };
};

async function serveHttp(t, env) {
  const proc = spawn(toolgateBin(), ['--home', env.home, 'serve', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  env.procs.push(proc);
  return listeningUrl(proc);
}

const JSONH = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
async function post(url, headers, body) {
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await r.text();
  let json;
  if (text.startsWith('{')) json = JSON.parse(text);
  else { // an SSE answer: the last data line is the response
    const data = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
    json = data.length ? JSON.parse(data[data.length - 1]) : undefined;
  }
  return { status: r.status, headers: r.headers, json };
}

// A raw client of one era: call(name, args) -> { status, json }.
async function rawClient(url, tok, era) {
  const auth = { Authorization: `Bearer ${tok}` };
  let n = 0;
  if (era === MODERN) {
    const rpc = (method, params) => post(url, { ...JSONH, ...auth, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, ...(params?.name ? { 'Mcp-Name': params.name } : {}) },
      { jsonrpc: '2.0', id: ++n, method, params: { ...params, _meta: META_KEYS() } });
    return { rpc, call: (name, args) => rpc('tools/call', { name, arguments: args }) };
  }
  const init = await post(url, { ...JSONH, ...auth }, {
    jsonrpc: '2.0', id: ++n, method: 'initialize',
    params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 'authz-raw', version: '1' } },
  });
  assert.equal(init.status, 200);
  assert.equal(init.json.result.protocolVersion, era);
  const sid = init.headers.get('mcp-session-id');
  const h = { ...JSONH, ...auth, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': era };
  const note = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  assert.equal(note.status, 202);
  const rpc = (method, params) => post(url, h, { jsonrpc: '2.0', id: ++n, method, params });
  return { rpc, call: (name, args) => rpc('tools/call', { name, arguments: args }) };
}

const denied = (who, tool) => ({ calls: ['denied'], message: `principal ${who} may not use tool ${tool}`, result: null });

// The matrix over one era: alice's acts run, mallory's are refused exactly.
async function matrix(t, era) {
  const env = await buildHome(t);
  const { home } = env;
  const alice = (await tg(home, 'token', 'add', 'alice', '--tools', 'word_*', 'vault', 'ghost', ...META)).trim();
  const mallory = (await tg(home, 'token', 'add', 'mallory', '--tools', 'word_*', ...META)).trim();
  const url = await serveHttp(t, env);
  const m = await rawClient(url, mallory, era);
  const a = await rawClient(url, alice, era);
  const before = await vaultState(home);
  assert.deepEqual(before.versions.map((v) => v.slice(0, 2)), [[1, 'inactive'], [2, 'active']]);
  assert.equal(before.active, 2);
  let seq = await lastSeq(home);

  // tools/list: vault is not there for mallory
  let r = await m.rpc('tools/list', {});
  assert.equal(r.status, 200);
  const listed = r.json.result.tools.map((x) => x.name);
  assert.ok(!listed.includes('vault') && listed.includes('word_relay'), listed.join(','));
  r = await a.rpc('tools/list', {});
  assert.ok(r.json.result.tools.some((x) => x.name === 'vault'));

  // the meta-tools' targets and tools/call: 403, -32602, the exact message, mcp_denied
  const refusals = [
    ['vault', { text: 'a b' }, 'principal mallory may not use tool vault', { right: 'tools' }],
    ['create_tool', vaultManifest('mallory was here'),
      'create_tool: principal mallory may not create tool vault', { right: 'tools', act: 'create', meta: 'create_tool' }],
    ['rollback_tool', { name: 'vault', version: 1 },
      'rollback_tool: principal mallory may not roll back tool vault', { right: 'tools', act: 'rollback', meta: 'rollback_tool' }],
    ['tool_history', { name: 'vault' },
      'tool_history: principal mallory may not read the history of tool vault', { right: 'tools', act: 'history', meta: 'tool_history' }],
    ['list_tool_versions', { name: 'vault' },
      'list_tool_versions: principal mallory may not read the history of tool vault',
      { right: 'tools', act: 'history', meta: 'list_tool_versions' }],
  ];
  for (const [name, args, msg, details] of refusals) {
    r = await m.call(name, args);
    assert.equal(r.status, 403, `${name}: ${JSON.stringify(r.json)}`);
    assert.deepEqual(r.json.error, { code: -32602, message: `Invalid params: ${msg}` }, name);
    const mine = afterSeq(await logOf(home), seq);
    seq = Math.max(...mine.map((e) => e.seq));
    const d = mine.filter((e) => e.event === 'mcp_denied');
    assert.equal(d.length, 1, `${name}: ${JSON.stringify(mine)}`);
    assert.equal(d[0].tool, 'vault');
    assert.match(d[0].actor, era === MODERN ? /^mcp:mallory:modern$/ : /^mcp:mallory:[0-9a-f]{32}$/);
    assert.deepEqual(d[0].details, details, name);
    assert.ok(!mine.some((e) => ['call', 'call_result', 'mcp_call', 'create', 'rollback'].includes(e.event)
      && e.tool === 'vault'), `${name} reached the registry: ${JSON.stringify(mine)}`);
  }
  assert.deepEqual(await vaultState(home), before, 'a refused act changed vault');

  // the bridged callees: run_program, depth 1, depth 2; and a name that
  // does not exist is refused the same (no existence oracle)
  const bridged = [
    ['run_program', { source: RELAY, args: { tool: 'vault' }, calls: ['vault'] }, denied('mallory', 'vault'), 0],
    ['run_program', { source: RELAY, args: { tool: 'ghost' }, calls: ['ghost'] }, denied('mallory', 'ghost'), 0],
    ['word_relay', { tool: 'vault' }, denied('mallory', 'vault'), 0],
    ['word_relay', { tool: 'ghost' }, denied('mallory', 'ghost'), 0],
    ['word_relay2', { tool: 'vault', via: 'word_relay' }, { calls: ['ok'], message: '', result: denied('mallory', 'vault') }, 1],
  ];
  for (const [name, args, want, depth] of bridged) {
    const label = `${name} ${JSON.stringify(name === 'run_program' ? args.args : args)}`;
    r = await m.call(name, args);
    assert.equal(r.status, 200, `${label}: ${JSON.stringify(r.json)}`);
    const res = r.json.result;
    assert.ok(!res.isError, `${label}: ${JSON.stringify(res)}`);
    assert.deepEqual(name === 'run_program' ? res.structuredContent.result : res.structuredContent, want,
      label);
    const mine = afterSeq(await logOf(home), seq);
    seq = Math.max(...mine.map((e) => e.seq));
    const bc = mine.filter((e) => e.event === 'bridge_call').map((e) => e.details);
    const callee = name === 'run_program' ? args.args.tool : args.tool;
    // in the order written: the inner call's entry before the outer one's
    const outer = depth ? [['word_relay', 'ok', 0]] : [];
    assert.deepEqual(bc.map((c) => [c.callee, c.outcome, c.depth]), [[callee, 'denied', depth], ...outer],
      `${label}: ${JSON.stringify(bc)}`);
    assert.match(bc[0].caller, name === 'run_program' ? /^program:[0-9a-f]{16}$/ : /^word_relay@1$/);
    assert.ok(!mine.some((e) => e.event === 'call' && e.tool === callee), 'the callee ran');
  }
  assert.deepEqual(await vaultState(home), before);

  // alice: every act runs
  r = await a.call('vault', { text: 'a b' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.result.structuredContent, WORDS);
  for (const [name, args] of [['run_program', { source: RELAY, args: { tool: 'vault' }, calls: ['vault'] }],
    ['word_relay', { tool: 'vault' }]]) {
    r = await a.call(name, args);
    const sc = r.json.result.structuredContent;
    assert.deepEqual(name === 'run_program' ? sc.result : sc, { calls: ['ok'], message: '', result: WORDS }, name);
  }
  r = await a.call('word_relay2', { tool: 'vault', via: 'word_relay' });
  assert.deepEqual(r.json.result.structuredContent,
    { calls: ['ok'], message: '', result: { calls: ['ok'], message: '', result: WORDS } });
  r = await a.call('word_relay', { tool: 'ghost' }); // alice may name ghost: it is just absent
  assert.deepEqual(r.json.result.structuredContent, { calls: ['unknown'], message: 'no active tool named ghost', result: null });
  r = await a.call('tool_history', { name: 'vault' });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.result.structuredContent.versions.map((v) => v.version), [1, 2]);
  r = await a.call('list_tool_versions', { name: 'vault' });
  assert.equal(r.status, 200);
  assert.equal(r.json.result.isError, undefined, JSON.stringify(r.json));
  r = await a.call('rollback_tool', { name: 'vault', version: 1 });
  assert.equal(r.status, 200);
  assert.equal(r.json.result.isError, undefined, JSON.stringify(r.json));
  assert.equal((await vaultState(home)).active, 1);
  r = await a.call('create_tool', vaultManifest('the vault, v3'));
  assert.equal(r.status, 200);
  assert.equal(r.json.result.structuredContent.status, 'active', JSON.stringify(r.json));
  assert.equal((await vaultState(home)).active, 3);
  return { env, url, alice, mallory };
}

test('HTTP 2025-06-18 session era: every act on vault, alice runs it, mallory is refused exactly', async (t) => {
  const { env, url, mallory, alice } = await matrix(t, '2025-06-18');
  // the official SDK client sees the same refusal
  const client = new Client({ name: 'authz-sdk', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${mallory}` } } }));
  t.after(() => client.close());
  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(!names.includes('vault') && names.includes('word_relay2'), names.join(','));
  // the 403 reaches the SDK as a transport error carrying the JSON-RPC error
  const refusedWith = (msg) => (e) => e.code === 403 &&
    e.message.endsWith(`{"jsonrpc":"2.0","id":${e.message.match(/"id":(\d+)/)[1]},"error":{"code":-32602,"message":"Invalid params: ${msg}"}}`);
  await assert.rejects(client.callTool({ name: 'vault', arguments: { text: 'x' } }),
    refusedWith('principal mallory may not use tool vault'));
  await assert.rejects(client.callTool({ name: 'rollback_tool', arguments: { name: 'vault', version: 2 } }),
    refusedWith('rollback_tool: principal mallory may not roll back tool vault'));
  const r = await client.callTool({ name: 'word_relay2', arguments: { tool: 'vault', via: 'word_relay' } });
  assert.deepEqual(r.structuredContent, { calls: ['ok'], message: '', result: denied('mallory', 'vault') });
  assert.equal((await vaultState(env.home)).active, 3);
  const ac = new Client({ name: 'authz-sdk', version: '1' });
  await ac.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${alice}` } } }));
  t.after(() => ac.close());
  const ok = await ac.callTool({ name: 'word_relay2', arguments: { tool: 'vault', via: 'word_relay' } });
  assert.deepEqual(ok.structuredContent.result.result, WORDS);
});

test('HTTP 2026-07-28 stateless era: every act on vault, alice runs it, mallory is refused exactly', async (t) => {
  await matrix(t, MODERN);
});

test('stdio --hide-write-tools: writer is absent as a direct call, a bridged callee and a run_program callee', async (t) => {
  const env = await buildHome(t);
  const { home, ws } = env;
  const connect = async (extra) => {
    const client = new Client({ name: 'authz-stdio', version: '1' });
    await client.connect(new StdioClientTransport({ command: toolgateBin(), args: ['--home', home, 'serve', ...extra], stderr: 'ignore' }));
    t.after(() => client.close());
    return client;
  };
  const hid = await connect(['--hide-write-tools']);
  let seq = await lastSeq(home);
  assert.ok(!(await hid.listTools()).tools.some((x) => x.name === 'writer'));
  await assert.rejects(hid.callTool({ name: 'writer', arguments: { text: 'x' } }),
    (e) => e.code === -32602 && /Unknown tool: writer/.test(e.message));
  let r = await hid.callTool({ name: 'word_relay', arguments: { tool: 'writer' } });
  assert.deepEqual(r.structuredContent, { calls: ['unknown'], message: 'no active tool named writer', result: null });
  r = await hid.callTool({ name: 'word_relay2', arguments: { tool: 'writer', via: 'word_relay' } });
  assert.deepEqual(r.structuredContent,
    { calls: ['ok'], message: '', result: { calls: ['unknown'], message: 'no active tool named writer', result: null } });
  // a run_program callee: the same answer as for a tool that does not exist
  r = await hid.callTool({ name: 'run_program', arguments: { source: RELAY, args: { tool: 'writer' }, calls: ['writer'] } });
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'run_program: calls[0]: no active tool named writer');
  r = await hid.callTool({ name: 'run_program', arguments: { source: RELAY, args: { tool: 'nowhere' }, calls: ['nowhere'] } });
  assert.equal(r.content[0].text, 'run_program: calls[0]: no active tool named nowhere');
  assert.equal(readFileSync(join(ws, 'log.txt'), 'utf8'), SEED, 'writer ran');
  const mine = afterSeq(await logOf(home), seq);
  assert.deepEqual(mine.filter((e) => e.event === 'mcp_unknown_tool').map((e) => e.tool), ['writer']);
  assert.deepEqual(mine.filter((e) => e.event === 'bridge_call').map((e) => [e.details.callee, e.details.outcome, e.details.depth]),
    [['writer', 'unknown', 0], ['writer', 'unknown', 1], ['word_relay', 'ok', 0]]);
  assert.ok(!mine.some((e) => e.tool === 'writer' && e.event === 'call'), 'writer ran');

  // the control: without --hide-write-tools the same relay writes for real
  const op = await connect([]);
  r = await op.callTool({ name: 'word_relay', arguments: { tool: 'writer' } });
  assert.deepEqual(r.structuredContent, { calls: ['ok'], message: '', result: { entry: 2 } });
  assert.equal(readFileSync(join(ws, 'log.txt'), 'utf8'), `${SEED}a b\n`);
});
