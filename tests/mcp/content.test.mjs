// tests/mcp/content.test.mjs: content blocks from a tool (docs/SDK.md,
// "Content blocks"; common/content.c). One tool, created with the CLI,
// writes a case chosen by its argument: each block type (text, image,
// audio, text and blob resources, mixed with structured members) comes out
// of tools/call as exact MCP content blocks in order, on stdio (raw lines)
// and over HTTP (the official SDK client, which checks the result's shape);
// each refusal (MIME type, base64, count, size, control character, URI
// scheme) is an isError result with its exact reason and no block of it;
// and a create whose test returns refused content fails naming the rule.
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/content.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RawServer, serveHttp, tempHomeWithProcs, toolgateBin } from './lib.mjs';

const SOURCE = `#include <toolgate/tool.h>
#include <string.h>

static const unsigned char bytes[5] = { 'h', 'e', 'l', 'l', 'o' };
static unsigned char big[524289];

static void raw_block(const char *type, const char *data, const char *mime)
{
	tg_out_object_begin();
	tg_out_key_str("type", type);
	tg_out_key_str("data", data);
	tg_out_key_str("mimeType", mime);
	tg_out_object_end();
}

int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *c = tg_arg_str(a, "case", "");
	int i;

	if (strcmp(c, "image") == 0 || strcmp(c, "audio") == 0 || strcmp(c, "resources") == 0 ||
	    strcmp(c, "mixed") == 0 || strcmp(c, "svg") == 0 || strcmp(c, "control") == 0 ||
	    strcmp(c, "large") == 0 || strcmp(c, "javascript") == 0) {
		tg_out_content_begin();
		if (strcmp(c, "image") == 0)
			tg_out_content_image("image/png", bytes, 5);
		else if (strcmp(c, "audio") == 0)
			tg_out_content_audio("audio/wav", bytes, 4);
		else if (strcmp(c, "resources") == 0) {
			tg_out_content_resource_text("notes://a/1", "text/markdown", "# one\\n\\tline");
			tg_out_content_resource_blob("notes://a/2", "image/gif", bytes, 3);
		} else if (strcmp(c, "mixed") == 0) {
			tg_out_content_text("first");
			tg_out_content_image("image/jpeg", bytes, 1);
			tg_out_content_text("last");
		} else if (strcmp(c, "svg") == 0)
			tg_out_content_image("image/svg+xml", bytes, 5);
		else if (strcmp(c, "control") == 0)
			tg_out_content_text("red \\033[31m");
		else if (strcmp(c, "large") == 0)
			tg_out_content_audio("audio/ogg", big, sizeof(big));
		else
			tg_out_content_resource_text("javascript://x", "text/plain", "x");
		tg_out_content_end();
		if (strcmp(c, "mixed") == 0)
			tg_out_key_int("n", 3);
		tg_out_end();
	} else {
		tg_out_object_begin();
		tg_out_key("$content");
		tg_out_array_begin();
		if (strcmp(c, "base64") == 0)
			raw_block("image", "aGVs!G8=", "image/png");
		else if (strcmp(c, "padding") == 0)
			raw_block("image", "aGVsbG9=", "image/png");
		else
			for (i = 0; i < 17; i++) {
				tg_out_object_begin();
				tg_out_key_str("type", "text");
				tg_out_key_str("text", "x");
				tg_out_object_end();
			}
		tg_out_end();
	}
	tg_tool_args_free(a);
	return 0;
}
`;
const PNG5 = 'aGVsbG8=';
const manifest = (tests) => ({
  name: 'blocks', description: 'Content blocks by case',
  input_schema: { type: 'object', properties: { case: { type: 'string' } }, required: ['case'],
                  additionalProperties: false },
  source: 'tool.c', tests, limits: { timeout_ms: 5000, memory_mb: 32 },
});
const GOOD_TESTS = [
  { name: 'image', args: { case: 'image' },
    expect: { $content: [{ type: 'image', data: PNG5, mimeType: 'image/png' }] } },
];

