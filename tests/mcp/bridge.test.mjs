// tests/mcp/bridge.test.mjs: the tool bridge over MCP with the official
// TypeScript SDK client (docs/MCP.md, docs/BRIDGE.md) on a temporary home:
// run_program calling two registered tools (exact result, run id, the
// audit entries of its calls); the session's call budget counting the run
// and every bridged call (the call past the cap is refused with the exact
// error, audited as session_limit); per-call approval answered through
// elicitation (accept approve=true: the host tool's call runs and the
// ledger gets one line; decline and cancel: denied, the ledger untouched),
// each decision recorded on the approval queue's row (via elicitation).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/bridge.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { RawServer, tempHome, toolgateBin, serveHttp as serveHttpLib } from './lib.mjs';
import { META_KEYS, MODERN } from './fixtures.mjs';

const exec = promisify(execFile);
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tg = (home, ...args) => exec(toolgateBin(), ['--home', home, ...args]);

// Calls word_count and stats once each and reports both.
const TWO_TOOLS = `#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_args x = TG_ARGS_INIT;
	tg_value *w = NULL, *s = NULL;
	tg_args_str(&x, "text", tg_arg_str(a, "text", ""));
	if (tg_call_tool("word_count", tg_args_json(&x), &w) != 0)
		tg_tool_fail("word_count: %s", w ? tg_arg_str(w, "code", "?") : "bridge");
	if (tg_call_tool("stats", "{\\"values\\":[2,4,4,4,5,5,7,9]}", &s) != 0)
		tg_tool_fail("stats: %s", s ? tg_arg_str(s, "code", "?") : "bridge");
	tg_out_object_begin();
	tg_out_key_int("words", tg_arg_int(w, "words", -1));
	tg_out_key_int("count", tg_arg_int(s, "count", -1));
	tg_out_end();
	tg_value_free(w);
	tg_value_free(s);
	tg_args_free(&x);
	tg_tool_args_free(a);
	return 0;
}
`;

async function connect(t, home, { extra = [], elicit } = {}) {
  const transport = new StdioClientTransport({
    command: toolgateBin(), args: ['--home', home, 'serve', ...extra], stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'toolgate-bridge-test', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  const asked = [];
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return elicit(req.params);
    });
  }
  await client.connect(transport);
  t.after(() => client.close());
  return { client, asked, stderr: () => stderr };
}

async function logOf(home, run) {
  const { stdout } = await tg(home, 'log', '--run', String(run), '--json');
  return JSON.parse(stdout);
}

async function homeWithTools(t) {
  const home = tempHome(t);
  await tg(home, 'init');
  await tg(home, 'create', join(SRC, 'examples', 'word_count'));
  await tg(home, 'create', join(SRC, 'examples', 'stats'));
  return home;
}

test('run_program calls two tools: exact result, run id, audit entries', async (t) => {
  const home = await homeWithTools(t);
  const { client } = await connect(t, home);
  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes('run_program'), names.join(','));
  const r = await client.callTool({
    name: 'run_program',
    arguments: { source: TWO_TOOLS, args: { text: 'one two three' }, calls: ['word_count', 'stats'] },
  });
  assert.equal(r.isError, false, JSON.stringify(r));
  const doc = r.structuredContent;
  assert.equal(doc.status, 'ok');
  assert.deepEqual(doc.result, { words: 3, count: 8 });
  assert.equal(doc.tool_calls, 2);
  assert.equal(typeof doc.run, 'number');
  assert.match(r.content[0].text, new RegExp(`^run ${doc.run}: ok \\(2 tool calls\\)\\n`));
  // what ran is kept: show-run gives back the exact source and its digest
  const { stdout } = await tg(home, 'show-run', String(doc.run), '--json');
  const shown = JSON.parse(stdout);
  assert.equal(shown.source, TWO_TOOLS);
  assert.equal(shown.program_sha256, doc.program_sha256);
  assert.match(shown.actor, /^mcp:/);
  const calls = shown.entries.filter((e) => e.event === 'bridge_call').map((e) => e.details);
  assert.deepEqual(calls.map((c) => [c.callee, c.outcome, c.attempt]),
    [['word_count', 'ok', 1], ['stats', 'ok', 2]]);
  for (const c of calls) {
    assert.equal(c.caller, `program:${doc.program_sha256.slice(0, 16)}`);
    assert.equal(c.run, doc.run);
    assert.match(c.callee_commit, /^[0-9a-f]{40}$/);
  }
  // never registered
  assert.ok(!(await client.listTools()).tools.some((x) => x.name.startsWith('program')));
  // a refused program is an error result naming the reason, nothing runs
  const bad = await client.callTool({ name: 'run_program', arguments: { source: TWO_TOOLS, calls: ['nope'] } });
  assert.equal(bad.isError, true);
  assert.equal(bad.content[0].text, 'run_program: calls[0]: no active tool named nope');
});

