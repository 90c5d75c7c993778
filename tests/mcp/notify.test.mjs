// tests/mcp/notify.test.mjs: MCP logging and progress of `toolgate serve`
// with the official SDK client, on stdio and over Streamable HTTP:
// logging/setLevel then create_tool gets the exact log lines at that level
// and none below it; a tools/call with a progressToken gets
// notifications/progress in order with a growing progress, one without
// gets none.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/notify.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema, LoggingMessageNotificationSchema, ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { tempHome, tempHomeWithProcs, toolgateBin } from './lib.mjs';
import { listeningUrl } from './fixtures.mjs';

// A tool that says "noise" on stderr at each run (a debug log line).
const NOISY = `#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	fprintf(stderr, "noise\\n");
	tg_out_object_begin();
	tg_out_key_int("n", tg_arg_int(a, "n", 0) + 1);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
`;
const BROKEN = NOISY.replace('return 0;', 'return undeclared_thing;');

function manifest(source, name = 'noisy') {
  return {
    name,
    description: 'Add one and say noise',
    input_schema: { type: 'object', properties: { n: { type: 'integer' } } },
    source,
    tests: [
      { name: 'one', args: { n: 0 }, expect: { n: 1 } },
      { name: 'two', args: { n: 1 }, expect: { n: 2 } },
    ],
    limits: { timeout_ms: 2000, memory_mb: 64 },
    capabilities: [],
  };
}

// A client that records the log lines and the progress notifications it
// gets without asking (the SDK routes those of its own tokens to onprogress),
// and every message as the transport read it, in order (wire): the SDK hands
// a notification to its handler a microtask later but forgets a request's
// progress handler as soon as the answer is read, so on stdio a last step
// read in the same chunk as the answer never reaches onprogress although
// the server wrote it before the answer. The order the server wrote is
// asserted on the wire.
async function connect(t, transport) {
  const client = new Client({ name: 'toolgate-notify-test', version: '1.0.0' });
  const logs = [];
  const stray = [];
  const wire = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  await client.connect(transport);
  t.after(() => client.close());
  const inner = transport.onmessage;
  transport.onmessage = (m, extra) => { wire.push(m); inner?.(m, extra); };
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/progress') stray.push(n);
  };
  return { client, logs, stray, wire };
}

// The progress notifications the server wrote for one request, each before
// its answer; what the SDK handed to onprogress (seen) is a prefix of them,
// all of them over HTTP, where each SSE event is parsed on its own.
function wroteBefore(wire, transport, seen) {
  const answer = wire.findIndex((m) => m.id !== undefined && ('result' in m || 'error' in m));
  assert.ok(answer > 0, JSON.stringify(wire));
  const token = wire.find((m) => m.method === 'notifications/progress')?.params.progressToken;
  const wrote = wire.filter((m) => m.method === 'notifications/progress')
    .map((m) => [wire.indexOf(m), m.params]);
  assert.ok(wrote.every(([at, p]) => at < answer && p.progressToken === token),
    JSON.stringify(wire));
  const params = wrote.map(([, p]) => p);
  const handed = params.map(({ progressToken, ...rest }) => rest);
  if (transport === 'http') assert.deepEqual(seen, handed);
  else assert.deepEqual(seen, handed.slice(0, seen.length));
  return params;
}

async function stdio(t) {
  const home = tempHome(t);
  return connect(t, new StdioClientTransport({
    command: toolgateBin(), args: ['--home', home, 'serve'], stderr: 'pipe',
  }));
}

async function http(t) {
  const env = tempHomeWithProcs(t);
  const proc = spawn(toolgateBin(), ['--home', env.home, 'serve', '--http', '127.0.0.1:0',
    '--insecure-no-auth'], { stdio: ['ignore', 'ignore', 'pipe'] });
  env.procs.push(proc);
  const url = await listeningUrl(proc);
  return connect(t, new StreamableHTTPClientTransport(new URL(url)));
}

