#!/usr/bin/env python3
# tests/bridge/authz/create_stdio.py TOOLGATE HOME DIR [SERVE_OPTION...]:
# submit the tool in DIR (tool.json, its "source" file inlined) as
# create_tool over MCP stdio (`toolgate --home HOME serve SERVE_OPTION...`),
# initialize first; print the JSON-RPC answer to the tools/call as one line.
import json
import os
import subprocess
import sys

tg, home, d = sys.argv[1:4]
m = json.load(open(os.path.join(d, "tool.json")))
m["source"] = open(os.path.join(d, m.get("source", "tool.c"))).read()
p = subprocess.Popen([tg, "--home", home, "serve", *sys.argv[4:]], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)


def send(o):
    p.stdin.write(json.dumps(o) + "\n")
    p.stdin.flush()


def answer(i):
    for line in p.stdout:
        msg = json.loads(line)
        if msg.get("id") == i:
            return msg
    raise SystemExit("the server closed its output before answering %r" % i)


send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                 "clientInfo": {"name": "authz-test", "version": "1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "create_tool", "arguments": m}})
print(json.dumps(answer(2)))
p.stdin.close()
p.wait(timeout=30)
