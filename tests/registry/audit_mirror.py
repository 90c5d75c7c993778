#!/usr/bin/env python3
"""tests/registry/audit_mirror.py TOOLGATE: the audit log's copy in the
journal or syslog (registry/record/audit_mirror.c). A datagram socket of the
test's own stands in for journald's (config.json audit_mirror_socket): a
create, two calls, a refused call (invalid arguments) and a call of a tool
that does not exist; every entry of `toolgate log --json`
arrives once, in order, with its fields and its hash, and nothing else
arrives (the unknown tool's refusal writes no entry); a call over
`serve --http` names the token's principal. Then the syslog form of one entry and of a chain_break (priority err), "off" sending nothing, and a
socket nobody listens on failing no call."""
import json
import os
import re
import shutil
import sqlite3
import socket
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checks import check, finish  # noqa: E402

TG = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp(prefix="tg_mirror.")


def tg(home, *args, want=0):
    p = subprocess.run([TG, "--home", home, *args], capture_output=True, text=True)
    check(p.returncode == want, "%s: exit %d, want %d (%s)" % (" ".join(args), p.returncode,
                                                            want, p.stderr.strip()))
    return p.stdout


def new_home(name, cfg):
    home = os.path.join(work, name)
    tg(home, "init")
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump(cfg, f)
    return home


def tool_dir():
    d = os.path.join(work, "src")
    if not os.path.isdir(d):
        os.makedirs(d)
        shutil.copy(os.path.join(HERE, "tools", "word_count.c"), d)
        shutil.copy(os.path.join(HERE, "tools", "word_count.json"), os.path.join(d, "tool.json"))
    return d


