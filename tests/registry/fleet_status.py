#!/usr/bin/env python3
"""tests/registry/fleet_status.py TOOLGATE: scripts/fleet-status.py over two
homes (docs/OPERATIONS.md). Home A: one active tool and two calls; home B:
a version pending approval (workspace capability) and a rejected one (a
failing test). The table's rows and the --json rows hold exactly those
figures; exit 1 while B needs a person, 0 over A alone, 1 over A with a
quota threshold it passes, 2 with a home that does not answer."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checks import check, finish  # noqa: E402

TG = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "fleet-status.py")
work = tempfile.mkdtemp(prefix="tg_fleet.")


def tg(home, *args, want=0):
    p = subprocess.run([TG, "--home", home, *args], capture_output=True, text=True)
    check(p.returncode == want, "%s: exit %d, want %d (%s)" % (" ".join(args)[:60], p.returncode,
                                                            want, p.stderr.strip()[:200]))


def tool(name, edit=None):
    d = os.path.join(work, "src", name + ("_bad" if edit else ""))
    os.makedirs(d)
    shutil.copy(os.path.join(HERE, "tools", name + ".c"), d)
    with open(os.path.join(HERE, "tools", name + ".json")) as f:
        m = json.load(f)
    if edit:
        edit(m)
    with open(os.path.join(d, "tool.json"), "w") as f:
        json.dump(m, f)
    return d


def fleet(*args):
    p = subprocess.run([sys.executable, SCRIPT, "--toolgate", TG, *args], capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def wrong_test(m):
    m["tests"][0]["expect"] = {"words": 3}


try:
    a, b = os.path.join(work, "a"), os.path.join(work, "b")
    tg(a, "init")
    tg(a, "create", tool("word_count"))
    tg(a, "call", "word_count", '{"text":"a b"}')
    tg(a, "call", "word_count", '{"text":"c"}')
    tg(b, "init")
    ws = os.path.join(work, "ws")
    os.makedirs(ws)
    with open(os.path.join(b, "config.json"), "w") as f:
        json.dump({"workspace": ws}, f)
    tg(b, "create", tool("note_writer"))
    tg(b, "create", tool("word_count", wrong_test), want=1)

    rc, out, err = fleet("--json", a, b)
    check(rc == 1, "B needs a person: exit 1 (%d %s)" % (rc, err))
    rows = json.loads(out)
    check([r["home"] for r in rows] == [a, b], "one row per home, in order")
    ra, rb = rows
    check((ra["tools"], ra["active"], ra["pending"], ra["rejections_24h"], ra["calls_24h"],
           ra["attention"]) == (1, 1, 0, 0, 2, []), "home A's row: %r" % ra)
    check((rb["tools"], rb["active"], rb["pending"], rb["pending_first"], rb["rejections_24h"],
           rb["calls_24h"]) == (2, 0, 1, ["note_writer v1"], 1, 0), "home B's row: %r" % rb)
    check(rb["attention"] == ["1 pending: note_writer v1"], "B's note: %r" % rb["attention"])
    check(0 < ra["home_percent"] < 90 and 0 < ra["cache_percent"] < 90, "A's quota use: %r" % ra)

    rc, out, _ = fleet(a, b)
    lines = out.splitlines()
    check(rc == 1 and len(lines) == 3 and lines[0].split() == ["HOME", "TOOLS", "ACTIVE", "PENDING",
                                                              "REJ24H", "CALLS24H", "HOME%",
                                                              "CACHE%", "NOTE"],
          "the table: a header and two rows (%r)" % lines)
    check(lines[1].split()[:6] == [a, "1", "1", "0", "0", "2"] and lines[1].endswith("  ok"),
          "A's line: %r" % lines[1])
    check(lines[2].split()[:6] == [b, "2", "0", "1", "1", "0"]
          and lines[2].endswith("1 pending: note_writer v1"), "B's line: %r" % lines[2])

    rc, out, _ = fleet(a)
    check(rc == 0, "A alone: exit 0 (%d)" % rc)
    rc, out, _ = fleet("--json", "--warn-percent", "0.001", a)
    check(rc == 1 and any(n.startswith("home quota at ") for n in json.loads(out)[0]["attention"]),
          "a quota past the threshold is a note: %r" % out)
    missing = os.path.join(work, "missing")
    rc, out, _ = fleet(a, missing)
    check(rc == 2 and ("no answer: toolgate: status: no toolgate home at %s" % missing) in out,
          "a home that does not answer: exit 2 and why (%d %r)" % (rc, out))
finally:
    shutil.rmtree(work, ignore_errors=True)

finish("fleet_status")