// The exact results of the good cases (content, structuredContent).
const GOOD = {
  image: { content: [{ type: 'image', data: PNG5, mimeType: 'image/png' }] },
  audio: { content: [{ type: 'audio', data: 'aGVsbA==', mimeType: 'audio/wav' }] },
  resources: { content: [
    { type: 'resource', resource: { uri: 'notes://a/1', mimeType: 'text/markdown', text: '# one\n\tline' } },
    { type: 'resource', resource: { uri: 'notes://a/2', mimeType: 'image/gif', blob: 'aGVs' } }] },
  mixed: { content: [{ type: 'text', text: 'first' }, { type: 'image', data: 'aA==', mimeType: 'image/jpeg' },
                     { type: 'text', text: 'last' }],
           structuredContent: { n: 3 } },
};
const R = "the result's content is refused: ";
const REFUSED = {
  svg: `${R}$content[0]: mimeType "image/svg+xml" is not allowed (allowed: image/png, image/jpeg, image/gif, image/webp)`,
  base64: `${R}$content[0]: data is not well-formed base64: byte 4 is not in its alphabet`,
  padding: `${R}$content[0]: data is not well-formed base64: the padding bits are not zero`,
  many: `${R}$content has 17 blocks (at most 16)`,
  large: `${R}$content[0]: data decodes to 524289 bytes (at most 524288)`,
  control: `${R}$content[0]: text has the control character U+001B at byte 4 (only newline and tab are allowed)`,
  javascript: `${R}$content[0]: resource.uri has the scheme javascript, which is refused (javascript://, the same for javascript, vbscript, data, blob, file and about)`,
};

function createBlocks(dir, home, tests = GOOD_TESTS) {
  const src = join(dir, 'blocks');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'tool.c'), SOURCE);
  writeFileSync(join(src, 'tool.json'), JSON.stringify(manifest(tests)));
  return spawnSync(toolgateBin(), ['--home', home, 'create', src], { encoding: 'utf8' });
}

test('content blocks on stdio: each type exact and in order, each refusal exact', async (t) => {
  const { dir, home } = tempHomeWithProcs(t);
  const c = createBlocks(dir, home);
  assert.equal(c.status, 0, c.stderr);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  t.after(() => s.close());
  await s.initialize();
  let id = 1;
  const call = async (k) => (await s.request({ jsonrpc: '2.0', id: id++, method: 'tools/call',
                                                params: { name: 'blocks', arguments: { case: k } } })).result;
  for (const [k, want] of Object.entries(GOOD))
    assert.deepEqual(await call(k), want, k);
  for (const [k, why] of Object.entries(REFUSED))
    assert.deepEqual(await call(k), { content: [{ type: 'text', text: why }], isError: true }, k);
});

test('content blocks over HTTP: the official client reads each type; a refusal is isError', async (t) => {
  const { dir, home, procs } = tempHomeWithProcs(t);
  const c = createBlocks(dir, home);
  assert.equal(c.status, 0, c.stderr);
  const srv = await serveHttp(home, { extra: ['--insecure-no-auth'], procs });
  const client = new Client({ name: 'toolgate-content-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.url)));
  t.after(() => client.close());
  for (const [k, want] of Object.entries(GOOD))
    assert.deepEqual(await client.callTool({ name: 'blocks', arguments: { case: k } }), want, k);
  assert.deepEqual(await client.callTool({ name: 'blocks', arguments: { case: 'svg' } }),
                   { content: [{ type: 'text', text: REFUSED.svg }], isError: true });
});

test('a create whose test returns refused content fails naming the rule', (t) => {
  const { dir, home } = tempHomeWithProcs(t);
  const c = createBlocks(dir, home, [{ name: 'svg', args: { case: 'svg' }, expect: {} }]);
  assert.notEqual(c.status, 0);
  assert.ok((c.stderr + c.stdout).includes(`  test "svg": FAIL: ${REFUSED.svg}\n`), c.stderr + c.stdout);
  assert.equal(execFileSync(toolgateBin(), ['--home', home, 'list'], { encoding: 'utf8' }).includes('blocks'), false);
});
