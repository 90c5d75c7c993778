// tests/mcp/sdk_protocol.test.mjs: the official TypeScript SDK client
// (Client + StdioClientTransport) against the MCP layer of `toolgate serve`
// running on the in-memory fake registry (tests/mcp/fake_serve.c): paging
// through 300 tools with nextCursor, list_changed, tool results and errors,
// and the call budget. The real registry is driven by sdk.test.mjs.
// Run: TG_MCP_FAKE=build/tests/mcp/mcp_fake_serve node --test tests/mcp/sdk_protocol.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

async function connect(t, args) {
  const bin = process.env.TG_MCP_FAKE;
  if (!bin) throw new Error('set TG_MCP_FAKE to the mcp_fake_serve executable');
  const transport = new StdioClientTransport({ command: bin, args, stderr: 'pipe' });
  const client = new Client({ name: 'toolgate-sdk-protocol-test', version: '1.0.0' });
  const changes = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.push(Date.now());
  });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport, changes };
}

async function waitFor(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('tools/list pages with nextCursor through the SDK', async (t) => {
  const { client } = await connect(t, ['serve', '--tools', '300']);
  assert.equal(client.getServerVersion().name, 'toolgate');
  assert.equal(client.getServerCapabilities().tools.listChanged, true);
  const names = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    assert.ok(page.tools.length <= 100);
    names.push(...page.tools.map((x) => x.name));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 4);
  assert.equal(names.length, 306); // 4 meta-tools, echo, fail, 300 bulk
  assert.equal(new Set(names).size, names.length);
  assert.deepEqual([...names].sort(), names);
  for (const meta of ['create_tool', 'rollback_tool', 'tool_history', 'list_tool_versions'])
    assert.ok(names.includes(meta), meta);
  await assert.rejects(client.listTools({ cursor: 'tg1.zz' }), (e) => e instanceof McpError && e.code === -32602);
});

test('calls, tool errors, unknown tools, list_changed and the call budget', async (t) => {
  const { client, transport, changes } = await connect(t, ['serve', '--max-calls', '6']);
  let r = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.structuredContent, { echo: { text: 'hi' } });
  assert.deepEqual(JSON.parse(r.content[0].text), { echo: { text: 'hi' } });
  r = await client.callTool({ name: 'fail', arguments: {} });
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'boom on stderr');
  await assert.rejects(client.callTool({ name: 'missing', arguments: {} }), (e) => e.code === -32602);

  r = await client.callTool({
    name: 'create_tool',
    arguments: { name: 'word_count', description: 'd', input_schema: { type: 'object' }, source: 'int main(void){return 0;}', tests: [] },
  });
  assert.equal(r.isError, undefined);
  assert.equal(r.structuredContent.status, 'active');
  await waitFor(() => changes.length === 1);
  assert.ok((await client.listTools()).tools.some((x) => x.name === 'word_count'));

  // A change made elsewhere (the fake's SIGUSR1) is announced within the poll.
  process.kill(transport.pid, 'SIGUSR1');
  await waitFor(() => changes.length === 2, 3000);

  r = await client.callTool({ name: 'tool_history', arguments: { name: 'word_count' } });
  assert.equal(r.isError, undefined);
  r = await client.callTool({ name: 'echo', arguments: {} }); // 6th
  assert.equal(r.isError, undefined);
  r = await client.callTool({ name: 'echo', arguments: {} }); // 7th: over
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /call budget exhausted/);
  await client.ping();
});
