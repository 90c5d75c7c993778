// tests/mcp/format_assert.test.mjs: config.json "schema_assert_format"
// (docs/CONFIG.md) seen by an MCP client of `toolgate serve` on stdio: a
// tools/call whose argument is not an email is a tool error with the exact
// message when the key is on, and reaches the tool when it is off; a good
// email passes either way. The tool is created with the CLI beforehand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RawServer, tempHomeWithProcs, toolgateBin } from './lib.mjs';

const SOURCE = `#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	tg_out_object_begin();
	tg_out_key_str("to", tg_arg_str(a, "email", ""));
	tg_out_object_end();
	tg_out_end();
	return 0;
}
`;
const MANIFEST = {
  name: 'mail', description: 'Echo an address',
  input_schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } },
                  required: ['email'], additionalProperties: false },
  source: 'tool.c',
  tests: [{ name: 'one', args: { email: 'a@example.com' }, expect: { to: 'a@example.com' } }],
};

async function callMail(home, email) {
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  try {
    await s.initialize();
    const m = await s.request({ jsonrpc: '2.0', id: 2, method: 'tools/call',
                                params: { name: 'mail', arguments: { email } } });
    return m.result;
  } finally {
    await s.close();
  }
}

test('schema_assert_format: a bad email is refused over MCP only when the key is on', async (t) => {
  const { dir, home } = tempHomeWithProcs(t);
  const src = join(dir, 'mail');
  mkdirSync(src);
  writeFileSync(join(src, 'tool.c'), SOURCE);
  writeFileSync(join(src, 'tool.json'), JSON.stringify(MANIFEST));
  execFileSync(toolgateBin(), ['--home', home, 'create', src], { stdio: 'pipe' });

  // off (the default): format is an annotation
  let r = await callMail(home, 'not an email');
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.structuredContent, { to: 'not an email' });

  writeFileSync(join(home, 'config.json'), '{"property_tests": 0, "schema_assert_format": true}\n');
  r = await callMail(home, 'not an email');
  assert.equal(r.isError, true);
  assert.deepEqual(r.content, [{ type: 'text', text: 'invalid arguments: args.email: must be a valid email (format)' }]);
  r = await callMail(home, 'b@example.org');
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.structuredContent, { to: 'b@example.org' });
});
