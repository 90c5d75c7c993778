// tests/mcp/approvals.test.mjs: per-call approvals over MCP beyond stdio
// (docs/MCP.md, "Per-call approvals"), on the refund example (a registered
// tool whose host call ledger_append needs a person for 3-digit amounts):
//  - initialize era over Streamable HTTP, the official SDK client with an
//    elicitation handler: elicitation/create arrives on the session's GET
//    stream, the answer goes back as a POST; accepted (the ledger gets one
//    line, call_approved via elicitation) and declined (denied, no ledger);
//  - a principal without --may-approve is never asked, in either era: its
//    call waits on the operator's queue (toolgate approvals) and a person
//    decides it there; a requestState it sends is refused;
//  - 2026-07-28 era, raw HTTP: input_required with the elicitation and a
//    requestState, the retry with the answer runs the call once; a replayed,
//    bit-flipped, other principal's, other request's and expired state are
//    refused with the exact errors; a declined answer denies; on stdio too;
//    a program with two approvals: two input_required rounds, the approved
//    call answered from the journal at the second retry (replay.test.mjs
//    has the rest of the journaled replay).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/approvals.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { RawServer, tempHomeWithProcs, toolgateBin, serveHttp as serveHttpLib } from './lib.mjs';
import { META_KEYS, MODERN } from './fixtures.mjs';

const exec = promisify(execFile);
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tg = (home, ...args) => exec(toolgateBin(), ['--home', home, ...args]);
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));


async function refundHome(t, timeoutMs = 20000) {
  const { home, procs } = tempHomeWithProcs(t);
  await tg(home, 'init');
  const ledgerDir = join(dirname(home), 'ledger');
  mkdirSync(ledgerDir, { recursive: true });
  const cfg = JSON.parse(readFileSync(join(SRC, 'examples', 'ledger', 'config.json'), 'utf8'));
  cfg.host_tools[0].argv = ['/bin/sh', join(SRC, 'examples', 'ledger', 'ledger_append.sh'), ledgerDir];
  cfg.call_approval_timeout_ms = timeoutMs;
  writeFileSync(join(home, 'config.json'), JSON.stringify(cfg));
  await tg(home, 'create', join(SRC, 'examples', 'refund'));
  await tg(home, 'approve', 'refund@1');
  const token = async (name, ...flags) => (await tg(home, 'token', 'add', name, ...flags)).stdout.trim();
  return { home, ledger: join(ledgerDir, 'ledger.jsonl'), token, procs };
}

const ledgerLines = (ledger) => (existsSync(ledger) ? readFileSync(ledger, 'utf8').trim().split('\n') : []);

const serveHttp = async (t, home, procs) => (await serveHttpLib(home, { procs })).url;

async function sdkClient(t, url, token, elicit) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'toolgate-approvals-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return elicit(req.params);
  });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, asked };
}

async function decisions(home) {
  const { stdout } = await tg(home, 'log', '--json', '--limit', '500');
  return JSON.parse(stdout).filter((e) => /^call_(approved|denied|timeout)$/.test(e.event));
}

// One 2026-07-28 tools/call of refund over HTTP.
async function modern(url, token, id, args, extra = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call',
      'Mcp-Name': 'refund',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'refund', arguments: args, ...extra, _meta: META_KEYS() } }),
  });
  return { status: res.status, body: await res.json() };
}

const ACCEPT = { call_approval: { result: { action: 'accept', content: { approve: true } } } };
const DECLINE = { call_approval: { result: { action: 'decline' } } };

test('legacy era over HTTP: an elicitation on the session stream, accepted', async (t) => {
  const { home, ledger, token, procs } = await refundHome(t);
  const alice = await token('alice', '--may-approve');
  const url = await serveHttp(t, home, procs);
  const { client, asked } = await sdkClient(t, url, alice, () => ({ action: 'accept', content: { approve: true } }));
  const r = await client.callTool({ name: 'refund', arguments: { account: 'acct-9', amount: '250' } });
  assert.equal(r.isError, undefined, JSON.stringify(r));
  assert.deepEqual(r.structuredContent, { entry: 1 });
  assert.equal(asked.length, 1);
  assert.equal(asked[0].mode, 'form');
  const meta = asked[0]._meta['io.toolgate/call_approval'];
  assert.equal(meta.callee, 'host:ledger_append');
  assert.equal(meta.caller, 'refund@1');
  assert.match(asked[0].message, /callee: host:ledger_append\nversion: [0-9a-f]{64}\narguments sha256: [0-9a-f]{64}\ncaller: refund@1\n/);
  const lines = ledgerLines(ledger);
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0]).args, { account: 'acct-9', amount: '250' });
  const d = await decisions(home);
  assert.deepEqual(d.map((e) => [e.event, e.details.via, e.details.approval, e.details.binding]),
    [['call_approved', 'elicitation', meta.id, meta.binding]]);
  assert.match(d[0].actor, /^mcp:alice:[0-9a-f]{32}$/);
  // the session goes on: a small refund needs nobody
  const small = await client.callTool({ name: 'refund', arguments: { account: 'a', amount: '5' } });
  assert.deepEqual(small.structuredContent, { entry: 2 });
  assert.equal(asked.length, 1);
});

