// tests/mcp/papercuts.test.mjs: the MCP side of the papercuts a newcomer met
// (issue 29), each with its exact new answer:
//  - calling a tool whose only version waits for approval is an error result
//    naming the command that approves it, not -32602 Unknown tool; a name
//    that does not exist, and a pending workspace:write tool in a session
//    with --hide-write-tools, stay -32602 Unknown tool;
//  - rollback_tool naming the active version succeeds (already_active);
//  - create_tool's refusal of a manifest holds the analyzer's findings on
//    the source too (one round), or says why the source was not analyzed;
//  - create_tool's description says whether the home has a workspace, and
//    the refusal of a workspace capability without one says a person must
//    configure it and how.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/papercuts.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawServer, tempHomeWithProcs, toolgateBin } from './lib.mjs';

const run = promisify(execFile);
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WRITER = readFileSync(join(SRC, 'tests', 'bridge', 'authz', 'writer.c'), 'utf8');
const WORD_COUNT = readFileSync(join(SRC, 'examples', 'word_count', 'tool.c'), 'utf8');
const TEXT_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false };
const tg = async (home, ...args) => (await run(toolgateBin(), ['--home', home, ...args])).stdout;

async function createDir(home, dir, m) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.c'), m.source);
  writeFileSync(join(dir, 'tool.json'), JSON.stringify({ ...m, source: 'tool.c' }));
  return tg(home, 'create', dir);
}

const wordCount = (name, description) => ({
  name, description, input_schema: TEXT_SCHEMA, source: WORD_COUNT,
  tests: [{ name: 'two', args: { text: 'a b' }, expect: { words: 2, lines: 1, chars: 3 } }],
});

async function home(t, workspace) {
  const { dir, home: h, procs } = tempHomeWithProcs(t, 'tg-papercuts-');
  await tg(h, 'init');
  if (workspace) {
    mkdirSync(join(dir, 'ws'));
    writeFileSync(join(h, 'config.json'), JSON.stringify({ workspace: join(dir, 'ws') }));
  }
  return { dir, home: h, procs };
}

