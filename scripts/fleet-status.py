#!/usr/bin/env python3
"""scripts/fleet-status.py: one screen over many toolgate homes, from
`toolgate status --json` alone (docs/OPERATIONS.md).

    fleet-status.py [--toolgate PATH] [--json] [--warn-percent N] HOME...

HOME is a local path, or HOST:PATH for a home on another machine (read with
`ssh HOST toolgate --home PATH status --json`; the remote needs toolgate
on its PATH). One row per home: tools and active ones, versions pending a
person, rejections and calls of the last 24 hours, the home's and the
cache's use of their quotas, an unacknowledged rebuild, and a NOTE column
naming what needs a person. --json prints the rows as a JSON array
instead. Exit 0 when every home answered and none needs attention, 1 when
one needs attention (pending versions, a rebuild not acknowledged, a quota
at or over --warn-percent, 90 by default), 2 when a home did not answer.
Strings read from a home (tool names, messages) may come from an agent:
every byte outside printable ASCII is shown as '?'.
"""
import argparse
import json
import re
import subprocess
import sys


def printable(s, n=60):
    return re.sub(r"[^\x20-\x7e]", "?", str(s))[:n]


def status_of(toolgate, home):
    m = re.match(r"^([A-Za-z0-9._@-]+):(/.*)$", home)
    if m:
        cmd = ["ssh", "-o", "BatchMode=yes", m.group(1), "toolgate", "--home", m.group(2),
               "status", "--json"]
    else:
        cmd = [toolgate, "--home", home, "status", "--json"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, "not JSON: %s" % e


def percent(used, quota):
    return round(100.0 * used / quota, 1) if quota else None


def row_of(home, st, err, warn):
    if st is None:
        return {"home": home, "ok": False, "error": err, "attention": ["no answer: %s" % err]}
    h, c = st.get("home", {}), st.get("cache", {})
    row = {
        "home": home,
        "ok": True,
        "tools": st["tools"]["total"],
        "active": st["tools"]["active"],
        "pending": st["pending"]["count"],
        "pending_first": ["%s v%s" % (v["name"], v["version"]) for v in st["pending"]["first"]],
        "rejections_24h": st["rejections_24h"]["count"],
        "calls_24h": st["calls_24h"]["count"],
        "home_percent": percent(h.get("used_bytes", 0), h.get("quota_bytes", 0)),
        "cache_percent": percent(c.get("bytes", 0), c.get("budget_bytes", 0)),
        "rebuild_unacknowledged": bool(st.get("rebuild_unacknowledged")),
    }
    att = []
    if row["pending"]:
        att.append("%d pending: %s" % (row["pending"], ", ".join(row["pending_first"])))
    if row["rebuild_unacknowledged"]:
        att.append("rebuild not acknowledged")
    for key, what in (("home_percent", "home quota"), ("cache_percent", "cache budget")):
        if row[key] is not None and row[key] >= warn:
            att.append("%s at %s%%" % (what, row[key]))
    row["attention"] = att
    return row


def show(rows):
    cols = ("HOME", "TOOLS", "ACTIVE", "PENDING", "REJ24H", "CALLS24H", "HOME%", "CACHE%", "NOTE")
    lines = [cols]
    for r in rows:
        if not r["ok"]:
            lines.append((printable(r["home"], 40), "-", "-", "-", "-", "-", "-", "-",
                          printable("; ".join(r["attention"]), 100)))
            continue
        pct = lambda v: "-" if v is None else "%.1f" % v
        lines.append((printable(r["home"], 40), str(r["tools"]), str(r["active"]),
                      str(r["pending"]), str(r["rejections_24h"]), str(r["calls_24h"]),
                      pct(r["home_percent"]), pct(r["cache_percent"]),
                      printable("; ".join(r["attention"]) or "ok", 100)))
    widths = [max(len(l[i]) for l in lines) for i in range(len(cols) - 1)]
    for l in lines:
        print("  ".join(v.ljust(w) for v, w in zip(l, widths)) + "  " + l[-1])


def main():
    ap = argparse.ArgumentParser(description="one screen over many toolgate homes")
    ap.add_argument("--toolgate", default="toolgate", help="the toolgate binary (local homes)")
    ap.add_argument("--json", action="store_true", help="print the rows as a JSON array")
    ap.add_argument("--warn-percent", type=float, default=90.0,
                    help="a quota used at or past this is a note (90)")
    ap.add_argument("homes", nargs="+", metavar="HOME")
    a = ap.parse_args()
    rows = [row_of(h, *status_of(a.toolgate, h), a.warn_percent) for h in a.homes]
    if a.json:
        print(json.dumps(rows, indent=2))
    else:
        show(rows)
    if any(not r["ok"] for r in rows):
        return 2
    return 1 if any(r["attention"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
