// tests/mcp/tool_input.test.mjs: a tool asking its client for input in the
// 2026-07-28 era (docs/MCP.md, "A tool asking for input"; docs/SDK.md,
// "Asking for input"). Over raw HTTP: the tool's $input_required becomes
// input_required with a sealed requestState, and the retry with the answer
// gets the tool's answer using it; a tampered, replayed, or another tool's
// or arguments' state is refused with its exact reason (-32602); requests
// that are too many, too large, of an unknown kind or with a control
// character are an isError result naming the rule; "$input_responses" in
// the arguments is refused; only the requests the client's capabilities
// cover are sent; a retry runs only the version that asked, which the tool
// never sees; each run is charged to the call budget and audited. On
// stdio the same round trip, and the initialize era's clear error result.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/tool_input.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawServer, serveHttp, tempHomeWithProcs, toolgateBin } from './lib.mjs';
import { META_KEYS, MODERN } from './fixtures.mjs';

const SOURCE = `#include <toolgate/tool.h>
#include <string.h>

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *mode = tg_arg_str(a, "mode", "");
	const char *name = tg_input_elicited_str(a, "user_name", "name");
	static char big[17000];
	int i;

	if (strcmp(mode, "many") == 0) {
		tg_out_input_required_begin();
		for (i = 0; i < 9; i++) {
			char key[8];
			snprintf(key, sizeof(key), "k%d", i);
			tg_out_input_roots(key);
		}
	} else if (strcmp(mode, "big") == 0) {
		memset(big, 'x', sizeof(big) - 1);
		tg_out_input_required_begin();
		tg_out_input_elicit("user_name", big, "name");
	} else if (strcmp(mode, "control") == 0) {
		tg_out_input_required_begin();
		tg_out_input_elicit("user_name", "Name? \\033[2J", "name");
	} else if (strcmp(mode, "approval") == 0) {
		tg_out_input_required_begin();
		tg_out_input_roots("call_approval");
	} else if (strcmp(mode, "method") == 0) {
		tg_out_input_required_begin();
		tg_out_input_request_begin("t", "tools/call");
		tg_out_input_request_end();
	} else if (strcmp(mode, "both") == 0 && !name && !tg_input_response(a, "greeting")) {
		tg_out_input_required_begin();
		tg_out_input_elicit("user_name", "What is your name?", "name");
		tg_out_input_sample("greeting", "Say hello", 20);
	} else if (!name && strcmp(mode, "both") != 0) {
		tg_out_input_required_begin();
		tg_out_input_elicit("user_name", "What is your name?", "name");
	} else {
		char text[400];
		snprintf(text, sizeof(text), "Hello, %.128s (who=%.64s, extra=%d, pin=%d)",
			 name ? name : tg_input_sampled_text(a, "greeting"), tg_arg_str(a, "who", ""),
			 tg_input_response(a, "extra") != NULL, tg_arg_has(a, "$input_version"));
		tg_out_object_begin();
		tg_out_key_str("text", text);
	}
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
`;
const ASK = { user_name: { method: 'elicitation/create', params: {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } };
const ALICE = { user_name: { action: 'accept', content: { name: 'Alice' } } };

function createAsk(dir, home, name = 'ask', comment = '') {
  const src = join(dir, name);
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'tool.c'), SOURCE + comment);
  writeFileSync(join(src, 'tool.json'), JSON.stringify({
    name, description: 'Asks for a name, then greets it',
    input_schema: { type: 'object', properties: { who: { type: 'string' }, mode: { type: 'string' } },
                    additionalProperties: false },
    source: 'tool.c', limits: { timeout_ms: 5000, memory_mb: 32 },
    tests: [{ name: 'asks', args: { who: 'x' }, expect: { $input_required: ASK } },
            { name: 'greets', args: { who: 'x', $input_responses: ALICE },
              expect: { text: 'Hello, Alice (who=x, extra=0, pin=0)' } }],
  }));
  const c = spawnSync(toolgateBin(), ['--home', home, 'create', src], { encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr + c.stdout);
}

const CAPS = { elicitation: {}, sampling: {}, roots: {} };
let nextId = 1;
async function call(url, name, args, extra = {}, caps = CAPS) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
               'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: {
      name, arguments: args, ...extra,
      _meta: META_KEYS({ 'io.modelcontextprotocol/clientCapabilities': caps }) } }),
  });
  const body = await res.json();
  return { status: res.status, body };
}
const refused = (why) => ({ code: -32602, message: `Invalid params: ${why}` });

async function setup(t, extra = []) {
  const { dir, home, procs } = tempHomeWithProcs(t);
  createAsk(dir, home);
  createAsk(dir, home, 'ask2');
  const srv = await serveHttp(home, { extra: ['--insecure-no-auth', ...extra], procs });
  return { home, url: srv.url };
}