test('the session call budget counts the run and every bridged call', async (t) => {
  const home = await homeWithTools(t);
  const caller = readFileSync(join(SRC, 'tests', 'bridge', 'run', 'caller.c'), 'utf8');
  const { client } = await connect(t, home, { extra: ['--max-calls', '3'] });
  // call 1 of the session is the run; its bridged calls are 2 and 3; the
  // third bridged call is the session's 4th: refused (code limit)
  const r = await client.callTool({
    name: 'run_program', arguments: { source: caller, args: { n: 3 }, calls: ['word_count'] },
  });
  assert.equal(r.isError, false, JSON.stringify(r));
  assert.deepEqual(r.structuredContent.result, ['ok:2', 'ok:2', 'limit']);
  assert.equal(r.structuredContent.tool_calls, 3);
  const entries = (await logOf(home, r.structuredContent.run)).filter((e) => e.event === 'bridge_call');
  assert.deepEqual(entries.map((e) => e.details.outcome), ['ok', 'ok', 'session_limit']);
  // and the session is now past its cap for a direct call too
  const after = await client.callTool({ name: 'word_count', arguments: { text: 'a' } });
  assert.equal(after.isError, true);
  assert.equal(after.content[0].text,
    'call budget exhausted: this session allows 3 tool calls (--max-calls / session_max_calls)');
});

test('a registered tool\'s bridged calls count against the session budget', async (t) => {
  const home = await homeWithTools(t);
  await tg(home, 'create', join(SRC, 'examples', 'word_pair'));
  await tg(home, 'approve', 'word_pair@1');
  const { client } = await connect(t, home, { extra: ['--max-calls', '2'] });
  // word_pair is the session's call 1, its first word_count call 2, its
  // second call 3: refused, so word_pair fails
  const r = await client.callTool({ name: 'word_pair', arguments: { a: 'one two', b: 'three' } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /word_count failed: call budget exhausted: this session allows 2 tool calls \(--max-calls \/ session_max_calls\); the call to word_count is refused/);
});

function ledgerHome(t, home) {
  const ledger = join(dirname(home), 'ledger');
  mkdirSync(ledger, { recursive: true });
  const cfg = JSON.parse(readFileSync(join(SRC, 'examples', 'ledger', 'config.json'), 'utf8'));
  cfg.host_tools[0].argv = ['/bin/sh', join(SRC, 'examples', 'ledger', 'ledger_append.sh'), ledger];
  cfg.call_approval_timeout_ms = 20000;
  writeFileSync(join(home, 'config.json'), JSON.stringify(cfg));
  return join(ledger, 'ledger.jsonl');
}

async function refundHome(t) {
  const home = tempHome(t);
  await tg(home, 'init');
  const ledger = ledgerHome(t, home);
  await tg(home, 'create', join(SRC, 'examples', 'refund'));
  await tg(home, 'approve', 'refund@1');
  return { home, ledger };
}

async function decisions(home) {
  const { stdout } = await tg(home, 'log', '--json');
  return JSON.parse(stdout).filter((e) => /^call_(approved|denied|timeout)$/.test(e.event));
}

test('an approval answered through elicitation: accept runs exactly that call', async (t) => {
  const { home, ledger } = await refundHome(t);
  const { client, asked } = await connect(t, home, {
    elicit: () => ({ action: 'accept', content: { approve: true } }),
  });
  const r = await client.callTool({ name: 'refund', arguments: { account: 'acct-9', amount: '250' } });
  assert.equal(r.isError, undefined, JSON.stringify(r));
  assert.deepEqual(r.structuredContent, { entry: 1 });
  assert.equal(asked.length, 1);
  const q = asked[0];
  assert.equal(q.mode, 'form');
  assert.deepEqual(q.requestedSchema.required, ['approve']);
  assert.equal(q.requestedSchema.properties.approve.type, 'boolean');
  const meta = q._meta['io.toolgate/call_approval'];
  assert.equal(meta.callee, 'host:ledger_append');
  assert.equal(meta.caller, 'refund@1');
  assert.match(meta.binding, /^[0-9a-f]{64}$/);
  assert.match(q.message, /callee: host:ledger_append\nversion: [0-9a-f]{64}\narguments sha256: [0-9a-f]{64}\ncaller: refund@1\n/);
  const lines = readFileSync(ledger, 'utf8').trim().split('\n');
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0]).args, { account: 'acct-9', amount: '250' });
  const d = await decisions(home);
  assert.equal(d.length, 1);
  assert.equal(d[0].event, 'call_approved');
  assert.equal(d[0].details.via, 'elicitation');
  assert.equal(d[0].details.approval, meta.id);
  assert.equal(d[0].details.binding, meta.binding);
  assert.match(d[0].actor, /^mcp:/);
  // a small amount needs nobody: no elicitation
  const small = await client.callTool({ name: 'refund', arguments: { account: 'a', amount: '5' } });
  assert.deepEqual(small.structuredContent, { entry: 2 });
  assert.equal(asked.length, 1);
});