def listen(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.setblocking(False)
    return s


def drain(s):
    out = []
    while True:
        try:
            out.append(s.recv(65536))
        except BlockingIOError:
            return out


def journal_fields(dgram):
    """journald's native protocol, the KEY=value form (the only one sent)."""
    text = dgram.decode()
    check(text.endswith("\n"), "a datagram ends with a newline")
    f = {}
    for line in text[:-1].split("\n"):
        k, _, v = line.partition("=")
        check(k not in f, "field %s once" % k)
        f[k] = v
    return f


try:
    # --- journal form, every entry of a small run
    sock = os.path.join(work, "journal.sock")
    s = listen(sock)
    home = new_home("h1", {"audit_mirror": "journal", "audit_mirror_socket": sock})
    tg(home, "create", tool_dir())
    tg(home, "call", "word_count", '{"text":"a b"}')
    tg(home, "call", "word_count", '{"text":"c"}')
    tg(home, "call", "word_count", '{"txt":1}', want=2)
    tg(home, "call", "no_such_tool", '{}', want=2)  # refused before any entry
    got = [journal_fields(d) for d in drain(s)]
    log = json.loads(tg(home, "log", "--json"))
    check(len(log) == 8, "the run wrote 8 entries (%d)" % len(log))
    check(len(got) == len(log), "%d datagrams for %d entries" % (len(got), len(log)))
    for e, f in zip(log, got):
        d = e.get("details") or {}
        want = {
            "MESSAGE": "toolgate audit %d: %s%s" % (e["seq"], e["event"],
                                                   " " + e["tool"] if e.get("tool") else ""),
            "PRIORITY": "6",
            "SYSLOG_IDENTIFIER": "toolgate",
            "TOOLGATE_SEQ": str(e["seq"]),
            "TOOLGATE_EVENT": e["event"],
            "TOOLGATE_ACTOR": e["actor"],
            "TOOLGATE_HASH": e["hash"],
            "TOOLGATE_HOME": home,
        }
        if e.get("tool"):
            want["TOOLGATE_TOOL"] = e["tool"]
        if isinstance(d.get("version"), int):
            want["TOOLGATE_VERSION"] = str(d["version"])
        if "status" in d:
            want["TOOLGATE_OUTCOME"] = d["status"]
        elif isinstance(d.get("ok"), bool):
            want["TOOLGATE_OUTCOME"] = "ok" if d["ok"] else "failed"
        if "reason" in d:
            want["TOOLGATE_REASON"] = d["reason"]
        check(f == want, "entry %d: got %r, want %r" % (e["seq"], f, want))
    events = [f.get("TOOLGATE_EVENT") for f in got]
    check(events[:3] == ["create_intent", "create", "activate"], "the create's entries first: %r" % events)
    refused = [f for f in got if f.get("TOOLGATE_REASON") == "invalid_args"]
    check(len(refused) == 1 and refused[0].get("TOOLGATE_OUTCOME") == "failed"
          and refused[0].get("TOOLGATE_VERSION") == "1",
          "the refused call: one call_result, failed, invalid_args, v1: %r" % refused)
    ok_calls = [f for f in got if f.get("TOOLGATE_EVENT") == "call_result"
                and f.get("TOOLGATE_OUTCOME") == "ok"]
    check(len(ok_calls) == 2, "two calls ok: %r" % ok_calls)

    # --- over HTTP: the entries of a call name the token's principal
    tg(home, "token", "add", "carol")
    tok = subprocess.run([TG, "--home", home, "token", "add", "dave"], capture_output=True,
                         text=True).stdout.strip()
    serve = subprocess.Popen([TG, "--home", home, "serve", "--http", "127.0.0.1:0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", serve.stderr.readline())
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "mirror-test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "word_count", "arguments": {"text": "x y z"}, "_meta": meta}}
        req = urllib.request.Request(m.group(1), data=json.dumps(body).encode(), method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": "Bearer " + tok, "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call", "Mcp-Name": "word_count"})
        with urllib.request.urlopen(req, timeout=60) as r:
            answer = json.loads(r.read())
        check(answer.get("result", {}).get("structuredContent") == {"words": 3},
              "the call over HTTP: %r" % answer)
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    more = [journal_fields(d) for d in drain(s)]
    log = json.loads(tg(home, "log", "--json"))[8:]
    check([f.get("TOOLGATE_HASH") for f in more] == [e["hash"] for e in log] and len(log) >= 4,
          "the entries after the run, in order: %r" % [f.get("TOOLGATE_EVENT") for f in more])
    by_event = {}
    for f in more:
        by_event.setdefault(f.get("TOOLGATE_EVENT"), []).append(f)
    check([f.get("TOOLGATE_PRINCIPAL") for f in by_event.get("token_add", [])] == ["carol", "dave"],
          "token_add names its principal: %r" % by_event.get("token_add"))
    calls = by_event.get("call", []) + by_event.get("call_result", [])
    check(len(calls) == 2 and all(f.get("TOOLGATE_PRINCIPAL") == "dave"
                                  and f.get("TOOLGATE_ACTOR") == "mcp:dave:modern" for f in calls),
          "the HTTP call's entries: principal dave, actor mcp:dave:modern: %r" % calls)

    # --- syslog form: one RFC 3164 line with the same fields
    sock2 = os.path.join(work, "log.sock")
    s2 = listen(sock2)
    home2 = new_home("h2", {"audit_mirror": "syslog", "audit_mirror_socket": sock2})
    tg(home2, "create", tool_dir())
    lines = [d.decode() for d in drain(s2)]
    log2 = json.loads(tg(home2, "log", "--json"))
    check(len(lines) == len(log2) and len(lines) >= 1, "syslog: %d lines for %d entries" % (len(lines), len(log2)))
    if lines:
        e = log2[-1]
        line = lines[-1]
        check(line.startswith("<30>") and (" toolgate[%s]: audit seq=\"%d\" event=\"%s\""
                                            % (line.split("toolgate[")[1].split("]")[0], e["seq"], e["event"])) in line,
              "syslog header and first fields: %r" % line)
        check(line.endswith(' hash="%s" home="%s"' % (e["hash"], home2)), "syslog line ends with the hash: %r" % line)
        check("\n" not in line, "one line")

    # --- a cut chain: its chain_break entry is copied at priority err
    con = sqlite3.connect(os.path.join(home2, "registry.db"))
    con.executescript("DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete; "
                      "DELETE FROM audit WHERE seq = (SELECT max(seq) FROM audit);")
    con.close()
    tg(home2, "call", "word_count", '{"text":"q"}')
    lines = [d.decode() for d in drain(s2)]
    events = [re.search(r' event="([a-z_]+)"', l).group(1) for l in lines]
    check(events == ["chain_break", "call", "call_result"], "after the cut: %r" % events)
    check([l[:4] for l in lines] == ["<27>", "<30>", "<30>"], "priorities: %r" % lines)

    # --- off (the default): nothing sent
    home3 = new_home("h3", {"audit_mirror_socket": sock})
    tg(home3, "create", tool_dir())
    check(drain(s) == [], "audit_mirror absent (off): nothing sent")

    # --- a socket nobody listens on: the calls go on, the chain holds
    home4 = new_home("h4", {"audit_mirror": "journal",
                            "audit_mirror_socket": os.path.join(work, "nobody.sock")})
    tg(home4, "create", tool_dir())
    out = tg(home4, "call", "word_count", '{"text":"a b c"}')
    check(json.loads(out) == {"words": 3}, "the call's result with no listener: %r" % out)
    tg(home4, "verify")

    # --- a bad value is refused, naming the key
    home5 = new_home("h5", {"audit_mirror": "loud"})
    p = subprocess.run([TG, "--home", home5, "list"], capture_output=True, text=True)
    check(p.returncode == 2 and "audit_mirror: must be \"off\", \"journal\", \"syslog\" or \"auto\"" in p.stderr,
          "a bad audit_mirror: exit 2 naming the key (%d %s)" % (p.returncode, p.stderr.strip()))
finally:
    shutil.rmtree(work, ignore_errors=True)

finish("audit_mirror")
