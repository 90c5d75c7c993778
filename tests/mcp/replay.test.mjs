// tests/mcp/replay.test.mjs: the journaled replay after input_required
// (docs/BRIDGE.md, "Replay after input_required"; docs/MCP.md), 2026-07-28
// era. A registered tool "batch" first calls host:ledger_note (approval
// "never": it runs without a person and appends a line to the ledger), then
// host:ledger_append for 3-digit amounts (approval "match": a person). The
// retry after input_required must not repeat the ledger_note call:
//  - over stdio (the registry in the server process) and over HTTP (the
//    registry in a worker): after the accepted retry the ledger holds one
//    note line and one approved line, and the audit says "replayed";
//  - a program whose first call differs at the retry (clock_gettime
//    nanoseconds in its arguments) leaves replay mode: the call runs for
//    real, "bridge_replay_diverged" in the audit;
//  - a journal row changed or removed in SQLite makes the redeem fail with
//    the exact error, nothing runs, and the state stays unspent;
//  - two approvals in one run: two input_required rounds, each approved
//    call runs once;
//  - the caps: a journal past 1 MiB (two large host answers) carries no
//    retry, the approval waits on the queue; a one-off program with nine
//    approvals gets eight input_required rounds, the ninth waits on the
//    queue, and every call runs once;
//  - a registered callee answered from the journal: the calls it made
//    itself are skipped (the entry's span), so the calls after it replay.
// Run: TOOLGATE=build/cli/toolgate TG_SQLX=build/tests/registry/registry_sqlexec \
//      node --test tests/mcp/replay.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawServer, tempHomeWithProcs, toolgateBin, serveHttp as serveHttpLib } from './lib.mjs';
import { META_KEYS, MODERN } from './fixtures.mjs';

const exec = promisify(execFile);
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tg = (home, ...args) => exec(toolgateBin(), ['--home', home, ...args]);
const SQLX = process.env.TG_SQLX;
const sql = async (home, q) => (await exec(SQLX, [join(home, 'registry.db'), q])).stdout.trim();

const BATCH = `#include <stdio.h>
#include <time.h>
#include <toolgate/tool.h>

static long long call(const char *tool, const char *account, const char *amount)
{
	char args[128];
	tg_value *res = NULL;
	long long entry;

	snprintf(args, sizeof(args), "{\\"account\\":\\"%s\\",\\"amount\\":\\"%s\\"}", account, amount);
	if (tg_call_tool(tool, args, &res) != 0)
		tg_tool_fail("%s: %s", tool, res ? tg_arg_str(res, "message", "?") : "bridge");
	entry = tg_arg_int(res, "entry", -1);
	tg_value_free(res);
	return entry;
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long big = tg_arg_int(a, "big", 1), blobs = tg_arg_int(a, "blobs", 0), note, x = 0, y = 0;
	char acct[64] = "note";

	while (blobs-- > 0)
		call("host:blob", "blob", "1");

	if (tg_arg_bool(a, "jitter", false)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(acct, sizeof(acct), "note-%ld", (long)ts.tv_nsec);
	}
	note = call("host:ledger_note", acct, "1");
	if (big >= 1)
		x = call("host:ledger_append", "big-1", "300");
	if (big >= 2)
		y = call("host:ledger_append", "big-2", "400");
	tg_out_object_begin();
	tg_out_key_int("note", note);
	tg_out_key_int("a", x);
	tg_out_key_int("b", y);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
`;

const MANIFEST = {
  name: 'batch',
  description: 'A note that needs nobody, then refunds that need a person',
  input_schema: {
    type: 'object',
    properties: {
      big: { type: 'integer', minimum: 0, maximum: 2 }, jitter: { type: 'boolean' },
      blobs: { type: 'integer', minimum: 0, maximum: 2 },
    },
    additionalProperties: false,
  },
  source: 'tool.c',
  tests: [{ name: 'one', args: { big: 1 }, host_results: { ledger_note: { entry: 1 }, ledger_append: { entry: 2 } }, expect: { note: 1, a: 2, b: 0 } }],
  limits: { timeout_ms: 8000, max_tool_calls: 8 },
  calls: ['host:ledger_note', 'host:ledger_append', 'host:blob'],
};

