#!/usr/bin/env python3
"""tests/registry/audit_journald.py TOOLGATE: the audit mirror against a real
systemd-journald, read back with `journalctl --output=json`. The test runs
in a mount namespace of its own with tmpfs over /run and /var/log, starts
journald there (it makes /run/systemd/journal/socket, so config.json
"audit_mirror": "auto" picks the journal), makes a create, two calls and a
refused call, and checks that journalctl returns every entry of `toolgate
log --json` in order with its TOOLGATE_* fields and hash. The host's journal
is never written. Skipped (77) without root, unshare or systemd-journald."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checks import check, finish  # noqa: E402

TG = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
JOURNALD = "/lib/systemd/systemd-journald"

if len(sys.argv) < 3:
    if os.geteuid() != 0 or not shutil.which("unshare") or not os.access(JOURNALD, os.X_OK) \
            or not shutil.which("journalctl"):
        print("audit_journald: skipped: needs root, unshare, %s and journalctl" % JOURNALD)
        sys.exit(77)
    sys.exit(subprocess.call(["unshare", "-m", "--propagation", "private", sys.executable,
                              os.path.abspath(__file__), TG, "--inner"]))

# inside the namespace: nothing below reaches the host's /run or /var/log
for d in ("/run", "/var/log"):
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", d], check=True)
os.makedirs("/run/systemd/journal")
work = tempfile.mkdtemp(prefix="tg_journald.")
jd = subprocess.Popen([JOURNALD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        if os.path.exists("/run/systemd/journal/socket"):
            break
        time.sleep(0.05)
    check(os.path.exists("/run/systemd/journal/socket"), "journald's socket")
    home = os.path.join(work, "home")
    src = os.path.join(work, "src")
    os.makedirs(src)
    shutil.copy(os.path.join(HERE, "tools", "word_count.c"), src)
    shutil.copy(os.path.join(HERE, "tools", "word_count.json"), os.path.join(src, "tool.json"))

    def tg(*args, want=0):
        p = subprocess.run([TG, "--home", home, *args], capture_output=True, text=True)
        check(p.returncode == want, "%s: exit %d, want %d (%s)" % (" ".join(args)[:60],
                                                                p.returncode, want, p.stderr))
        return p.stdout

    tg("init")
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump({"audit_mirror": "auto"}, f)
    tg("create", src)
    tg("call", "word_count", '{"text":"a b"}')
    tg("call", "word_count", '{"text":"c"}')
    tg("call", "word_count", '{"txt":1}', want=2)
    log = json.loads(tg("log", "--json"))
    got = []
    for _ in range(100):  # journald writes what it read in its own time
        p = subprocess.run(["journalctl", "-t", "toolgate", "--output=json", "--no-pager"],
                           capture_output=True, text=True)
        got = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        if len(got) >= len(log):
            break
        time.sleep(0.1)
    check(len(log) == 8 and len(got) == len(log), "%d journal entries for %d audit entries"
          % (len(got), len(log)))
    for e, j in zip(log, got):
        d = e.get("details") or {}
        want = {"TOOLGATE_SEQ": str(e["seq"]), "TOOLGATE_EVENT": e["event"],
                "TOOLGATE_ACTOR": e["actor"], "TOOLGATE_HASH": e["hash"],
                "TOOLGATE_HOME": home, "TOOLGATE_TOOL": e.get("tool"),
                "SYSLOG_IDENTIFIER": "toolgate", "PRIORITY": "6",
                "_TRANSPORT": "journal"}
        if isinstance(d.get("version"), int):
            want["TOOLGATE_VERSION"] = str(d["version"])
        if "reason" in d:
            want["TOOLGATE_REASON"] = d["reason"]
        have = {k: j.get(k) for k in want}
        check(have == want, "entry %d in the journal: %r, want %r" % (e["seq"], have, want))
    refused = [j for j in got if j.get("TOOLGATE_REASON") == "invalid_args"]
    check(len(refused) == 1 and refused[0].get("TOOLGATE_OUTCOME") == "failed",
          "the refused call in the journal: %r" % refused)
finally:
    jd.terminate()
    jd.wait(timeout=30)
    shutil.rmtree(work, ignore_errors=True)

finish("audit_journald")