test('legacy era over HTTP: an elicitation declined denies the call', async (t) => {
  const { home, ledger, token, procs } = await refundHome(t);
  const alice = await token('alice', '--may-approve');
  const url = await serveHttp(t, home, procs);
  const { client, asked } = await sdkClient(t, url, alice, () => ({ action: 'decline' }));
  const r = await client.callTool({ name: 'refund', arguments: { account: 'acct-9', amount: '999' } });
  assert.equal(r.isError, true);
  const id = asked[0]._meta['io.toolgate/call_approval'].id;
  assert.equal(r.content[0].text, `ledger_append: a person denied this call (call approval ${id})`);
  assert.equal(existsSync(ledger), false);
  const d = await decisions(home);
  assert.deepEqual(d.map((e) => [e.event, e.details.via, e.details.approval]), [['call_denied', 'elicitation_declined', id]]);
  assert.deepEqual(JSON.parse((await tg(home, 'approvals', '--json')).stdout), []);
});

// The pending rows, once one matches (a granted call's row is pending for
// a moment too, before its answer decides it).
async function queued(home, match = () => true) {
  for (let i = 0; i < 300; i++) {
    const rows = JSON.parse((await tg(home, 'approvals', '--json')).stdout).filter(match);
    if (rows.length) return rows;
    await sleep(50);
  }
  return [];
}

test('a principal without --may-approve is never asked: the operator\'s queue decides', async (t) => {
  const { home, ledger, token, procs } = await refundHome(t);
  const carol = await token('carol');
  const alice = await token('alice', '--may-approve');
  const url = await serveHttp(t, home, procs);
  // initialize era: the client declared elicitation, yet nobody asks it
  const { client, asked } = await sdkClient(t, url, carol, () => ({ action: 'accept', content: { approve: true } }));
  const pending = client.callTool({ name: 'refund', arguments: { account: 'q', amount: '300' } });
  let rows = await queued(home);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].tool, 'host:ledger_append');
  await tg(home, 'deny-call', String(rows[0].id));
  const r = await pending;
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, `ledger_append: a person denied this call (call approval ${rows[0].id})`);
  assert.equal(asked.length, 0);
  assert.equal(existsSync(ledger), false);
  // 2026-07-28 era: no input_required either; the queue's approval runs it
  const call = modern(url, carol, 1, { account: 'q2', amount: '301' });
  rows = await queued(home);
  assert.equal(rows.length, 1);
  await tg(home, 'approve-call', String(rows[0].id));
  const m = await call;
  assert.equal(m.status, 200);
  assert.equal(m.body.result.resultType, 'complete', JSON.stringify(m.body));
  assert.deepEqual(m.body.result.structuredContent, { entry: 1 });
  const d = await decisions(home);
  assert.deepEqual(d.map((e) => [e.event, e.details.via ?? null]), [['call_denied', null], ['call_approved', null]]);
  // a requestState (alice's) sent by carol is refused before anything runs
  const ask = await modern(url, alice, 2, { account: 'q3', amount: '302' });
  assert.equal(ask.body.result.resultType, 'input_required');
  const stolen = await modern(url, carol, 3, { account: 'q3', amount: '302' },
    { inputResponses: ACCEPT, requestState: ask.body.result.requestState });
  assert.deepEqual(stolen.body.error, { code: -32602, message: 'Invalid params: requestState: principal carol may not answer approvals (its token lacks --may-approve)' });
  assert.equal(ledgerLines(ledger).length, 1);
});

