// tests/mcp/prompts.test.mjs: the write_tool prompt (mcp/prompts.c) on raw
// stdio: the prompts capability, prompts/list exactly, prompts/get with the
// task, the rules and the SDK reference, and its example, sent as is to
// create_tool on the same server, is accepted (the example is complete);
// an unknown prompt, a task that is not a string and a call before
// initialize are refused with their exact JSON-RPC errors.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/prompts.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';

// The answer to request id, past the notifications (list_changed after a create).
async function answer(s, msg, ms) {
  await s.send(msg);
  for (;;) {
    const m = await s.next(ms);
    if (m.id === msg.id) return m;
  }
}

const DESCRIPTION = 'Write a toolgate tool: the rules, the SDK reference and a complete create_tool example in one message';

test('write_tool: listed, rendered with the task, and its example is accepted by create_tool', async (t) => {
  const s = new RawServer(toolgateBin(), ['--home', tempHome(t), 'serve']);
  t.after(() => s.close());
  const before = await s.request({ jsonrpc: '2.0', id: 0, method: 'prompts/list' });
  assert.deepEqual(before.error, { code: -32600, message: 'prompts/list: the session is not initialized (send initialize first)' });
  const init = await s.initialize();
  assert.deepEqual(init.result.capabilities.prompts, {});
  assert.ok(init.result.instructions.endsWith('The prompt write_tool hands you the rules, the SDK reference and a complete create_tool example.'));

  const list = await s.request({ jsonrpc: '2.0', id: 1, method: 'prompts/list' });
  assert.deepEqual(list.result, { prompts: [{ name: 'write_tool', title: 'Write a toolgate tool', description: DESCRIPTION,
                                              arguments: [{ name: 'task', description: 'what the tool should do (optional)', required: false }] }] });

  const got = await s.request({ jsonrpc: '2.0', id: 2, method: 'prompts/get',
                                params: { name: 'write_tool', arguments: { task: 'add two integers' } } });
  const [text, sdk] = got.result.messages;
  assert.equal(got.result.description, DESCRIPTION);
  assert.equal(text.role, 'user');
  assert.equal(text.content.type, 'text');
  assert.ok(text.content.text.startsWith('Write a toolgate tool that does this: "add two integers" and register it with the create_tool tool of this server.\n\nTHE RULES (also create_tool\'s description):\nSubmit a tool written in C11'), text.content.text.slice(0, 300));
  assert.deepEqual(Object.keys(sdk.content.resource), ['uri', 'mimeType', 'text']);
  assert.equal(sdk.content.resource.uri, 'toolgate://docs/SDK.md');
  assert.ok(sdk.content.resource.text.startsWith('# The tool SDK: `toolgate/tool.h`'));
  // the same text as resources/read serves
  const doc = await s.request({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'toolgate://docs/SDK.md' } });
  assert.equal(sdk.content.resource.text, doc.result.contents[0].text);

  const example = JSON.parse(text.content.text.match(/```json\n([\s\S]*?)\n```/)[1]);
  assert.equal(example.name, 'word_count');
  assert.ok(example.source.includes('#include <toolgate/tool.h>'));
  const created = await answer(s, { jsonrpc: '2.0', id: 4, method: 'tools/call',
                                    params: { name: 'create_tool', arguments: example } }, 60000);
  assert.equal(created.result.isError, undefined, JSON.stringify(created.result));
  const call = await answer(s, { jsonrpc: '2.0', id: 5, method: 'tools/call',
                                 params: { name: 'word_count', arguments: { text: 'a b' } } });
  assert.deepEqual(call.result.structuredContent, { words: 2, lines: 1, chars: 3 });

  // without the task
  const plain = await answer(s, { jsonrpc: '2.0', id: 6, method: 'prompts/get', params: { name: 'write_tool' } });
  assert.ok(plain.result.messages[0].content.text.startsWith('Write a toolgate tool and register it'));
});

test('prompts/get refusals are exact', async (t) => {
  const s = new RawServer(toolgateBin(), ['--home', tempHome(t), 'serve']);
  t.after(() => s.close());
  await s.initialize();
  const ask = async (id, params) => (await s.request({ jsonrpc: '2.0', id, method: 'prompts/get', params })).error;
  assert.deepEqual(await ask(1, { name: 'nope' }), { code: -32602, message: 'Invalid params: unknown prompt (the prompts: write_tool)' });
  assert.deepEqual(await ask(2, {}), { code: -32602, message: 'Invalid params: prompts/get needs a name (a string)' });
  assert.deepEqual(await ask(3, { name: 'write_tool', arguments: { task: 7 } }),
                   { code: -32602, message: 'Invalid params: task must be a string of at most 4096 bytes' });
  assert.deepEqual(await ask(4, { name: 'write_tool', arguments: { task: 'x'.repeat(4097) } }),
                   { code: -32602, message: 'Invalid params: task must be a string of at most 4096 bytes' });
  assert.deepEqual(await ask(5, { name: 'write_tool', arguments: [] }),
                   { code: -32602, message: 'Invalid params: arguments must be an object' });
});