for (const [what, answer, via] of [
  ['declined', { action: 'decline' }, 'elicitation_declined'],
  ['cancelled', { action: 'cancel' }, 'elicitation_cancelled'],
  ['accepted with approve=false', { action: 'accept', content: { approve: false } }, 'elicitation_declined'],
]) {
  test(`an approval ${what} through elicitation denies the call`, async (t) => {
    const { home, ledger } = await refundHome(t);
    const { client, asked } = await connect(t, home, { elicit: () => answer });
    const r = await client.callTool({ name: 'refund', arguments: { account: 'acct-9', amount: '999' } });
    assert.equal(r.isError, true);
    const id = asked[0]._meta['io.toolgate/call_approval'].id;
    assert.equal(r.content[0].text, `ledger_append: a person denied this call (call approval ${id})`);
    assert.equal(existsSync(ledger), false);
    const d = await decisions(home);
    assert.deepEqual(d.map((e) => [e.event, e.details.via, e.details.approval]), [['call_denied', via, id]]);
    const { stdout } = await tg(home, 'approvals', '--json');
    assert.deepEqual(JSON.parse(stdout), []);
  });
}

test('without elicitation the call waits on the queue (toolgate approvals)', async (t) => {
  const { home, ledger } = await refundHome(t);
  const { client } = await connect(t, home);
  const pending = client.callTool({ name: 'refund', arguments: { account: 'q', amount: '300' } });
  let rows = [];
  for (let i = 0; i < 200 && rows.length === 0; i++) {
    await new Promise((res) => setTimeout(res, 50));
    rows = JSON.parse((await tg(home, 'approvals', '--json')).stdout);
  }
  assert.equal(rows.length, 1);
  assert.equal(rows[0].tool, 'host:ledger_append');
  await tg(home, 'deny-call', String(rows[0].id));
  const r = await pending;
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, `ledger_append: a person denied this call (call approval ${rows[0].id})`);
  assert.equal(existsSync(ledger), false);
});

test('2026-07-28 era on stdio: run_program is served statelessly', async (t) => {
  const home = await homeWithTools(t);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  t.after(() => s.close());
  const m = await s.request({
    jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: { name: 'run_program', arguments: { source: TWO_TOOLS, args: { text: 'a b' }, calls: ['word_count', 'stats'] }, _meta: META_KEYS() },
  }, 60000);
  assert.equal(m.result.resultType, 'complete');
  assert.deepEqual(m.result.structuredContent.result, { words: 2, count: 8 });
});

const serveHttp = async (t, home) => (await serveHttpLib(home, { t })).url;

test('over Streamable HTTP: run_program, and the principal\'s budget counts bridged calls', async (t) => {
  const home = await homeWithTools(t);
  const caller = readFileSync(join(SRC, 'tests', 'bridge', 'run', 'caller.c'), 'utf8');
  const alice = (await tg(home, 'token', 'add', 'alice', '--max-calls', '3')).stdout.trim();
  const bob = (await tg(home, 'token', 'add', 'bob')).stdout.trim();
  const url = await serveHttp(t, home);
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${alice}` } } });
  const client = new Client({ name: 'toolgate-bridge-http', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  const r = await client.callTool({
    name: 'run_program', arguments: { source: caller, args: { n: 3 }, calls: ['word_count'] },
  });
  assert.equal(r.isError, false, JSON.stringify(r));
  assert.deepEqual(r.structuredContent.result, ['ok:2', 'ok:2', 'limit']);
  const entries = (await logOf(home, r.structuredContent.run)).filter((e) => e.event === 'bridge_call');
  assert.deepEqual(entries.map((e) => e.details.outcome), ['ok', 'ok', 'session_limit']);
  const all = JSON.parse((await tg(home, 'log', '--json', '--limit', '500')).stdout);
  const bridged = all.filter((e) => e.event === 'bridge_call');
  assert.equal(bridged.length, 3);
  for (const e of bridged) assert.match(e.actor, /^mcp:alice:[0-9a-f]{32}$/);
  // a 2026-07-28 request of bob (no budget): two tools, exact result
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${bob}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'run_program' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'run_program', arguments: { source: TWO_TOOLS, args: { text: 'x y z w' }, calls: ['word_count', 'stats'] }, _meta: META_KEYS() } }),
  });
  const m = await res.json();
  assert.equal(m.result.resultType, 'complete', JSON.stringify(m));
  assert.deepEqual(m.result.structuredContent.result, { words: 4, count: 8 });
});
