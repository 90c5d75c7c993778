// tests/mcp/refusals.test.mjs: a session that floods refused requests
// writes a bounded number of audit rows and is ended. With a call budget
// of 2, 2 calls of an unknown tool then 256 more (refused: budget spent)
// leave exactly one mcp_unknown_tool and one mcp_denied entry in full, one
// mcp_refusals entry per kind with the count of the others, and an
// mcp_session_end saying why the session ended; on stdio the server
// answers the 258th call and stops reading (its stdin still open), over
// HTTP the session is deleted and its next request is 404. A refusal that
// is only counted (its kind was audited in full this minute) still answers
// with its reason, not an empty one.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/refusals.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { tempHome, tempHomeWithProcs, toolgateBin, serveHttp } from './lib.mjs';

const END = 256; // TG_MCP_SESSION_REFUSED_END (mcp/mcp.h)
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const call = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'nope', arguments: {} } });

function auditOf(home) {
  const log = JSON.parse(execFileSync(toolgateBin(), ['--home', home, 'log', '--json']));
  return log.filter((e) => e.actor.startsWith('mcp:'))
    .map((e) => [e.event, e.event === 'mcp_refusals' ? [e.details.event, e.details.count]
      : e.event === 'mcp_session_end' ? e.details.ended : e.tool]);
}

const WANT = [
  ['mcp_session_start', null],
  ['mcp_unknown_tool', 'nope'],
  ['mcp_denied', 'nope'],
  ['mcp_refusals', ['mcp_unknown_tool', 1]],
  ['mcp_refusals', ['mcp_denied', END - 1]],
  ['mcp_session_end', 'refused requests went on after a budget was spent'],
];

test('stdio: a refused flood is audited in a few rows and ends the session', async (t) => {
  const home = tempHome(t);
  const proc = spawn(toolgateBin(), ['--home', home, 'serve', '--max-calls', '2'],
    { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => proc.kill('SIGKILL'));
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  proc.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
  const lines = [INIT, { jsonrpc: '2.0', method: 'notifications/initialized' }];
  for (let i = 1; i <= 2 + END + 40; i++) lines.push(call(i));
  proc.stdin.write(lines.map((m) => JSON.stringify(m)).join('\n') + '\n');
  // stdin stays open: the server ends the session by itself
  const code = await new Promise((res) => proc.on('exit', res));
  assert.equal(code, 0, err);
  const answers = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(answers.length, 1 + 2 + END);
  assert.equal(answers.at(-1).id, 2 + END);
  assert.match(answers.at(-1).result.content[0].text, /^call budget exhausted/);
  assert.match(answers[1].error.message, /^Unknown tool: nope$/);
  assert.match(err, /toolgate: serve: session ended: 256 refused requests after its budget was spent/);
  proc.stdin.destroy();
  assert.deepEqual(auditOf(home), WANT);
});

test('http: a refused flood is audited in a few rows and the session is deleted', async (t) => {
  const env = tempHomeWithProcs(t);
  const { url } = await serveHttp(env.home, { extra: ['--insecure-no-auth', '--max-calls', '2'],
    procs: env.procs });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INIT) });
  assert.equal(r.status, 200);
  const sid = r.headers.get('mcp-session-id');
  await r.text();
  const h = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
  r = await fetch(url, { method: 'POST', headers: h,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await r.text();
  for (let i = 1; i <= 2 + END; i++) {
    r = await fetch(url, { method: 'POST', headers: { ...h, accept: 'application/json' },
      body: JSON.stringify(call(i)) });
    assert.equal(r.status, 200, `call ${i}`);
    await r.text();
  }
  r = await fetch(url, { method: 'POST', headers: { ...h, accept: 'application/json' },
    body: JSON.stringify(call(2 + END + 1)) });
  assert.equal(r.status, 404);
  await r.text();
  assert.deepEqual(auditOf(env.home), WANT);
});

// One stdio session: the handshake, then messages, then end of input; the
// server's exit code and its answers to requests with an id of 1 or more.
async function stdioSession(t, home, messages) {
  const proc = spawn(toolgateBin(), ['--home', home, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => proc.kill('SIGKILL'));
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  const lines = [INIT, { jsonrpc: '2.0', method: 'notifications/initialized' }, ...messages];
  proc.stdin.end(lines.map((m) => JSON.stringify(m)).join('\n') + '\n');
  const code = await new Promise((res) => proc.on('exit', res));
  return { code, answers: out.trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.id >= 1) };
}

test('stdio: each probe of another tool is seen in full once a minute, up to 16 kinds', async (t) => {
  const home = tempHome(t);
  const messages = [];
  let id = 1;
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 30; i++) {
      messages.push({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: `t${i}`, arguments: {} } });
    }
  }
  const { code, answers } = await stdioSession(t, home, messages);
  assert.equal(code, 0);
  assert.equal(answers.length, 60);
  // each answer names its tool, audited in full or only counted
  answers.forEach((a, k) => assert.equal(a.error.message, `Unknown tool: t${k % 30}`));
  const want = [['mcp_session_start', null]];
  for (let i = 0; i <= 16; i++) want.push(['mcp_unknown_tool', `t${i}`]);
  for (let i = 0; i < 16; i++) want.push(['mcp_refusals', ['mcp_unknown_tool', 1]]);
  want.push(['mcp_refusals', ['mcp_unknown_tool', 27]]);
  want.push(['mcp_session_end', undefined]);
  assert.deepEqual(auditOf(home), want);
});

test('stdio: a refusal only counted into mcp_refusals still answers with its reason', async (t) => {
  const home = tempHome(t);
  // 23 create_tool without a source: one kind of refusal (the reason is the
  // same, whatever the name), audited in full once, then only counted
  const bad = (id, name) => ({ jsonrpc: '2.0', id, method: 'tools/call',
    params: { name: 'create_tool', arguments: { name, description: 'x' } } });
  const messages = [];
  let id = 1;
  for (let i = 0; i < 3; i++) messages.push(bad(id++, 'same'));
  for (let i = 0; i < 20; i++) messages.push(bad(id++, `k${i}`));
  const { code, answers } = await stdioSession(t, home, messages);
  assert.equal(code, 0);
  assert.equal(answers.length, 23);
  for (const a of answers) {
    assert.equal(a.result.isError, true);
    assert.equal(a.result.content[0].text, 'create_tool: arguments: source: is required', `answer ${a.id}`);
  }
  const log = auditOf(home);
  assert.equal(log.filter(([e]) => e === 'mcp_create_invalid').length, 1);
  assert.deepEqual(log.filter(([e]) => e === 'mcp_refusals').map(([, d]) => d),
    [['mcp_create_invalid', 22]]);
});