async function batchHome(t) {
  assert.ok(SQLX, 'TG_SQLX must name registry_sqlexec');
  const { dir, home, procs } = tempHomeWithProcs(t, 'tg-replay-');
  await tg(home, 'init');
  const ledgerDir = join(dir, 'ledger');
  mkdirSync(ledgerDir);
  const cfg = JSON.parse(readFileSync(join(SRC, 'examples', 'ledger', 'config.json'), 'utf8'));
  const argv = ['/bin/sh', join(SRC, 'examples', 'ledger', 'ledger_append.sh'), ledgerDir];
  cfg.host_tools[0].argv = argv;
  cfg.host_tools.push({ ...cfg.host_tools[0], name: 'ledger_note', description: 'A note in the ledger', approval: 'never' });
  delete cfg.host_tools[1].match;
  // a large fixed answer: two of them pass the journal's 1 MiB
  cfg.host_tools.push({ ...cfg.host_tools[1], name: 'blob', description: 'A large answer', argv: undefined,
    result: { entry: 0, pad: 'x'.repeat(560000) } });
  delete cfg.host_tools[2].argv;
  cfg.call_approval_timeout_ms = 20000;
  writeFileSync(join(home, 'config.json'), JSON.stringify(cfg));
  const tool = join(dir, 'batch');
  mkdirSync(tool);
  writeFileSync(join(tool, 'tool.json'), JSON.stringify(MANIFEST));
  writeFileSync(join(tool, 'tool.c'), BATCH);
  await tg(home, 'create', tool);
  await tg(home, 'approve', 'batch@1');
  const token = async (name, ...flags) => (await tg(home, 'token', 'add', name, ...flags)).stdout.trim();
  return { home, ledger: join(ledgerDir, 'ledger.jsonl'), token, procs };
}

const accounts = (ledger) => (existsSync(ledger)
  ? readFileSync(ledger, 'utf8').trim().split('\n').map((l) => JSON.parse(l).args.account) : []);

async function auditLog(home) {
  return JSON.parse((await tg(home, 'log', '--json', '--limit', '1000')).stdout);
}
// the calls of the served runs (not the create's test run, "fixture")
const bridgeCalls = (log, callee) => log.filter((e) => e.event === 'bridge_call' && e.details.callee === callee &&
  e.details.outcome !== 'fixture');
const decisions = (log) => log.filter((e) => /^call_(approved|denied|timeout)$/.test(e.event))
  .map((e) => [e.event, e.details.via ?? null]);

const serveHttp = async (home, procs) => (await serveHttpLib(home, { procs })).url;

// tools/call NAME ARGS of the 2026-07-28 era over HTTP
function httpCaller(url, token) {
  return async (id, name, args, extra = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${token}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call',
        'Mcp-Name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra, _meta: META_KEYS() } }),
    });
    assert.equal(res.status, 200);
    return res.json();
  };
}

function stdioCaller(home, procs) {
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  procs.push(s.proc);
  return (id, name, args, extra = {}) => s.request({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra, _meta: META_KEYS() } }, 30000);
}

const ACCEPT = { call_approval: { result: { action: 'accept', content: { approve: true } } } };

async function oneApproval(t, transport) {
  const { home, ledger, token, procs } = await batchHome(t);
  const call = transport === 'http' ? httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'))
    : stdioCaller(home, procs);
  const first = await call(1, 'batch', { big: 1 });
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  assert.deepEqual(accounts(ledger), ['note']);
  assert.equal(await sql(home, 'SELECT count(*) FROM replay_journals'), '1');
  const done = await call(2, 'batch', { big: 1 }, { inputResponses: ACCEPT, requestState: first.result.requestState });
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { note: 1, a: 2, b: 0 });
  // the note ran once (today's "abort and replay" ran it twice)
  assert.deepEqual(accounts(ledger), ['note', 'big-1']);
  const log = await auditLog(home);
  const notes = bridgeCalls(log, 'host:ledger_note');
  assert.deepEqual(notes.map((e) => e.details.outcome), ['ok', 'replayed']);
  assert.equal(notes[1].details.journal_index, 0);
  assert.equal(notes[1].details.replayed_outcome, 'ok');
  assert.match(notes[1].details.callee_version, /^[0-9a-f]{64}$/);
  assert.equal(log.filter((e) => e.event === 'bridge_call_intent' && e.details.callee === 'host:ledger_note' && e.details.caller === 'batch@1').length, 1);
  assert.deepEqual(bridgeCalls(log, 'host:ledger_append').map((e) => e.details.outcome), ['denied', 'ok']);
  assert.deepEqual(decisions(log), [['call_denied', 'input_required'], ['call_approved', 'request_state']]);
  assert.deepEqual(log.filter((e) => e.event === 'mcp_input_required').map((e) => [e.details.round, e.details.journal]), [[1, 1]]);
  // redeemed: the row is gone
  assert.equal(await sql(home, 'SELECT count(*) FROM replay_journals'), '0');
}

