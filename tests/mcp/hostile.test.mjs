// tests/mcp/hostile.test.mjs: a hostile agent on a shared host (issue 15;
// ctest label "slow", about 100 s). One MCP stdio session of `toolgate
// serve` with the default config spends HOSTILE_SECONDS (default 90)
// trying, in turn, to fill the disk (a 60 MB static array, new versions of
// one tool, versions whose tests fail), to burn CPU (a tool spinning to its
// 10 s timeout) and to hold memory (a tool touching 200 MB). Asserted:
// the home grows by no more than the session's quota (quota_session_mb,
// 256 MiB by default; the home's 1 GiB holds too); the serve process's peak
// RSS (VmHWM) stays under 64 MB; the CPU of serve and everything it ran
// (its own and its reaped children's, from /proc/PID/stat) stays within the
// configured share: one core per sandbox (cpu_percent 100) and one request
// at a time, so at most 1.25 cores over the wall time. Each round also
// floods 200 refused requests (unknown tool names): their audit rows stay
// within what mcp/refusals.c allows (a kind audited once a minute, the
// rest counted), not one row each. The figures are printed
// (`ctest -V -R mcp_hostile`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { RawServer, tempHome, toolgateBin } from './lib.mjs';
import { HOLD, SPIN } from './fixtures.mjs';

const SECONDS = Number(process.env.HOSTILE_SECONDS || 90);
const MIB = 1024 * 1024;

const BIG = `#include <stdio.h>
static char big[60u * 1000u * 1000u] = { 1, 2, 3 };
int main(void)
{
	char in[64];
	size_t n = fread(in, 1, sizeof(in), stdin);
	printf("{\\"first\\":%d}\\n", big[n % 2]);
	return 0;
}
`;
const version = (k) => `#include <stdio.h>
/* version ${k}: ${'x'.repeat(64)} */
int main(void) { puts("{\\"v\\":${k}}"); return 0; }
`;

function manifest(name, source, tests, limits) {
  return {
    name, description: `hostile ${name}`, input_schema: { type: 'object' }, source,
    tests, limits: limits ?? { timeout_ms: 10000, memory_mb: 256 }, capabilities: [],
  };
}

function duBytes(dir) {
  return Number(execFileSync('du', ['-sb', dir]).toString().split(/\s/)[0]);
}

// utime, stime, cutime, cstime of pid, in ms (clock ticks of 10 ms)
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

test(`a hostile agent for ${SECONDS} s in one session with the default config`, { timeout: (SECONDS + 120) * 1000 }, async (t) => {
  const home = tempHome(t);
  execFileSync(toolgateBin(), ['--home', home, 'init']);
  const base = duBytes(home);
  const s = new RawServer(toolgateBin(), ['--home', home, 'serve']);
  t.after(() => s.close());
  await s.initialize();
  const pid = s.proc.pid;
  const t0 = Date.now();
  const cpu0 = cpuMs(pid);
  let id = 10;
  const counts = {};
  const call = async (name, args) => {
    const rid = ++id;
    await s.send({ jsonrpc: '2.0', id: rid, method: 'tools/call', params: { name, arguments: args } });
    for (;;) {
      const m = await s.next(120000);
      if (m.id === rid) return m;
    }
  };
  const note = (what, m) => {
    const err = m.result?.isError ? 'refused' : m.error ? 'error' : 'ok';
    const text = m.result?.content?.[0]?.text ?? '';
    const why = /quota exceeded: (\w+)|rate limit: (\w+)|killed by the sandbox: (\w+)|(max_concurrent_\w+)/.exec(text);
    const k = `${what} ${err}${why ? ` (${why.slice(1).find(Boolean)})` : ''}`;
    counts[k] = (counts[k] ?? 0) + 1;
  };
  // the tools it will abuse
  note('create spin', await call('create_tool', manifest('spin', SPIN, [{ name: 'quick', args: {}, expect: { spun: false } }])));
  note('create hold', await call('create_tool', manifest('hold', HOLD, [{ name: 'small', args: {}, expect: { held_mb: 1 } }])));
  let k = 0;
  let refused = 0;
  while (Date.now() - t0 < SECONDS * 1000) {
    k++;
    note('create big_array', await call('create_tool', manifest(`big${k % 3}`, BIG, [{ name: 't', args: {}, expect: { first: 1 } }])));
    note('create version', await call('create_tool', manifest('grow', version(k), [{ name: 't', args: {}, expect: { v: k } }])));
    note('create failing', await call('create_tool', manifest('fails', version(k), [{ name: 't', args: {}, expect: { v: -1 } }])));
    note('call spin', await call('spin', { spin: true }));
    note('call hold', await call('hold', { hold: true }));
    for (let i = 0; i < 200; i++) {
      const m = await call(`nope${i % 50}`, {});
      refused += m.error ? 1 : 0;
    }
  }
  const wall = Date.now() - t0;
  const cpu = cpuMs(pid) - cpu0;
  const hwmKb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  await s.close();
  const growth = duBytes(home) - base;
  const share = cpu / wall;
  const log = JSON.parse(execFileSync(toolgateBin(), ['--home', home, 'log', '--json'],
    { maxBuffer: 256 * MIB }));
  const refusalRows = log.filter((e) => e.event === 'mcp_unknown_tool' || e.event === 'mcp_refusals').length;
  const minutes = Math.ceil(wall / 60000);
  console.log(`hostile: ${k} rounds in ${(wall / 1000).toFixed(1)} s`);
  for (const [what, n] of Object.entries(counts).sort()) console.log(`hostile:   ${what}: ${n}`);
  console.log(`hostile: home growth ${(growth / MIB).toFixed(1)} MiB (quota_session_mb 256, quota_home_mb 1024)`);
  console.log(`hostile: serve peak RSS (VmHWM) ${(hwmKb / 1024).toFixed(1)} MiB`);
  console.log(`hostile: ${refused} refused requests sent, ${refusalRows} audit rows for them, ${log.length} audit rows in all`);
  console.log(`hostile: CPU of serve and its children ${(cpu / 1000).toFixed(1)} s over ${(wall / 1000).toFixed(1)} s = ${share.toFixed(2)} cores (cpu_percent 100)`);
  assert.ok(growth <= 256 * MIB, `the home grew by ${growth} bytes`);
  assert.equal(refused, k * 200);
  // 50 names: 16 kinds told apart, then one catch-all; each at most twice a
  // minute (its first refusal and its count), once more at the end
  assert.ok(refusalRows <= 17 * (2 * minutes + 1), `${refusalRows} audit rows for ${refused} refusals`);
  if (!process.env.TG_SANITIZED) // ASan's shadow memory
    assert.ok(hwmKb < 64 * 1024, `serve peaked at ${hwmKb} kB`);
  assert.ok(share <= 1.25, `serve and its sandboxes used ${share.toFixed(2)} cores`);
  // the attacks were met, not skipped
  assert.ok(Object.keys(counts).some((c) => c.startsWith('call spin refused (timeout)')), JSON.stringify(counts));
  assert.ok(Object.keys(counts).some((c) => c.startsWith('create big_array refused (max_binary_mb)')), JSON.stringify(counts));
});
