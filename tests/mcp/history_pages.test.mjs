// tests/mcp/history_pages.test.mjs (issue 15): tool_history and
// list_tool_versions over raw JSON-RPC come 50 versions a page with a
// nextCursor; a rejected version is one summary line unless details is
// asked; a bad cursor is -32602. The tool's 120 versions are made with the
// CLI: a tiny tool, the comment varied, versions 1, 60 and 120 passing and
// the rest rejected by the analyzer (system()).
// Run: TOOLGATE=build/cli/toolgate node --test tests/mcp/history_pages.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';

const N = 120;
const PASSING = new Set([1, 60, 120]);

function makeVersions(home) {
  const bin = toolgateBin();
  execFileSync(bin, ['--home', home, 'init']);
  // lift the rejected-per-hour quota and the create rate limits: 117
  // rejected versions in a minute are the point of this test
  writeFileSync(join(home, 'config.json'), JSON.stringify({
    max_rejected_per_tool_hour: 0, home_max_creates_per_minute: 0,
  }));
  const dir = join(dirname(home), 'src');
  mkdirSync(dir);
  for (let i = 1; i <= N; i++) {
    const src = PASSING.has(i)
      ? `#include <toolgate/tool.h>\nint main(void) { /* ${i} */ tg_out_object_begin(); tg_out_key_int("n", 1); tg_out_end(); return 0; }\n`
      : `#include <stdlib.h>\nint main(void) { /* ${i} */ return system("x"); }\n`;
    writeFileSync(join(dir, `s${i}.c`), src);
    writeFileSync(join(dir, `t${i}.json`), JSON.stringify({
      name: 'tiny', description: 'one', input_schema: { type: 'object' }, source: `s${i}.c`,
      tests: [{ name: 't', args: {}, expect: { n: 1 } }],
    }));
    try {
      execFileSync(bin, ['--home', home, 'create', join(dir, `t${i}.json`)], { stdio: 'pipe' });
      assert.ok(PASSING.has(i), `v${i} passed`);
    } catch (e) {
      assert.ok(!PASSING.has(i), `v${i}: ${e.stderr}`);
      assert.equal(e.status, 1, `v${i}: ${e.stderr}`);
    }
  }
}

let id = 0;
async function call(s, name, args) {
  const m = await s.request({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }, 30000);
  return m;
}

test('history and version lists come a page at a time', async (t) => {
  const home = tempHome(t);
  makeVersions(home);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  t.after(() => s.proc.kill('SIGKILL'));
  await s.initialize();

  for (const meta of ['list_tool_versions', 'tool_history']) {
    const seen = [];
    let cursor;
    const pages = [];
    do {
      const m = await call(s, meta, cursor ? { name: 'tiny', cursor } : { name: 'tiny' });
      assert.equal(m.result?.isError, undefined, JSON.stringify(m));
      const p = m.result.structuredContent;
      pages.push(p);
      assert.equal(p.name, 'tiny');
      assert.equal(p.active, 120);
      assert.equal(p.total_versions, N);
      assert.ok(JSON.stringify(m).length < 64 * 1024, `${meta} page of ${JSON.stringify(m).length} bytes`);
      for (const v of p.versions) seen.push(v);
      cursor = p.nextCursor;
    } while (cursor);
    assert.deepEqual(pages.map((p) => p.versions.length), [50, 50, 20], meta);
    assert.equal(pages[0].nextCursor, 'h1.tiny.50');
    assert.equal(pages[1].nextCursor, 'h1.tiny.100');
    assert.deepEqual(seen.map((v) => v.version), Array.from({ length: N }, (_, i) => i + 1));
    for (const v of seen) {
      if (PASSING.has(v.version)) {
        assert.match(v.commit, /^[0-9a-f]{40}$/, `${meta} v${v.version} in full`);
        assert.equal(v.summary, undefined);
      } else {
        // one line: version, status, verdict, time and the reason
        assert.deepEqual(Object.keys(v).sort(), ['status', 'summary', 'time', 'verdict', 'version']);
        assert.equal(v.status, 'rejected');
        assert.equal(v.summary, 'the analyzer rejected the source (1 error finding)');
      }
    }
    if (meta === 'tool_history') {
      // the events naming a version of the page (target or origin)
      const ev = (p) => p.events.map((e) => `${e.event} ${e.from_version}->${e.version}`);
      assert.deepEqual(ev(pages[0]), ['activate 0->1', 'activate 1->60']);
      assert.deepEqual(ev(pages[1]), ['activate 1->60', 'activate 60->120']);
      assert.deepEqual(ev(pages[2]), ['activate 60->120']);
    } else {
      assert.equal(pages[0].events, undefined);
    }
  }

  // details: rejected versions in full
  const d = (await call(s, 'list_tool_versions', { name: 'tiny', cursor: 'h1.tiny.50', details: true })).result.structuredContent;
  assert.equal(d.versions[0].version, 51);
  assert.equal(d.versions[0].status, 'rejected');
  assert.match(d.versions[0].commit, /^[0-9a-f]{40}$/);
  assert.equal(d.versions[0].summary, undefined);

  // bad cursors: invalid params naming the cursor, and the session goes on
  for (const [cursor, msg] of [
    ['garbage', /Invalid params: tool_history: cursor: not a cursor of tiny's history/],
    ['h1.other.50', /cursor: not a cursor of tiny's history/],
    ['h1.tiny.050', /cursor: not a cursor/],
    ['h1.tiny.-5', /cursor: not a cursor/],
    ['h1.tiny.120', /cursor: tiny has no versions after 120/],
  ]) {
    const m = await call(s, 'tool_history', { name: 'tiny', cursor });
    assert.equal(m.error?.code, -32602, `${cursor}: ${JSON.stringify(m)}`);
    assert.match(m.error.message, msg);
  }
  const m = await call(s, 'list_tool_versions', { name: 'tiny', cursor: 7 });
  assert.equal(m.result?.isError, true);
  assert.match(m.result.content[0].text, /cursor/);
  assert.deepEqual(await s.request({ jsonrpc: '2.0', id: 'p', method: 'ping' }), { jsonrpc: '2.0', id: 'p', result: {} });
  assert.equal((await s.close()).code, 0);
});
