#!/usr/bin/env python3
"""bench/shadow/calls.py TOOLGATE HOME TOOL N: drive `toolgate serve` over
stdio (MCP: initialize, then N tools/call of TOOL with distinct arguments,
one at a time) and exit. Run with TG_CALL_PROFILE=FILE set, the server
stamps each call's stages (common/prof.c); bench/shadow/run.sh reads them."""
import json, subprocess, sys

tg, home, tool, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
p = subprocess.Popen([tg, '--home', home, 'serve'], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

def ask(i, method, params):
    p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': i, 'method': method, 'params': params}) + '\n')
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get('id') == i:
            return m

ask(0, 'initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                      'clientInfo': {'name': 'bench', 'version': '1'}})
p.stdin.write(json.dumps({'jsonrpc': '2.0', 'method': 'notifications/initialized'}) + '\n')
for i in range(1, n + 1):
    r = ask(i, 'tools/call', {'name': tool, 'arguments': {'text': 'bench call %d with a few words' % i}})
    if 'error' in r or r['result'].get('isError'):
        sys.exit('call %d failed: %s' % (i, r))
p.stdin.close()
p.wait()