async function serve(t, h, ...flags) {
  const s = new RawServer(toolgateBin(), ['--home', h, 'serve', ...flags]);
  t.after(() => s.proc.kill('SIGKILL'));
  await s.initialize('2025-06-18');
  let id = 0;
  // the answer to this request (a tools/list_changed may come first)
  const ask = async (msg) => {
    await s.send(msg);
    for (;;) {
      const m = await s.next(20000);
      if (m.id === msg.id) return m;
    }
  };
  s.call = (name, args) => ask({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
  s.list = () => ask({ jsonrpc: '2.0', id: ++id, method: 'tools/list', params: {} });
  return s;
}

const pendingText = (name, v) => `${name}: ${name} v${v} is pending: it waits for a person's approval and ` +
  `cannot be called until then (the operator runs \`toolgate approve ${name}@${v}\`)`;

test('a pending tool says it waits for approval; unknown and hidden ones stay unknown', async (t) => {
  const { dir, home: h } = await home(t, true);
  await tg(h, 'create', join(SRC, 'examples', 'file_stats'));
  await createDir(h, join(dir, 'src', 'writer'), {
    name: 'writer', description: 'writes', input_schema: TEXT_SCHEMA, source: WRITER,
    tests: [{ name: 'no workspace', args: { text: 't' }, expect: { entry: 0 } }], capabilities: ['workspace:write'],
  });
  const s = await serve(t, h);
  let m = await s.call('file_stats', { file: 'notes.txt' });
  assert.equal(m.result.isError, true);
  assert.equal(m.result.content[0].text, pendingText('file_stats', 1));
  m = await s.call('writer', { text: 'x' });
  assert.equal(m.result.content[0].text, pendingText('writer', 1));
  m = await s.call('ghost', {});
  assert.deepEqual(m.error, { code: -32602, message: 'Unknown tool: ghost' });

  const hid = await serve(t, h, '--hide-write-tools');
  m = await hid.call('writer', { text: 'x' });
  assert.deepEqual(m.error, { code: -32602, message: 'Unknown tool: writer' });
  m = await hid.call('file_stats', { file: 'notes.txt' });
  assert.equal(m.result.content[0].text, pendingText('file_stats', 1));

  // once approved it runs (no file: found false)
  await tg(h, 'approve', 'file_stats@1');
  m = await s.call('file_stats', { file: 'notes.txt', optional: true });
  assert.deepEqual(m.result.structuredContent, { file: 'notes.txt', found: false });
});

test('rollback_tool to the active version is idempotent', async (t) => {
  const { dir, home: h } = await home(t, false);
  await createDir(h, join(dir, 'src', 'wc1'), wordCount('wc', 'count v1'));
  await createDir(h, join(dir, 'src', 'wc2'), wordCount('wc', 'count v2'));
  const s = await serve(t, h);
  let m = await s.call('rollback_tool', { name: 'wc', version: 2 });
  assert.equal(m.result.isError, undefined);
  assert.deepEqual(m.result.structuredContent,
    { name: 'wc', version: 2, from_version: 2, status: 'active', already_active: true });
  m = await s.call('rollback_tool', { name: 'wc', version: 1 });
  assert.deepEqual(m.result.structuredContent,
    { name: 'wc', version: 1, from_version: 2, status: 'active', already_active: false });
  const log = JSON.parse(await tg(h, 'log', '--json'));
  assert.equal(log.filter((e) => e.event === 'rollback').length, 1);
});

const WS_NO = "\n\nWORKSPACE: this home has no workspace configured, so workspace:read and workspace:write " +
  'are refused. Only a person (the operator) can configure one ("workspace": "/absolute/folder" in the ' +
  "home's config.json, then restart toolgate serve): ask them, or write the tool without it.";
const WS_YES = '\n\nWORKSPACE: this home has a workspace: workspace:read (read-only) and workspace:write may ' +
  'be asked for; a person approves each such version. Tests run on a scratch /workspace, never the real ' +
  'one: it is empty but for the files a test declares in "files" ({"notes.txt": "text"}).';

test('create_tool says whether a workspace is configured, and who can configure one', async (t) => {
  const no = await home(t, false);
  const s = await serve(t, no.home);
  let m = await s.list();
  let ct = m.result.tools.find((x) => x.name === 'create_tool');
  assert.ok(ct.description.endsWith(WS_NO), ct.description.slice(-400));
  const fs = JSON.parse(readFileSync(join(SRC, 'examples', 'file_stats', 'tool.json'), 'utf8'));
  fs.source = readFileSync(join(SRC, 'examples', 'file_stats', 'tool.c'), 'utf8');
  m = await s.call('create_tool', fs);
  assert.equal(m.result.isError, true);
  assert.equal(m.result.content[0].text, 'create_tool: capabilities[0]: workspace:read needs "workspace" set ' +
    "in the home's config.json, which only a person (the operator) can do: \"workspace\": \"/absolute/folder\" " +
    'in <home>/config.json, then restart toolgate serve; ask them, or write the tool without it');

  const yes = await home(t, true);
  const s2 = await serve(t, yes.home);
  m = await s2.list();
  ct = m.result.tools.find((x) => x.name === 'create_tool');
  assert.ok(ct.description.endsWith(WS_YES), ct.description.slice(-400));
  assert.ok(!ct.description.includes('no workspace configured'));
});

test('create_tool reports the manifest\'s problems and the analyzer\'s findings at once', async (t) => {
  const h = await home(t, false);
  const s = await serve(t, h.home);
  const m = wordCount('both', 'problems on both sides');
  m.limits = { timeout_ms: 0 };
  m.source = '#include <toolgate/tool.h>\nint main(void)\n{\n\tchar *h = getenv("HOME");\n' +
    '\treturn h != 0;\n}\n';
  let r = await s.call('create_tool', m);
  assert.equal(r.result.isError, true);
  assert.equal(r.result.content[0].text, 'create_tool: limits.timeout_ms: must be at least 10; the analyzer also ' +
    'found 1 error in the source: [environment] 4:12 getenv is not allowed (environment)');
  m.source = '';
  r = await s.call('create_tool', m);
  assert.equal(r.result.content[0].text, 'create_tool: 2 problems in the manifest: limits.timeout_ms: must be at ' +
    'least 10; source: is empty; the source was not analyzed: it has a problem of its own');
  const log = JSON.parse(await tg(h.home, 'log', '--json'));
  // nothing built or stored: the two refusals are the only entries
  assert.deepEqual(log.filter((e) => e.tool === 'both').map((e) => e.event),
    ['mcp_create_invalid', 'mcp_create_invalid']);
});

test('create_tool publishes the whole manifest: calls, every capability, a test\'s files', async (t) => {
  const h = await home(t, true);
  const s = await serve(t, h.home);
  const ct = (await s.list()).result.tools.find((x) => x.name === 'create_tool');
  const p = ct.inputSchema.properties;
  assert.equal(ct.inputSchema.additionalProperties, false);
  assert.deepEqual(Object.keys(p).sort(), ['calls', 'capabilities', 'description', 'input_schema', 'limits',
    'name', 'output_schema', 'source', 'tests']);
  assert.equal(p.calls.items.pattern, '^(host:)?[a-z][a-z0-9_]{0,63}$');
  assert.equal(p.capabilities.items.pattern,
    '^(workspace:read|workspace:write|tools:[a-z][a-z0-9_]{0,63}|host:[a-z][a-z0-9_]{0,63})$');
  assert.deepEqual(Object.keys(p.limits.properties).sort(), ['max_tool_calls', 'memory_mb', 'output_kb', 'timeout_ms']);
  assert.deepEqual(Object.keys(p.tests.items.properties).sort(),
    ['args', 'expect', 'expect_error', 'files', 'host_results', 'name', 'tool_results']);
  assert.equal(p.tests.items.properties.files.maxProperties, 16);
});

const fileStats = (tests) => {
  const m = JSON.parse(readFileSync(join(SRC, 'examples', 'file_stats', 'tool.json'), 'utf8'));
  m.name = 'stats2';
  m.source = readFileSync(join(SRC, 'examples', 'file_stats', 'tool.c'), 'utf8');
  m.tests = tests;
  return m;
};

test('a workspace tool\'s tests declare the files of their scratch /workspace', async (t) => {
  const h = await home(t, true);
  writeFileSync(join(h.dir, 'ws', 'notes.txt'), 'the host file is never seen by a test\n');
  const s = await serve(t, h.home);
  // each test sees its own files, and only them
  let m = await s.call('create_tool', fileStats([
    { name: 'declared', args: { file: 'notes.txt' }, files: { 'notes.txt': 'one two\nthree\n' },
      expect: { file: 'notes.txt', bytes: 14, lines: 2, words: 3 } },
    { name: 'another', args: { file: 'data.csv' }, files: { 'data.csv': 'a,b\n' },
      expect: { file: 'data.csv', bytes: 4, lines: 1, words: 1 } },
    { name: 'gone', args: { file: 'notes.txt', optional: true }, expect: { file: 'notes.txt', found: false } },
  ]));
  assert.equal(m.result.isError, undefined, JSON.stringify(m.result));
  assert.equal(m.result.structuredContent.status, 'pending');
  // the failure says the tests ran on a scratch workspace
  m = await s.call('create_tool', fileStats([
    { name: 'host file', args: { file: 'notes.txt' }, expect: { file: 'notes.txt', bytes: 1, lines: 1, words: 1 } },
  ]));
  assert.equal(m.result.structuredContent.status, 'failed');
  assert.equal(m.result.structuredContent.reason, '1 of 1 tests failed; test "host file" failed: error: ' +
    'notes.txt: not found in the workspace (tests run on a scratch /workspace holding only the files the test ' +
    'declares in "files")');
  // names and bounds
  const bad = async (files, want) => {
    m = await s.call('create_tool', fileStats([{ name: 'x', args: { file: 'notes.txt' }, files, expect: {} }]));
    assert.equal(m.result.content[0].text, `create_tool: ${want}`);
  };
  const nameRule = 'a name is 1 to 64 of A-Z a-z 0-9 . _ - (no \'/\', no "..", no leading dot)';
  await bad({ '../x': '' }, `tests[0].files: "../x": ${nameRule}`);
  await bad({ 'a/b': '' }, `tests[0].files: "a/b": ${nameRule}`);
  await bad({ '.hidden': '' }, `tests[0].files: ".hidden": ${nameRule}`);
  await bad({ 'n.txt': 3 }, 'tests[0].files.n.txt: must be a string (the file\'s text)');
  await bad(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}`, ''])), 'tests[0].files: 17 files, at most 16 allowed');
  await bad({ a: 'x'.repeat(40000), b: 'y'.repeat(30000) }, 'tests[0].files: more than 64 KiB in all');
  const wc = { ...wordCount('plain', 'no workspace'), tests: [{ name: 'x', args: { text: 'a' }, files: { 'a.txt': '' }, expect: {} }] };
  m = await s.call('create_tool', wc);
  assert.equal(m.result.content[0].text,
    'create_tool: tests[0].files: only a tool asking for workspace:read or workspace:write has a /workspace');
});

test('toolgate log shows an MCP session\'s client (scrubbed, bounded) next to its actor', async (t) => {
  const h = await home(t, false);
  const s = new RawServer(toolgateBin(), ['--home', h.home, 'serve']);
  t.after(() => s.proc.kill('SIGKILL'));
  const long = 'v'.repeat(100);
  await s.request({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18',
    capabilities: {}, clientInfo: { name: 'agent\u001b[31m\u202e', version: long } } });
  await s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await s.request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ghost', arguments: {} } });
  await s.close();
  const log = JSON.parse(await tg(h.home, 'log', '--json'));
  const mine = log.filter((e) => e.actor.startsWith('mcp:'));
  assert.deepEqual(mine.map((e) => e.event), ['mcp_session_start', 'mcp_unknown_tool', 'mcp_session_end']);
  const client = `agent?[31m??? ${'v'.repeat(64)}`;
  for (const e of mine) assert.equal(e.client, client);
  assert.ok(log.filter((e) => !e.actor.startsWith('mcp:')).every((e) => !('client' in e)));
  const text = await tg(h.home, 'log', '--actor', 'agent?');
  const lines = text.trim().split('\n');
  assert.equal(lines.length, 3);
  for (const l of lines) {
    assert.ok(l.includes(` ${mine[0].actor} `), l);
    assert.ok(l.endsWith(` client: ${client}`), l);
  }
});