test('2026-07-28 over HTTP: input_required, the retry with the state, and refused states', async (t) => {
  const { home, ledger, token, procs } = await refundHome(t);
  const alice = await token('alice', '--may-approve');
  const bob = await token('bob', '--may-approve');
  const url = await serveHttp(t, home, procs);
  const args = { account: 'acct-7', amount: '300' };
  const first = await modern(url, alice, 1, args);
  assert.equal(first.status, 200);
  const res = first.body.result;
  assert.equal(res.resultType, 'input_required', JSON.stringify(first.body));
  assert.equal(res.inputRequests.call_approval.method, 'elicitation/create');
  const params = res.inputRequests.call_approval.params;
  assert.equal(params.mode, 'form');
  assert.deepEqual(params.requestedSchema.required, ['approve']);
  assert.equal(params._meta['io.toolgate/call_approval'].callee, 'host:ledger_append');
  assert.match(params.message, /callee: host:ledger_append\nversion: [0-9a-f]{64}\narguments sha256: [0-9a-f]{64}\ncaller: refund@1\n/);
  assert.match(res.requestState, /^tgs1\.[A-Za-z0-9+/=]+\.[0-9a-f]{64}$/);
  assert.equal(existsSync(ledger), false);
  // the key was made on first use, 0600
  assert.equal(statSync(join(home, 'keys', 'request_state_key')).mode & 0o777, 0o600);

  // another principal's token, another request: refused, the state unspent
  const other = await modern(url, bob, 2, args, { inputResponses: ACCEPT, requestState: res.requestState });
  assert.deepEqual(other.body.error, { code: -32602, message: 'Invalid params: requestState: issued to another principal' });
  const otherReq = await modern(url, alice, 3, { account: 'acct-7', amount: '999' }, { inputResponses: ACCEPT, requestState: res.requestState });
  assert.deepEqual(otherReq.body.error, { code: -32602, message: 'Invalid params: requestState: issued for another request (the tool or its arguments differ)' });
  // a bit flipped in the payload, and in the MAC; a suffix (the
  // conformance suite's input-required-result-tampered-state)
  const [pfx, body, mac] = res.requestState.split('.');
  const flipChar = (s, i) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  for (const forged of [`${pfx}.${flipChar(body, 10)}.${mac}`, `${pfx}.${body}.${mac.slice(0, 63)}${mac[63] === '0' ? '1' : '0'}`, `${res.requestState}-TAMPERED`]) {
    const f = await modern(url, alice, 4, args, { inputResponses: ACCEPT, requestState: forged });
    assert.deepEqual(f.body.error, { code: -32602, message: 'Invalid params: requestState: integrity check failed (not a state of this server, or altered)' });
  }
  assert.equal(existsSync(ledger), false);

  // the retry with the answer: the call runs once
  const retry = await modern(url, alice, 5, args, { inputResponses: ACCEPT, requestState: res.requestState });
  assert.equal(retry.body.result.resultType, 'complete', JSON.stringify(retry.body));
  assert.deepEqual(retry.body.result.structuredContent, { entry: 1 });
  assert.equal(ledgerLines(ledger).length, 1);
  // replayed: refused, nothing runs again
  const replay = await modern(url, alice, 6, args, { inputResponses: ACCEPT, requestState: res.requestState });
  assert.deepEqual(replay.body.error, { code: -32602, message: 'Invalid params: requestState: already used (a requestState is good for one retry)' });
  assert.equal(ledgerLines(ledger).length, 1);

  const d = await decisions(home);
  assert.deepEqual(d.map((e) => [e.event, e.details.via]), [['call_denied', 'input_required'], ['call_approved', 'request_state']]);
  for (const e of d) assert.equal(e.actor, 'mcp:alice:modern');
  const log = JSON.parse((await tg(home, 'log', '--json', '--limit', '500')).stdout);
  const refused = log.filter((e) => e.event === 'mcp_state_refused').map((e) => [e.actor, e.details.reason]);
  assert.deepEqual(refused, [
    ['mcp:bob:modern', 'requestState: issued to another principal'],
    ['mcp:alice:modern', 'requestState: issued for another request (the tool or its arguments differ)'],
    ['mcp:alice:modern', 'requestState: integrity check failed (not a state of this server, or altered)'],
    ['mcp:alice:modern', 'requestState: integrity check failed (not a state of this server, or altered)'],
    ['mcp:alice:modern', 'requestState: integrity check failed (not a state of this server, or altered)'],
    ['mcp:alice:modern', 'requestState: already used (a requestState is good for one retry)'],
  ]);

  // a declined answer: the call is denied, the tool reports it
  const ask2 = await modern(url, alice, 7, { account: 'acct-8', amount: '400' });
  const no = await modern(url, alice, 8, { account: 'acct-8', amount: '400' }, { inputResponses: DECLINE, requestState: ask2.body.result.requestState });
  assert.equal(no.body.result.resultType, 'complete');
  assert.equal(no.body.result.isError, true);
  assert.match(no.body.result.content[0].text, /^ledger_append: a person denied this call \(call approval \d+\)$/);
  assert.equal(ledgerLines(ledger).length, 1);
  // an answer without its state is refused
  const bare = await modern(url, alice, 9, args, { inputResponses: ACCEPT });
  assert.deepEqual(bare.body.error, { code: -32602, message: 'Invalid params: requestState: must be the string of an input_required result (inputResponses came without it)' });
});

