// bench/mcp/bench.mjs TOOLGATE N: the figures of bench/mcp/run.sh. On two
// temporary homes (config.json sandbox_pool 2, or SANDBOX_POOL=N, and 0) it
// registers word_count through create_tool, then times N sequential
// tools/call through the SDK client (Client + StdioClientTransport on
// `toolgate serve`) on each server, and N bare runs of the very binary the
// registry built (found in <home>/cache), spawned directly with the same
// stdin, all in one run: interleaved blocks of 20 (pooled, unpooled, bare,
// and again), so that each server sees its calls back to back and all three
// see the same load. Every call is timed from the client side; medians and
// p99 are printed with the overhead over bare, and N ping round trips show
// the protocol's own share. GAP_MS=N waits N ms between tools/call (an
// agent thinks between calls; not timed). TG_CALL_PROFILE=PREFIX: the
// servers write a per-stage profile of each call to PREFIX.pool and
// PREFIX.nopool (common/prof.c; bench/mcp/profile.py reads them).
// BASE=OTHER_TOOLGATE: also a pooled and an unpooled server of that binary
// (a build of an earlier commit), interleaved with the others: before and
// after in one run. HTTP=1: the servers are `toolgate serve --http` on
// 127.0.0.1 (WORKERS=N workers, 4 by default; a bearer token each) and the
// client speaks Streamable HTTP (StreamableHTTPClientTransport); the pool is
// then each worker's (docs/SANDBOX.md, "The pool").
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [bin, nArg] = process.argv.slice(2);
const N = Number(nArg ?? 1000);
const sdk = new URL('../../tests/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', sdk));
const { StdioClientTransport } = await import(new URL('client/stdio.js', sdk));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', sdk));
const { listeningUrl } = await import(new URL('../../tests/mcp/fixtures.mjs', import.meta.url));
const HTTP = process.env.HTTP === '1';
const WORKERS = String(process.env.WORKERS ?? 4);

const SOURCE = `#include <toolgate/tool.h>
int main(void)
{
	tg_tool_args *a = tg_tool_read_args();
	const char *t = tg_arg_str(a, "text", "");
	long long words = 0;
	int in = 0;
	for (; *t; t++) {
		int space = *t == ' ' || *t == '\\n' || *t == '\\t';
		if (!space && !in)
			words++;
		in = !space;
	}
	tg_out_object_begin();
	tg_out_key_int("words", words);
	tg_out_end();
	tg_tool_args_free(a);
	return 0;
}
`;
const ARGS = { text: 'the quick brown fox jumps over the lazy dog' };

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { median: at(0.5), p99: at(0.99) };
}

function executables(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...executables(p));
    else if (e.isFile() && (statSync(p).mode & 0o111)) out.push(p);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'tg-bench-mcp-'));
const POOL = Number(process.env.SANDBOX_POOL ?? 2);
const BLOCK = 20;
const gap = Number(process.env.GAP_MS ?? 0);
const servers = [];

async function server(tag, pool, binary = bin) {
  const home = join(dir, tag);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.json'), JSON.stringify({ sandbox_pool: pool }));
  const prof = process.env.TG_CALL_PROFILE;
  const env = prof
    ? { PATH: process.env.PATH ?? '/usr/bin:/bin', TG_CALL_PROFILE: `${prof}.${tag}` }
    : undefined;
  const client = new Client({ name: 'toolgate-bench', version: '1.0.0' });
  let proc = null;
  if (HTTP) {
    const tok = spawnSync(binary, ['--home', home, 'token', 'add', 'bench'], { encoding: 'utf8' }).stdout.trim();
    proc = spawn(binary, ['--home', home, 'serve', '--http', '127.0.0.1:0', '--workers', WORKERS],
      { stdio: ['ignore', 'ignore', 'pipe'], env: env ?? process.env });
    const url = await listeningUrl(proc);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
  } else {
    await client.connect(new StdioClientTransport({ command: binary, args: ['--home', home, 'serve'], stderr: 'ignore', env }));
  }
  const created = await client.callTool({
    name: 'create_tool',
    arguments: {
      name: 'word_count', description: 'Count words',
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      source: SOURCE, tests: [{ name: 'nine', args: ARGS, expect: { words: 9 } }], capabilities: [],
    },
  });
  if (created.isError) throw new Error(`create_tool failed: ${created.content[0].text}`);
  for (let i = 0; i < 20; i++) await client.callTool({ name: 'word_count', arguments: ARGS });
  const s = { tag, home, client, proc, ms: [] };
  servers.push(s);
  return s;
}