test('stdio: the retry answers the note from the journal; the approved call runs once', (t) => oneApproval(t, 'stdio'));
test('HTTP: the retry answers the note from the journal; the approved call runs once', (t) => oneApproval(t, 'http'));

test('a program whose first call differs at the retry leaves replay mode and runs it', async (t) => {
  const { home, ledger, token, procs } = await batchHome(t);
  const call = httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'));
  const args = { big: 1, jitter: true };
  const first = await call(1, 'batch', args);
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  const done = await call(2, 'batch', args, { inputResponses: ACCEPT, requestState: first.result.requestState });
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { note: 2, a: 3, b: 0 });
  const acc = accounts(ledger);
  assert.equal(acc.length, 3);
  assert.match(acc[0], /^note-\d+$/);
  assert.match(acc[1], /^note-\d+$/);
  assert.notEqual(acc[0], acc[1]);
  assert.equal(acc[2], 'big-1');
  const log = await auditLog(home);
  const div = log.filter((e) => e.event === 'bridge_replay_diverged');
  assert.equal(div.length, 1);
  assert.equal(div[0].details.index, 0);
  assert.equal(div[0].details.journal.callee, 'host:ledger_note');
  assert.equal(div[0].details.call.callee, 'host:ledger_note');
  assert.equal(div[0].details.journal.callee_version, div[0].details.call.callee_version);
  assert.notEqual(div[0].details.journal.args_sha256, div[0].details.call.args_sha256);
  assert.deepEqual(bridgeCalls(log, 'host:ledger_note').map((e) => e.details.outcome), ['ok', 'ok']);
  assert.deepEqual(decisions(log), [['call_denied', 'input_required'], ['call_approved', 'request_state']]);
});

test('a journal row changed or removed in SQLite: the redeem fails, nothing runs', async (t) => {
  const { home, ledger, token, procs } = await batchHome(t);
  const call = httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'));
  const first = await call(1, 'batch', { big: 1 });
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  const state = first.result.requestState;
  // the forged journal would hand the program another note entry
  await sql(home, `UPDATE replay_journals SET entries = replace(entries, '"entry":1', '"entry":9')`);
  const forged = await call(2, 'batch', { big: 1 }, { inputResponses: ACCEPT, requestState: state });
  assert.deepEqual(forged.error, { code: -32602, message: 'Invalid params: requestState: journal altered (its digest does not match the one sealed in the state)' });
  await sql(home, 'DELETE FROM replay_journals');
  const gone = await call(3, 'batch', { big: 1 }, { inputResponses: ACCEPT, requestState: state });
  assert.deepEqual(gone.error, { code: -32602, message: 'Invalid params: requestState: journal missing (its row expired or was removed)' });
  assert.deepEqual(accounts(ledger), ['note']);
  const log = await auditLog(home);
  assert.deepEqual(log.filter((e) => e.event === 'mcp_state_refused').map((e) => e.details.reason), [
    'requestState: journal altered (its digest does not match the one sealed in the state)',
    'requestState: journal missing (its row expired or was removed)',
  ]);
  // a refused state is not spent
  assert.equal(await sql(home, 'SELECT count(*) FROM used_request_states'), '0');
  assert.deepEqual(decisions(log), [['call_denied', 'input_required']]);
});

test('two approvals in one run: two input_required rounds, each approved call runs once', async (t) => {
  const { home, ledger, token, procs } = await batchHome(t);
  const call = httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'));
  const args = { big: 2 };
  const first = await call(1, 'batch', args);
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  assert.equal(first.result.inputRequests.call_approval.params._meta['io.toolgate/call_approval'].callee, 'host:ledger_append');
  const second = await call(2, 'batch', args, { inputResponses: ACCEPT, requestState: first.result.requestState });
  assert.equal(second.result.resultType, 'input_required', JSON.stringify(second));
  assert.deepEqual(accounts(ledger), ['note', 'big-1']);
  const done = await call(3, 'batch', args, { inputResponses: ACCEPT, requestState: second.result.requestState });
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { note: 1, a: 2, b: 3 });
  assert.deepEqual(accounts(ledger), ['note', 'big-1', 'big-2']);
  const log = await auditLog(home);
  assert.deepEqual(bridgeCalls(log, 'host:ledger_note').map((e) => e.details.outcome), ['ok', 'replayed', 'replayed']);
  assert.deepEqual(bridgeCalls(log, 'host:ledger_append').map((e) => e.details.outcome),
    ['denied', 'ok', 'denied', 'replayed', 'ok']);
  assert.deepEqual(decisions(log), [['call_denied', 'input_required'], ['call_approved', 'request_state'],
    ['call_denied', 'input_required'], ['call_approved', 'request_state']]);
  assert.deepEqual(log.filter((e) => e.event === 'mcp_input_required').map((e) => [e.details.round, e.details.journal]), [[1, 1], [2, 2]]);
  // the first state is spent: it cannot start the run again
  const again = await call(4, 'batch', args, { inputResponses: ACCEPT, requestState: first.result.requestState });
  assert.equal(again.error.message, 'Invalid params: requestState: already used (a requestState is good for one retry)');
  assert.equal(accounts(ledger).length, 3);
  assert.equal(await sql(home, 'SELECT count(*) FROM replay_journals'), '0');
});