function log(home) {
  return JSON.parse(execFileSync(toolgateBin(), ['--home', home, 'log', '--json', '--limit', '500'],
                                 { encoding: 'utf8' }));
}

test('HTTP: the tool asks, the retry with the answer gets its answer; the state is single-use', async (t) => {
  const { home, url } = await setup(t);
  const first = (await call(url, 'ask', { who: 'x' })).body.result;
  assert.equal(first.resultType, 'input_required');
  assert.deepEqual(first.inputRequests, ASK);
  assert.match(first.requestState, /^tgs1\./);
  const done = await call(url, 'ask', { who: 'x' }, { inputResponses: ALICE, requestState: first.requestState });
  assert.equal(done.status, 200);
  assert.equal(done.body.result.resultType, 'complete');
  assert.deepEqual(done.body.result.content, [{ type: 'text', text: '{"text":"Hello, Alice (who=x, extra=0, pin=0)"}' }]);
  // extra answers next to the state are not passed to the tool
  const again = (await call(url, 'ask', { who: 'x' })).body.result;
  const extra = await call(url, 'ask', { who: 'x' }, { inputResponses: { ...ALICE, extra: { action: 'accept', content: {} } },
                                                       requestState: again.requestState });
  assert.deepEqual(extra.body.result.structuredContent, { text: 'Hello, Alice (who=x, extra=0, pin=0)' });
  // replayed
  const replay = await call(url, 'ask', { who: 'x' }, { inputResponses: ALICE, requestState: first.requestState });
  assert.deepEqual(replay.body.error, refused('requestState: already used (a requestState is good for one retry)'));
  // audited: the question with its keys and round, each run as a call
  const entries = log(home);
  const asked = entries.filter((e) => e.event === 'mcp_tool_input_required');
  assert.equal(asked.length, 2);
  assert.equal(asked[0].tool, 'ask');
  assert.deepEqual(asked[0].details.keys, ['user_name']);
  assert.equal(asked[0].details.round, 1);
  assert.equal(asked[0].details.version, 1);
  // four runs (ask, answer, ask, answer): the refused replay ran nothing
  assert.deepEqual(entries.filter((e) => e.event === 'mcp_call' && e.tool === 'ask').map((e) => e.details.ok),
                   [true, true, true, true]);
  const refusedRows = entries.filter((e) => e.event === 'mcp_state_refused');
  assert.deepEqual(refusedRows.map((e) => e.details.reason),
                   ['requestState: already used (a requestState is good for one retry)']);
});

test('HTTP: a tampered state, another tool\'s or other arguments\' state is refused exactly', async (t) => {
  const { url } = await setup(t);
  const s1 = (await call(url, 'ask', { who: 'x' })).body.result.requestState;
  const tampered = await call(url, 'ask', { who: 'x' }, { inputResponses: ALICE, requestState: `${s1}-TAMPERED` });
  assert.deepEqual(tampered.body.error,
                   refused('requestState: integrity check failed (not a state of this server, or altered)'));
  const s2 = (await call(url, 'ask', { who: 'x' })).body.result.requestState;
  const other = await call(url, 'ask2', { who: 'x' }, { inputResponses: ALICE, requestState: s2 });
  assert.deepEqual(other.body.error,
                   refused('requestState: issued for another request (the tool or its arguments differ)'));
  const s3 = (await call(url, 'ask', { who: 'x' })).body.result.requestState;
  const args = await call(url, 'ask', { who: 'y' }, { inputResponses: ALICE, requestState: s3 });
  assert.deepEqual(args.body.error,
                   refused('requestState: issued for another request (the tool or its arguments differ)'));
  const bare = await call(url, 'ask', { who: 'x' }, { inputResponses: ALICE });
  assert.deepEqual(bare.body.error, refused('requestState: must be the string of an input_required result (inputResponses came without it)'));
  const notObj = await call(url, 'ask', { who: 'x' }, { inputResponses: { user_name: 5 },
                                                        requestState: (await call(url, 'ask', { who: 'x' })).body.result.requestState });
  assert.deepEqual(notObj.body.error, refused('inputResponses.user_name: must be an object (the result of the request)'));
  const forged = await call(url, 'ask', { who: 'x', $input_responses: ALICE });
  assert.deepEqual(forged.body.error, refused('arguments: $input_responses is reserved (a retry\'s answers go in inputResponses, with the requestState)'));
  const pinned = await call(url, 'ask', { who: 'x', $input_version: 1 });
  assert.deepEqual(pinned.body.error, refused('arguments: $input_version is reserved (a retry\'s answers go in inputResponses, with the requestState)'));
});

