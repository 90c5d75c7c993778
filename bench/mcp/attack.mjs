// bench/mcp/attack.mjs TOOLGATE [SECONDS]: the latency of an authenticated
// request to `toolgate serve --http` (default config) while hostile
// connections that show no token try to hold it (issue 30; the attackers
// are tests/mcp/http_attack.mjs's, from other loopback addresses):
//  - none (the baseline);
//  - 300 idle connections (from 20 addresses; one closed is opened again
//    after a second);
//  - 70 slow senders (from 5 addresses): a request line, then a header
//    byte a second, reconnecting at once when closed;
//  - the same two from 127.0.0.1, the client's own address (all local
//    processes of a shared host share it).
// For each, SECONDS of server/discover requests, one after another, each
// on a fresh connection from 127.0.0.1 with a valid token (the last two
// rows: on one keep-alive connection, as the SDK client does): prints count,
// failures, p50, p99 and max in ms, and how many connections the
// attackers opened. Target: p99 under 100 ms during each attack.
// Run: node bench/mcp/attack.mjs build/cli/toolgate 10
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [bin, secArg] = process.argv.slice(2);
if (!bin) {
  console.error('usage: node bench/mcp/attack.mjs TOOLGATE [SECONDS]');
  process.exit(2);
}
process.env.TOOLGATE = bin;
const SECONDS = Number(secArg ?? 10);
const lib = new URL('../../tests/mcp/', import.meta.url);
const { serveHttp } = await import(new URL('lib.mjs', lib));
const { attackAddrs, idle, ping, pings, slow, summary } = await import(new URL('http_attack.mjs', lib));

const dir = mkdtempSync(join(tmpdir(), 'tg-attack-'));
const home = join(dir, 'home');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
try {
  execFileSync(bin, ['--home', home, 'init'], { stdio: 'ignore' });
  const tok = execFileSync(bin, ['--home', home, 'token', 'add', 'bench'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const srv = await serveHttp(home, {});
  try {
    for (const [name, start, keepAlive] of [
      ['none', () => ({ stats: { opened: 0 }, stop() {} })],
      ['idle x300', () => idle(srv.port, 300, attackAddrs(20))],
      ['slow x70', () => slow(srv.port, 70, attackAddrs(5))],
      ['idle x300 from 127.0.0.1', () => idle(srv.port, 300, ['127.0.0.1'])],
      ['slow x70 from 127.0.0.1', () => slow(srv.port, 70, ['127.0.0.1'])],
      ['idle x300 from 127.0.0.1', () => idle(srv.port, 300, ['127.0.0.1']), true],
      ['slow x70 from 127.0.0.1', () => slow(srv.port, 70, ['127.0.0.1']), true],
    ]) {
      // keep-alive: one connection, made and authenticated before the attack
      const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 1 }) : false;
      if (agent) await ping(srv.port, tok, agent);
      const a = start();
      await sleep(name === 'none' ? 0 : 1500);
      const s = summary(await pings(srv.port, tok, SECONDS * 1000, { agent }));
      if (agent) agent.destroy();
      a.stop();
      const f = (x) => x.toFixed(1);
      console.log(`${name.padEnd(25)} ${keepAlive ? 'keep-alive' : 'fresh     '} pings ${s.n} failed ${s.n - s.ok} p50 ${f(s.p50)} p99 ${f(s.p99)} max ${f(s.max)} ms; attackers opened ${a.stats.opened} connections`);
      await sleep(2500);
    }
  } finally {
    srv.proc.kill('SIGTERM');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