async function callBlock(s, n) {
  for (let i = 0; i < n; i++) {
    if (gap > 0) await new Promise((res) => setTimeout(res, gap));
    const t0 = process.hrtime.bigint();
    const r = await s.client.callTool({ name: 'word_count', arguments: ARGS });
    s.ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.isError || r.structuredContent?.words !== 9) throw new Error(`bad result: ${JSON.stringify(r)}`);
  }
}

try {
  const pooled = await server('pool', POOL);
  const plain = await server('nopool', 0);
  const base = process.env.BASE
    ? [await server('base_pool', POOL, process.env.BASE), await server('base_nopool', 0, process.env.BASE)]
    : [];
  const order = [pooled, plain, ...base];
  const cands = executables(join(plain.home, 'cache'));
  if (cands.length === 0) throw new Error(`no built tool binary under ${plain.home}/cache`);
  cands.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const tool = cands[0];
  const input = JSON.stringify(ARGS);
  for (let i = 0; i < 20; i++) spawnSync(tool, [], { input, env: {} });
  const bare = [];
  const load0 = loadavg()[0];
  for (let done = 0; done < N; done += BLOCK) {
    const n = Math.min(BLOCK, N - done);
    for (const s of order) await callBlock(s, n);
    for (let i = 0; i < n; i++) {
      if (gap > 0) await new Promise((res) => setTimeout(res, gap));
      const t0 = process.hrtime.bigint();
      const r = spawnSync(tool, [], { input, env: {} });
      bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (r.status !== 0 || JSON.parse(r.stdout).words !== 9) throw new Error(`bare run failed: ${r.stderr}`);
    }
  }
  const load1 = loadavg()[0];
  // The protocol alone: ping round trips through the same client and server.
  const ping = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    await plain.client.ping();
    ping.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }

  const b = stats(bare), p = stats(ping);
  const f = (x) => x.toFixed(3);
  console.log(`mcp: ${N} sequential tools/call word_count through the SDK client on each server (toolgate serve${HTTP ? ` --http, ${WORKERS} workers, Streamable HTTP` : ', stdio'}, sandboxed run), blocks of ${BLOCK} interleaved with bare spawns${gap ? `, ${gap} ms apart` : ', back to back'}; load average ${load0.toFixed(2)} -> ${load1.toFixed(2)}`);
  for (const s of order) {
    const m = stats(s.ms);
    const what = { pool: `pool ${POOL}`, nopool: 'no pool', base_pool: `base, pool ${POOL}`, base_nopool: 'base, no pool' }[s.tag];
    console.log(`  mcp ${what.padEnd(16)} median ${f(m.median)} ms  p99 ${f(m.p99)} ms  overhead over bare ${f(m.median - b.median)} ms (p99 ${f(m.p99 - b.p99)} ms)  ratio ${(m.median / b.median).toFixed(2)}x`);
  }
  console.log(`  bare spawn           median ${f(b.median)} ms  p99 ${f(b.p99)} ms  (${tool.slice(plain.home.length + 1)}, same stdin)`);
  console.log(`  mcp ping             median ${f(p.median)} ms  p99 ${f(p.p99)} ms  (JSON-RPC round trip, no tool)`);
} finally {
  for (const s of servers) {
    await s.client.close().catch(() => {});
    if (s.proc) {
      const gone = new Promise((res) => s.proc.on('exit', res));
      s.proc.kill('SIGTERM');
      await gone;
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
