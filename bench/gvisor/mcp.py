#!/usr/bin/env python3
"""bench/gvisor/mcp.py TOOLGATE HOME RUNS TOOL_A TOOL_B ARGS_JSON: the cost
of a tools/call through one `toolgate serve` (MCP over stdio) for TOOL_A
and TOOL_B called alternately RUNS times each (interleaved, as
bench/sandbox/ab.c, so that a drifting load hits both alike), after 3
warm-up calls of each: the median, quartiles and p99 of each in ms (from
the request written to its reply read) and the ratio of the medians (B over
A). Every reply must be a result with the same structuredContent for both
tools, or the bench fails."""
import json
import subprocess
import sys
import time


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p * len(xs) + 0.5)) - 1))]


def main():
    tg, home, runs, a, b, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], \
        sys.argv[5], json.loads(sys.argv[6])
    p = subprocess.Popen([tg, "--home", home, "serve"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    ids = iter(range(1, 1 << 30))

    def rpc(method, params):
        i = next(ids)
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("bench/gvisor/mcp: serve ended")
            m = json.loads(line)
            if m.get("id") == i:
                return m

    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "bench-gvisor", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    times = {a: [], b: []}
    want = None
    for k in range(runs + 3):
        for tool in (a, b):
            t0 = time.monotonic()
            m = rpc("tools/call", {"name": tool, "arguments": args})
            ms = (time.monotonic() - t0) * 1e3
            got = m.get("result", {}).get("structuredContent")
            if got is None or m["result"].get("isError"):
                sys.exit("bench/gvisor/mcp: %s: %s" % (tool, json.dumps(m)[:300]))
            if want is None:
                want = got
            if got != want:
                sys.exit("bench/gvisor/mcp: %s answered %s, not %s" % (tool, got, want))
            if k >= 3:
                times[tool].append(ms)
    p.stdin.close()
    p.wait(timeout=30)
    for label, tool in (("A", a), ("B", b)):
        t = times[tool]
        print("%s median %.3f ms (p25 %.3f, p75 %.3f, p99 %.3f; %s)" % (
            label, q(t, 0.5), q(t, 0.25), q(t, 0.75), q(t, 0.99), tool))
    print("B/A median ratio %.2f" % (q(times[b], 0.5) / q(times[a], 0.5)))


main()