// The pending rows of the operator's queue, once there is one.
// The pending rows once one matches. A call a requestState's grant answers
// is queued and then decided at once (registry/call_approval.c): the queue
// can show it pending for that instant, so a test waits for the row it
// means, not for the first row it sees.
async function queued(home, match = () => true) {
  for (let i = 0; i < 300; i++) {
    const rows = JSON.parse((await tg(home, 'approvals', '--json')).stdout);
    if (rows.some(match)) return rows;
    await new Promise((res) => setTimeout(res, 50));
  }
  return [];
}

test('a journal past 1 MiB carries no retry: the approval waits on the queue', async (t) => {
  const { home, ledger, token, procs } = await batchHome(t);
  const call = httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'));
  const pending = call(1, 'batch', { big: 1, blobs: 2 });
  const rows = await queued(home);
  assert.equal(rows.length, 1);
  assert.deepEqual(rows[0].args, { account: 'big-1', amount: '300' });
  await tg(home, 'approve-call', String(rows[0].id));
  const done = await pending;
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { note: 1, a: 2, b: 0 });
  assert.deepEqual(accounts(ledger), ['note', 'big-1']);
  const log = await auditLog(home);
  assert.equal(log.filter((e) => e.event === 'mcp_input_required').length, 0);
  assert.deepEqual(decisions(log), [['call_approved', null]]);
  assert.equal(await sql(home, 'SELECT count(*) FROM replay_journals'), '0');
});

// Nine calls that need a person in one one-off program (every host call of
// one waits for a person): eight input_required rounds, then the queue.
const NINE = `#include <stdio.h>
#include <toolgate/tool.h>
int main(void)
{
	int k, n = 0;
	for (k = 1; k <= 9; k++) {
		char args[96];
		tg_value *res = NULL;
		snprintf(args, sizeof(args), "{\\"account\\":\\"r%d\\",\\"amount\\":\\"%d00\\"}", k, k);
		if (tg_call_tool("host:ledger_append", args, &res) != 0)
			tg_tool_fail("call %d: %s", k, res ? tg_arg_str(res, "message", "?") : "bridge");
		n += (int)tg_arg_int(res, "entry", 0) == k;
		tg_value_free(res);
	}
	tg_out_object_begin();
	tg_out_key_int("in_order", n);
	tg_out_end();
	return 0;
}
`;

test('eight input_required rounds per request, then the queue; each call runs once', async (t) => {
  const { home, ledger, token, procs } = await batchHome(t);
  const call = httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'));
  const args = { source: NINE, calls: ['host:ledger_append'] };
  let res = await call(1, 'run_program', args);
  for (let round = 1; round <= 8; round++) {
    assert.equal(res.result.resultType, 'input_required', `round ${round}: ${JSON.stringify(res)}`);
    assert.equal(accounts(ledger).length, round - 1);
    if (round === 8) break;
    res = await call(round + 1, 'run_program', args, { inputResponses: ACCEPT, requestState: res.result.requestState });
  }
  const pending = call(9, 'run_program', args, { inputResponses: ACCEPT, requestState: res.result.requestState });
  // r8 is queued and approved by its grant at once, before r9 is queued:
  // once r9 waits, it waits alone
  const rows = await queued(home, (row) => row.args.account === 'r9');
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.deepEqual(rows[0].args, { account: 'r9', amount: '900' });
  await tg(home, 'approve-call', String(rows[0].id));
  const done = await pending;
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent.result, { in_order: 9 });
  assert.deepEqual(accounts(ledger), ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
  const log = await auditLog(home);
  assert.deepEqual(log.filter((e) => e.event === 'mcp_input_required').map((e) => e.details.round), [1, 2, 3, 4, 5, 6, 7, 8]);
});