const create = (client, source, opts) => client.callTool(
  { name: 'create_tool', arguments: manifest(source) }, CallToolResultSchema, opts);

const INFO = [
  'vet: analysing tool.c',
  'build: compiling tool.c',
  'test "one": passed',
  'test "two": passed',
];

for (const [transport, open] of [['stdio', stdio], ['http', http]]) {
  test(`${transport}: no log line before setLevel; at info exactly the phases; at debug the tool's stderr too`, async (t) => {
    const { client, logs } = await open(t);
    let res = await create(client, NOISY);
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(logs, []);

    assert.deepEqual(await client.setLoggingLevel('info'), {});
    res = await create(client, NOISY.replace('+ 1', '+ 1 + 0'));
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(logs.map((l) => l.data), INFO);
    assert.ok(logs.every((l) => l.level === 'info' && l.logger === 'create'), JSON.stringify(logs));

    logs.length = 0;
    await client.setLoggingLevel('debug');
    res = await create(client, NOISY.replace('+ 1', '+ 0 + 1'));
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(logs.map((l) => `${l.level} ${l.data}`), [
      'info vet: analysing tool.c', 'info build: compiling tool.c',
      'debug noise', 'info test "one": passed', 'debug noise', 'info test "two": passed',
    ]);

    // a call of the registered tool: its stderr at debug
    logs.length = 0;
    res = await client.callTool({ name: 'noisy', arguments: { n: 4 } });
    assert.deepEqual(res.structuredContent, { n: 5 });
    assert.deepEqual(logs, [{ level: 'debug', logger: 'tool', data: 'noise' }]);
  });

  test(`${transport}: at error only the diagnostics of a broken source, nothing below`, async (t) => {
    const { client, logs } = await open(t);
    await client.setLoggingLevel('error');
    const res = await create(client, BROKEN);
    assert.equal(res.isError, true, JSON.stringify(res));
    assert.ok(logs.length >= 1, 'no error log line');
    assert.ok(logs.every((l) => l.level === 'error'), JSON.stringify(logs));
    assert.ok(logs.some((l) => l.logger === 'vet' && /^tool\.c:10:\d+: compile error/.test(l.data)),
      JSON.stringify(logs));
    await assert.rejects(client.setLoggingLevel('verbose'), /level must be one of/);
  });

  test(`${transport}: progress of create_tool and of a call in order with a token, none without`, async (t) => {
    const { client, stray, wire } = await open(t);
    const seen = [];
    wire.length = 0;
    let res = await create(client, NOISY, { onprogress: (p) => seen.push(p) });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    let wrote = wroteBefore(wire, transport, seen);
    assert.deepEqual(wrote.map((p) => p.progress), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(wrote.map((p) => p.message), [
      'create_tool: started', 'vet: analysing tool.c', 'build: compiling tool.c',
      'test "one": passed', 'test "two": passed', 'create_tool: done',
    ]);
    assert.equal(wrote[0].total, undefined);
    assert.ok(wrote.slice(1).every((p) => p.total === 5), JSON.stringify(wrote));

    seen.length = 0;
    wire.length = 0;
    res = await client.callTool({ name: 'noisy', arguments: { n: 1 } }, CallToolResultSchema,
      { onprogress: (p) => seen.push(p) });
    assert.deepEqual(res.structuredContent, { n: 2 });
    wrote = wroteBefore(wire, transport, seen);
    assert.deepEqual(wrote.map((p) => p.progress), [0, 1, 2, 3]);
    assert.equal(wrote[1].message, 'noisy v1: running');
    assert.match(wrote[2].message, /^noisy v1: ran after \d+ ms$/);
    assert.equal(wrote[3].message, 'noisy: done');

    // without a token: no progress at all
    res = await create(client, NOISY.replace('+ 1', '+ 1 + 0'));
    assert.equal(res.isError, undefined, JSON.stringify(res));
    res = await client.callTool({ name: 'noisy', arguments: { n: 1 } });
    assert.deepEqual(res.structuredContent, { n: 2 });
    assert.deepEqual(stray, []);
  });
}
