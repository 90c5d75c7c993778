// tests/mcp/sample_tests.test.mjs (issue 28): what the agent sees of
// recorded calls through tool_history (raw JSON-RPC over stdio). A person
// made recorded call #2 a test (toolgate tests add): tool_history carries
// it as regression_tests. A version that crashes on recorded call #1 is
// held, and its shadow case carries that call as a ready-to-add test
// (as_test: the arguments and the active version's answer), which the
// agent copies into its next manifest: that create passes it and is active.
// tool_history goes through the principal's patterns (mcp_authz asserts
// the refusal for a tool outside them).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/sample_tests.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';

function source(extra) {
  return '#include <stdlib.h>\n#include <toolgate/tool.h>\nint main(void)\n{\n' +
    '\ttg_tool_args *a = tg_tool_read_args();\n\tlong long x = tg_arg_int(a, "x", 0);\n' +
    `\t${extra}\n\ttg_out_object_begin();\n\ttg_out_key_int("y", 2 * x);\n\ttg_out_end();\n\treturn 0;\n}\n`;
}

function manifest(tests) {
  return {
    name: 'probe', description: 'Double x',
    input_schema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] },
    source: 'tool.c', tests,
  };
}

let id = 0;
async function call(s, name, args, isError) {
  const m = await s.request({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }, 60000);
  assert.equal(m.result?.isError, isError, JSON.stringify(m));
  return m.result.structuredContent;
}

test('tool_history shows the tests made of recorded calls and ready-to-add ones', async (t) => {
  const home = tempHome(t);
  const bin = toolgateBin();
  const tg = (...a) => execFileSync(bin, ['--home', home, ...a], { encoding: 'utf8' });
  const dir = join(dirname(home), 'src');
  mkdirSync(dir);
  tg('init');
  writeFileSync(join(dir, 'tool.c'), source(''));
  writeFileSync(join(dir, 'tool.json'), JSON.stringify(manifest([{ name: 'one', args: { x: 1 }, expect: { y: 2 } }])));
  tg('create', dir);
  tg('call', 'probe', '{"x": 2}');
  tg('call', 'probe', '{"x": 3}');
  tg('tests', 'add', 'probe', '--from-sample', '2');

  const s = new RawServer(bin, ['--home', home, 'serve']);
  t.after(() => s.proc.kill('SIGKILL'));
  await s.initialize();
  let h = await call(s, 'tool_history', { name: 'probe' });
  assert.equal(h.regression_tests.length, 1);
  assert.equal(h.regression_tests[0].name, 'recorded call #2');
  assert.deepEqual(h.regression_tests[0].test,
    { name: 'recorded call #2', args: { x: 3 }, expect: { y: 6 } });
  assert.equal(h.regression_tests[0].sample, 2);

  // a crash on x=2 (recorded call #1): held, the case is a ready-to-add test
  const m = manifest([{ name: 'one', args: { x: 1 }, expect: { y: 2 } }]);
  m.source = source('if (x == 2) abort();');
  const held = await call(s, 'create_tool', m, true); // not active: an error result
  assert.equal(held.status, 'held', JSON.stringify(held));
  h = await call(s, 'tool_history', { name: 'probe' });
  const v2 = h.versions.find((v) => v.version === 2);
  assert.equal(v2.status, 'held');
  const c = v2.shadow.cases.find((x) => x.kind === 'regression');
  assert.equal(c.sample, 1);
  assert.deepEqual(c.as_test, { name: 'recorded call #1', args: { x: 2 }, expect: { y: 4 } });

  // the agent adds it to its manifest: the fixed version passes it
  const fixed = manifest([{ name: 'one', args: { x: 1 }, expect: { y: 2 } }, c.as_test]);
  fixed.source = source('/* fixed */');
  const ok = await call(s, 'create_tool', fixed);
  assert.equal(ok.status, 'active', JSON.stringify(ok));
  const names = ok.tests.map((x) => `${x.name}:${x.passed}`);
  assert.deepEqual(names.sort(), ['one:true', 'recorded call #1:true', 'recorded call #2:true']);
});