test('HTTP: a retry runs only the version that asked', async (t) => {
  const { dir, home, procs } = tempHomeWithProcs(t);
  createAsk(dir, home);
  const srv = await serveHttp(home, { extra: ['--insecure-no-auth'], procs });
  const first = (await call(srv.url, 'ask', { who: 'x' })).body.result;
  createAsk(dir, home, 'ask', '/* v2 */\n');
  const retry = await call(srv.url, 'ask', { who: 'x' }, { inputResponses: ALICE, requestState: first.requestState });
  assert.deepEqual(retry.body.error, refused('requestState: issued by v1 of the tool, but v2 is active now: call again without the state'));
  // the refused retry ran nothing: v2 is recorded as a refused call
  const runs = log(home).filter((e) => e.event === 'mcp_call' && e.tool === 'ask');
  assert.deepEqual(runs.map((e) => [e.details.version, e.details.ok]), [[1, true], [2, false]]);
});

test('HTTP: requests too many, too large, of an unknown kind or with a control character are refused', async (t) => {
  const { url } = await setup(t);
  const R = "the tool's input request is refused: ";
  const want = {
    many: `${R}$input_required has 9 requests (at most 8)`,
    big: `${R}$input_required.user_name has 17150 bytes (at most 16384)`,
    control: `${R}$input_required.user_name.params has the control character U+001B at byte 6 (only newline and tab are allowed)`,
    approval: `${R}$input_required: the key call_approval is toolgate's (per-call approvals)`,
    method: `${R}$input_required.t: method tools/call is not one a tool may ask (elicitation/create, sampling/createMessage, roots/list)`,
  };
  for (const [mode, why] of Object.entries(want)) {
    const r = (await call(url, 'ask', { mode })).body.result;
    assert.deepEqual(r.content, [{ type: 'text', text: why }], mode);
    assert.equal(r.isError, true, mode);
  }
});

test('HTTP: only the requests the client can answer are sent', async (t) => {
  const { url } = await setup(t);
  const r = (await call(url, 'ask', { mode: 'both' }, {}, { sampling: {} })).body.result;
  assert.deepEqual(Object.keys(r.inputRequests), ['greeting']);
  const done = await call(url, 'ask', { mode: 'both' }, {
    inputResponses: { greeting: { role: 'assistant', content: { type: 'text', text: 'Hi' }, model: 'm' } },
    requestState: r.requestState }, { sampling: {} });
  assert.deepEqual(done.body.result.structuredContent, { text: 'Hello, Hi (who=, extra=0, pin=0)' });
  const none = (await call(url, 'ask', {}, {}, {})).body.result;
  assert.deepEqual(none.content, [{ type: 'text', text: 'ask asked for input this client cannot give (its clientCapabilities declare none of the methods asked)' }]);
});

test('HTTP: each run is charged to the call budget', async (t) => {
  const { url } = await setup(t, ['--max-calls', '2']);
  const first = (await call(url, 'ask', { who: 'x' })).body.result;
  const done = await call(url, 'ask', { who: 'x' }, { inputResponses: ALICE, requestState: first.requestState });
  assert.deepEqual(done.body.result.structuredContent, { text: 'Hello, Alice (who=x, extra=0, pin=0)' });
  const third = (await call(url, 'ask', { who: 'x' })).body.result;
  assert.deepEqual(third.content, [{ type: 'text', text: 'call budget exhausted: this session allows 2 tool calls (--max-calls / session_max_calls)' }]);
});

test('stdio: the same round trip in the 2026-07-28 era; an initialize-era session gets an error result', async (t) => {
  const { dir, home } = tempHomeWithProcs(t);
  createAsk(dir, home);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  t.after(() => s.close());
  const req = (id, extra) => s.request({ jsonrpc: '2.0', id, method: 'tools/call', params: {
    name: 'ask', arguments: { who: 'z' }, ...extra, _meta: META_KEYS({ 'io.modelcontextprotocol/clientCapabilities': CAPS }) } });
  const first = (await req(1, {})).result;
  assert.deepEqual(first.inputRequests, ASK);
  const done = (await req(2, { inputResponses: ALICE, requestState: first.requestState })).result;
  assert.deepEqual(done.structuredContent, { text: 'Hello, Alice (who=z, extra=0, pin=0)' });
  await s.initialize();
  const legacy = (await s.request({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask', arguments: {} } })).result;
  assert.deepEqual(legacy, { content: [{ type: 'text', text: 'ask asked its client for input ($input_required), which only the 2026-07-28 revision of MCP carries: this session speaks an older one' }], isError: true });
});
