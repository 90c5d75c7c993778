// tests/mcp/authoring.test.mjs: what an agent sees before and while writing
// a tool (issue 14), through the official TypeScript SDK client against the
// real `toolgate serve`: the create_tool description carries the contract,
// the SDK with an example that is accepted as is, what is allowed and what
// is refused with what to use instead; the resources (SDK header, SDK.md,
// the effective policy) are listed and read; a refusal lists every finding
// with a hint in one answer; output_schema is published as outputSchema
// (wrapped when not an object), every success carries structuredContent
// (objects as is, other values as {"result": ...}), and a result that does
// not match output_schema is a tool error.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/authoring.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempHome, toolgateBin } from './lib.mjs';

async function connect(t) {
  const home = tempHome(t);
  const transport = new StdioClientTransport({
    command: toolgateBin(), args: ['--home', home, 'serve'], stderr: 'pipe',
  });
  const client = new Client({ name: 'toolgate-authoring-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

function manifest(name, source, tests, extra = {}) {
  return {
    name, description: `the ${name} tool`,
    input_schema: { type: 'object', properties: { x: { type: 'integer' }, text: { type: 'string' }, times: { type: 'integer' } } },
    source, tests, limits: { timeout_ms: 2000, memory_mb: 64 }, ...extra,
  };
}

const text = (r) => r.content.map((c) => c.text).join('\n');

test('create_tool description: contract, SDK example, allowed, refused', async (t) => {
  const client = await connect(t);
  const { tools } = await client.listTools();
  const ct = tools.find((x) => x.name === 'create_tool');
  const d = ct.description;
  for (const want of ['CONTRACT', 'stdin', 'stdout', 'Exit 0', '#include <toolgate/tool.h>',
    'tg_tool_read_args', 'tg_arg_str', 'tg_out_object_begin', 'tg_out_end', 'tg_tool_fail',
    'tg_call_tool', 'ALLOWED', 'regcomp', 'strptime', 'stdarg.h', 'REFUSED', 'system',
    'socket', 'getenv', 'switch', 'toolgate://policy', 'toolgate://docs/SDK.md', 'output_schema']) {
    assert.ok(d.includes(want), `the description lacks ${want}`);
  }
  assert.ok(ct.inputSchema.properties.output_schema, 'create_tool takes output_schema');
  // the example, cut out of the description, is accepted as is
  const start = d.indexOf('#include <toolgate/tool.h>\nint main');
  const end = d.indexOf('\n}\n', start);
  assert.ok(start >= 0 && end > start, 'the example is in the description');
  const example = d.slice(start, end + 3);
  assert.ok(example.split('\n').length <= 12, 'about ten lines');
  const r = await client.callTool({ name: 'create_tool', arguments: manifest('chars', example,
    [{ name: 'abc twice', args: { text: 'abc', times: 2 }, expect: { chars: 6 } }]) });
  assert.equal(r.isError, undefined, text(r));
  const call = await client.callTool({ name: 'chars', arguments: { text: 'hello', times: 3 } });
  assert.deepEqual(call.structuredContent, { chars: 15 });
});

test('resources: the SDK header, SDK.md and the effective policy', async (t) => {
  const client = await connect(t);
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(),
    ['toolgate://docs/SDK.md', 'toolgate://policy', 'toolgate://sdk/tool.h']);
  const header = await client.readResource({ uri: 'toolgate://sdk/tool.h' });
  assert.equal(header.contents[0].mimeType, 'text/x-c');
  assert.match(header.contents[0].text, /static inline tg_tool_args \*tg_tool_read_args\(void\)/);
  // every part the header includes, the last one too
  assert.match(header.contents[0].text, /static inline FILE \*tg_workspace_open\(const char \*path, const char \*mode\)/);
  const doc = await client.readResource({ uri: 'toolgate://docs/SDK.md' });
  assert.match(doc.contents[0].text, /^# The tool SDK: `toolgate\/tool.h`/);
  const pol = JSON.parse((await client.readResource({ uri: 'toolgate://policy' })).contents[0].text);
  for (const h of ['stdio.h', 'regex.h', 'stdarg.h', 'unistd.h', 'toolgate/tool.h']) assert.ok(pol.headers.includes(h), h);
  for (const f of ['regcomp', 'regexec', 'strptime', 'memmem', 'fmemopen', 'qsort']) assert.ok(pol.allow.includes(f), f);
  for (const f of ['system', 'socket', 'getenv', 'open']) assert.ok(!pol.allow.includes(f), f);
  const proc = pol.rules.find((r) => r.id === 'process');
  assert.equal(proc.severity, 'error');
  assert.match(proc.hint, /compute the result in the tool/);
  assert.ok(pol.rules.every((r) => typeof r.hint === 'string' && r.hint.length > 0), 'every rule has a hint');
  await assert.rejects(client.readResource({ uri: 'toolgate://nothing' }), /Resource not found/);
});

test('a refusal lists every finding with its hint in one answer', async (t) => {
  const client = await connect(t);
  const src = `#include <stdlib.h>
#include <sys/socket.h>
int main(void)
{
	int s = socket(2, 1, 0);
	return system("id") + s;
}
`;
  const r = await client.callTool({ name: 'create_tool', arguments: manifest('bad', src,
    [{ name: 't', args: {}, expect: 0 }]) });
  assert.equal(r.isError, true);
  const doc = r.structuredContent;
  const rules = doc.findings.map((f) => f.rule);
  for (const want of ['include', 'network', 'process']) assert.ok(rules.includes(want), `${want} in ${rules}`);
  const hint = (rule) => doc.findings.find((f) => f.rule === rule).hint;
  assert.match(hint('network'), /tg_call_tool/);
  assert.match(hint('process'), /compute the result in the tool/);
  assert.match(hint('include'), /allowed headers/);
});

const HALF = `#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	long long x = tg_arg_int(a, "x", 0);
	if (x < 0)
		tg_out_str("negative");
	else
		tg_out_int(x / 2);
	tg_out_end();
	return 0;
}
`;

test('output_schema: outputSchema, structuredContent, mismatch is a tool error', async (t) => {
  const client = await connect(t);
  // a scalar schema is published wrapped as the "result" property
  let r = await client.callTool({ name: 'create_tool', arguments: manifest('half', HALF,
    [{ name: 'ten', args: { x: 10 }, expect: 5 }], { output_schema: { type: 'integer' } }) });
  assert.equal(r.isError, undefined, text(r));
  // an object schema as is; no schema: no outputSchema
  const OBJ = HALF.replace('tg_out_int(x / 2);', '{ tg_out_object_begin(); tg_out_key_int("half", x / 2); tg_out_object_end(); }');
  const objSchema = { type: 'object', properties: { half: { type: 'integer' } }, required: ['half'] };
  r = await client.callTool({ name: 'create_tool', arguments: manifest('half_obj', OBJ,
    [{ name: 'ten', args: { x: 10 }, expect: { half: 5 } }], { output_schema: objSchema }) });
  assert.equal(r.isError, undefined, text(r));
  const ARR = HALF.replace('tg_out_int(x / 2);', '{ tg_out_array_begin(); tg_out_int(x); tg_out_int(x / 2); tg_out_array_end(); }');
  r = await client.callTool({ name: 'create_tool', arguments: manifest('pair', ARR,
    [{ name: 'ten', args: { x: 10 }, expect: [10, 5] }]) });
  assert.equal(r.isError, undefined, text(r));

  const { tools } = await client.listTools();
  const by = Object.fromEntries(tools.map((x) => [x.name, x]));
  assert.deepEqual(by.half.outputSchema, { type: 'object', properties: { result: { type: 'integer' } }, required: ['result'] });
  assert.deepEqual(by.half_obj.outputSchema, objSchema);
  assert.equal(by.pair.outputSchema, undefined);

  // the SDK client checks structuredContent against outputSchema itself
  r = await client.callTool({ name: 'half', arguments: { x: 42 } });
  assert.equal(r.isError, undefined, text(r));
  assert.deepEqual(r.structuredContent, { result: 21 });
  assert.equal(text(r), '21');
  r = await client.callTool({ name: 'half_obj', arguments: { x: 7 } });
  assert.deepEqual(r.structuredContent, { half: 3 });
  r = await client.callTool({ name: 'pair', arguments: { x: 4 } });
  assert.deepEqual(r.structuredContent, { result: [4, 2] });

  // a result of another shape never reaches the agent as a result
  r = await client.callTool({ name: 'half', arguments: { x: -1 } });
  assert.equal(r.isError, true);
  assert.match(text(r), /the result does not match output_schema: result: must be an integer/);
  assert.equal(r.structuredContent, undefined);
});