test('2026-07-28: an expired requestState is refused', async (t) => {
  const { home, ledger, token, procs } = await refundHome(t, 1000);
  const alice = await token('alice', '--may-approve');
  const url = await serveHttp(t, home, procs);
  const args = { account: 'late', amount: '500' };
  const first = await modern(url, alice, 1, args);
  assert.equal(first.body.result.resultType, 'input_required');
  await sleep(1500);
  const late = await modern(url, alice, 2, args, { inputResponses: ACCEPT, requestState: first.body.result.requestState });
  assert.deepEqual(late.body.error, { code: -32602, message: 'Invalid params: requestState: expired (call_approval_timeout_ms passed)' });
  assert.equal(existsSync(ledger), false);
});

test('2026-07-28 on stdio: input_required, then the retry runs the call', async (t) => {
  const { home, ledger, procs } = await refundHome(t);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  procs.push(s.proc);
  const args = { account: 'local', amount: '700' };
  const call = (id, extra = {}) => s.request({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'refund', arguments: args, ...extra, _meta: META_KEYS() } }, 30000);
  const first = await call(1);
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  const state = first.result.requestState;
  const ok = await call(2, { inputResponses: ACCEPT, requestState: state });
  assert.deepEqual(ok.result.structuredContent, { entry: 1 });
  const again = await call(3, { inputResponses: ACCEPT, requestState: state });
  assert.equal(again.error.message, 'Invalid params: requestState: already used (a requestState is good for one retry)');
  assert.equal(ledgerLines(ledger).length, 1);
});

// Two large refunds in one one-off program: each approval comes back as
// input_required; the second retry answers the first (approved) call from
// the run's journal (docs/BRIDGE.md, "Replay after input_required"), so
// each approved call runs once and nothing waits on the queue.
const TWO_REFUNDS = `#include <toolgate/tool.h>
int main(void)
{
	tg_value *a = NULL, *b = NULL;
	if (tg_call_tool("host:ledger_append", "{\\"account\\":\\"p1\\",\\"amount\\":\\"100\\"}", &a) != 0)
		tg_tool_fail("first: %s", a ? tg_arg_str(a, "message", "?") : "bridge");
	if (tg_call_tool("host:ledger_append", "{\\"account\\":\\"p2\\",\\"amount\\":\\"200\\"}", &b) != 0)
		tg_tool_fail("second: %s", b ? tg_arg_str(b, "message", "?") : "bridge");
	tg_out_object_begin();
	tg_out_key_int("a", tg_arg_int(a, "entry", -1));
	tg_out_key_int("b", tg_arg_int(b, "entry", -1));
	tg_out_end();
	return 0;
}
`;

test('2026-07-28: two approvals in a one-off program: two rounds, each approved call runs once', async (t) => {
  const { home, ledger, token, procs } = await refundHome(t);
  const alice = await token('alice', '--may-approve');
  const url = await serveHttp(t, home, procs);
  const post = (id, extra = {}) => fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${alice}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call',
      'Mcp-Name': 'run_program',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_program', arguments: { source: TWO_REFUNDS, calls: ['host:ledger_append'] }, ...extra, _meta: META_KEYS() } }),
  }).then((r) => r.json());
  const first = await post(1);
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  assert.ok(Number.isInteger(first.result.inputRequests.call_approval.params._meta['io.toolgate/call_approval'].id));
  assert.equal(existsSync(ledger), false);
  const second = await post(2, { inputResponses: ACCEPT, requestState: first.result.requestState });
  assert.equal(second.result.resultType, 'input_required', JSON.stringify(second));
  assert.deepEqual(ledgerLines(ledger).map((l) => JSON.parse(l).args.account), ['p1']);
  const done = await post(3, { inputResponses: ACCEPT, requestState: second.result.requestState });
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent.result, { a: 1, b: 2 });
  assert.deepEqual(ledgerLines(ledger).map((l) => JSON.parse(l).args.account), ['p1', 'p2']);
  const d = await decisions(home);
  assert.deepEqual(d.map((e) => [e.event, e.details.via ?? null]),
    [['call_denied', 'input_required'], ['call_approved', 'request_state'],
      ['call_denied', 'input_required'], ['call_approved', 'request_state']]);
  assert.deepEqual(JSON.parse((await tg(home, 'approvals', '--json')).stdout), []);
});
