// tests/mcp/http_attack.mjs: hostile connections against `serve --http` on
// loopback, shared by tests/mcp/http_load.test.mjs and bench/mcp/attack.mjs.
// Attackers connect from other loopback addresses (127.0.0.2 and up: the
// whole 127/8 is loopback on Linux), so the per-address limit applies to
// them and not to the client with a token on 127.0.0.1.
//  - idle(port, n, addrs): n connections that send nothing; one closed by
//    the server is opened again after a second.
//  - slow(port, n, addrs): n connections each sending a request line and
//    then one header byte a second, never finishing; reconnecting at once.
//  - pings(port, token, ms, { agent }): authenticated 2026-07-28
//    server/discover requests one after another for ms, each on a fresh
//    connection from 127.0.0.1 (or through agent, e.g. a keep-alive
//    http.Agent); resolves with their latencies and statuses.
import http from 'node:http';
import net from 'node:net';
import { META_KEYS, MODERN } from './fixtures.mjs';

export const attackAddrs = (n, first = 2) => Array.from({ length: n }, (_, i) => `127.0.0.${first + i}`);

function attacker(port, localAddress, onConnect, reconnectMs, stats) {
  let stopped = false;
  let sock = null;
  let timer = null;
  const open = () => {
    if (stopped) return;
    stats.opened++;
    sock = net.connect({ port, host: '127.0.0.1', localAddress });
    sock.on('error', () => {});
    sock.on('connect', () => onConnect(sock));
    sock.on('close', () => {
      stats.closed++;
      if (timer) clearInterval(timer);
      timer = null;
      if (!stopped) setTimeout(open, reconnectMs);
    });
  };
  open();
  return {
    setTimer(t) { timer = t; },
    stop() { stopped = true; if (timer) clearInterval(timer); if (sock) sock.destroy(); },
  };
}

function swarm(n, addrs, make) {
  const stats = { opened: 0, closed: 0 };
  const list = Array.from({ length: n }, (_, i) => make(addrs[i % addrs.length], stats));
  return { stats, stop: () => list.forEach((a) => a.stop()) };
}

export function idle(port, n, addrs) {
  return swarm(n, addrs, (addr, stats) => attacker(port, addr, () => {}, 1000, stats));
}

export function slow(port, n, addrs) {
  return swarm(n, addrs, (addr, stats) => {
    const a = attacker(port, addr, (sock) => {
      sock.write('POST /mcp HTTP/1.1\r\nHost: a\r\nX-Slow: ');
      a.setTimer(setInterval(() => { if (!sock.destroyed) sock.write('x'); }, 1000));
    }, 10, stats);
    return a;
  });
}

export function ping(port, token, agent = false) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: META_KEYS() } });
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({
      host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, localAddress: agent ? undefined : '127.0.0.1',
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${token}`, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'server/discover',
        'Content-Length': Buffer.byteLength(body), ...(agent ? {} : { Connection: 'close' }),
      },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('error', (e) => resolve({ status: 0, error: e.code, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    req.setTimeout(30000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

export async function pings(port, token, ms, { gapMs = 50, agent = false } = {}) {
  const out = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    out.push(await ping(port, token, agent));
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return out;
}

export function percentile(values, p) {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)] : NaN;
}

export function summary(results) {
  const ms = results.map((r) => r.ms);
  return {
    n: results.length,
    ok: results.filter((r) => r.status === 200).length,
    p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms),
  };
}