// A registered callee's own bridged calls: "outer" calls the registered
// tool "noter" (which calls host:ledger_note), then host:ledger_note, then
// an approval. At the retry noter's call is answered from the journal, its
// inner call is not made, and the index of the next call skips it (the
// entry's span): the second note is replayed too, not run again.
const NOTER = `#include <toolgate/tool.h>
int main(void)
{
	tg_value *res = NULL;
	if (tg_call_tool("host:ledger_note", "{\\"account\\":\\"inner\\",\\"amount\\":\\"1\\"}", &res) != 0)
		tg_tool_fail("inner note failed");
	tg_out_object_begin();
	tg_out_key_int("entry", tg_arg_int(res, "entry", -1));
	tg_out_end();
	return 0;
}
`;
const OUTER = `#include <toolgate/tool.h>
static long long call(const char *tool, const char *args)
{
	tg_value *res = NULL;
	if (tg_call_tool(tool, args, &res) != 0)
		tg_tool_fail("%s: %s", tool, res ? tg_arg_str(res, "message", "?") : "bridge");
	return tg_arg_int(res, "entry", -1);
}
int main(void)
{
	long long a = call("noter", "{}");
	long long b = call("host:ledger_note", "{\\"account\\":\\"after\\",\\"amount\\":\\"1\\"}");
	long long c = call("host:ledger_append", "{\\"account\\":\\"big\\",\\"amount\\":\\"500\\"}");
	tg_out_object_begin();
	tg_out_key_int("inner", a);
	tg_out_key_int("after", b);
	tg_out_key_int("big", c);
	tg_out_end();
	return 0;
}
`;

async function createTool(home, dir, manifest, source) {
  mkdirSync(dir);
  writeFileSync(join(dir, 'tool.json'), JSON.stringify(manifest));
  writeFileSync(join(dir, 'tool.c'), source);
  await tg(home, 'create', dir);
  await tg(home, 'approve', `${manifest.name}@1`);
}

test('a registered callee replayed: its own calls are skipped, the next calls replay in order', async (t) => {
  const { home, ledger, token, procs } = await batchHome(t);
  const obj = { type: 'object', properties: {}, additionalProperties: false };
  await createTool(home, join(dirname(home), 'noter'), {
    name: 'noter', description: 'A note through a host tool', input_schema: obj, source: 'tool.c',
    tests: [{ name: 'n', args: {}, host_results: { ledger_note: { entry: 4 } }, expect: { entry: 4 } }],
    limits: { timeout_ms: 4000, max_tool_calls: 2 }, calls: ['host:ledger_note'],
  }, NOTER);
  await createTool(home, join(dirname(home), 'outer'), {
    name: 'outer', description: 'A callee, a note, an approval', input_schema: obj, source: 'tool.c',
    // noter holds a capability (host:ledger_note): in a test it never runs,
    // its tool_results fixture answers for it
    tests: [{ name: 'o', args: {}, host_results: { ledger_note: { entry: 4 }, ledger_append: { entry: 5 } }, tool_results: { noter: { entry: 4 } }, expect: { inner: 4, after: 4, big: 5 } }],
    limits: { timeout_ms: 8000, max_tool_calls: 4 }, calls: ['noter', 'host:ledger_note', 'host:ledger_append'],
  }, OUTER);
  const call = httpCaller(await serveHttp(home, procs), await token('alice', '--may-approve'));
  const first = await call(1, 'outer', {});
  assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
  assert.deepEqual(accounts(ledger), ['inner', 'after']);
  const done = await call(2, 'outer', {}, { inputResponses: ACCEPT, requestState: first.result.requestState });
  assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
  assert.deepEqual(done.result.structuredContent, { inner: 1, after: 2, big: 3 });
  assert.deepEqual(accounts(ledger), ['inner', 'after', 'big']);
  const log = await auditLog(home);
  assert.equal(log.filter((e) => e.event === 'bridge_replay_diverged').length, 0);
  const served = log.filter((e) => e.event === 'bridge_call' && e.details.outcome !== 'fixture' && /@1$/.test(e.details.caller))
    .map((e) => [e.details.caller, e.details.callee, e.details.outcome]);
  assert.deepEqual(served, [
    ['noter@1', 'host:ledger_note', 'ok'], ['outer@1', 'noter', 'ok'], ['outer@1', 'host:ledger_note', 'ok'],
    ['outer@1', 'host:ledger_append', 'denied'],
    ['outer@1', 'noter', 'replayed'], ['outer@1', 'host:ledger_note', 'replayed'], ['outer@1', 'host:ledger_append', 'ok'],
  ]);
});
