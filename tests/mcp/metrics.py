#!/usr/bin/env python3
"""tests/mcp/metrics.py TOOLGATE: GET /metrics of `serve --http`
(mcp/http_metrics.c, registry/create/metrics.c). A load of calls (ok ones,
refused ones with invalid arguments, runs the sandbox kills at their
timeout), then /metrics read with prometheus_client's text parser (Debian
python3-prometheus-client): every counter equals the count of the audit
log's entries (`toolgate log --json`), the latency histogram holds every
finished call, the gauges equal `toolgate status --json`. No token: 401
with WWW-Authenticate; a token that may not approve: 403; POST: 405."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from checks import check, finish  # noqa: E402

TG = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "registry", "tools")
work = tempfile.mkdtemp(prefix="tg_metrics.")
home = os.path.join(work, "home")
# The run and build slots are host-wide (/run/toolgate): a test running
# beside this one holds some, so the gauges are checked on slots of this
# test's own (every process started here inherits it).
os.makedirs(os.path.join(work, "run"))
os.environ["TOOLGATE_RUN_DIR"] = os.path.join(work, "run")


def tg(*args, want=0):
    p = subprocess.run([TG, "--home", home, *args], capture_output=True, text=True)
    check(p.returncode == want, "%s: exit %d, want %d (%s)" % (" ".join(args)[:80], p.returncode,
                                                            want, p.stderr.strip()[:300]))
    return p


def tool(name, timeout_ms=None):
    d = os.path.join(work, "src", name)
    os.makedirs(d)
    shutil.copy(os.path.join(TOOLS, name + ".c"), d)
    with open(os.path.join(TOOLS, name + ".json")) as f:
        m = json.load(f)
    if timeout_ms:
        m["limits"]["timeout_ms"] = timeout_ms
    with open(os.path.join(d, "tool.json"), "w") as f:
        json.dump(m, f)
    return d


def get(url, token=None, method="GET"):
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


serve = None
try:
    tg("init")
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump({"property_tests": 0}, f)  # spin's generated {"spin":true} would fail it
    tg("create", tool("word_count"))
    tg("create", tool("spin", timeout_ms=300))
    for i in range(12):
        tg("call", "word_count", json.dumps({"text": "a b " * i}))
    for i in range(4):
        tg("call", "word_count", '{"txt":1}', want=2)
    for i in range(2):
        tg("call", "spin", '{"spin":true}', want=1)
    for i in range(3):
        tg("call", "spin", '{}')
    ops = tg("token", "add", "ops", "--may-approve").stdout.strip()
    agent = tg("token", "add", "agent").stdout.strip()
    serve = subprocess.Popen([TG, "--home", home, "serve", "--http", "127.0.0.1:0"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = serve.stderr.readline()
    m = re.search(r"listening on (http://127\.0\.0\.1:\d+)/mcp", line)
    check(m is not None, "serve's ready line: %r" % line)
    base = m.group(1)
    url = base + "/metrics"

    st, hdr, body = get(url)
    check(st == 401 and "Bearer" in hdr.get("WWW-Authenticate", ""),
          "no token: 401 with WWW-Authenticate (%d %r)" % (st, hdr))
    st, _, body = get(url, "tgt_" + "0" * 48)
    check(st == 401, "a wrong token: 401 (%d)" % st)
    st, _, body = get(url, agent)
    check(st == 403 and "may approve" in body, "a token that may not approve: 403 (%d %r)" % (st, body))
    st, _, _ = get(url, ops, method="POST")
    check(st == 405, "POST: 405 (%d)" % st)
    st, hdr, text = get(url, ops)
    check(st == 200 and hdr.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
          "ops: 200 text/plain version 0.0.4 (%d %r)" % (st, hdr.get("Content-Type")))

    samples = {}
    types = {}
    for fam in text_string_to_metric_families(text):
        types[fam.name] = fam.type
        for s in fam.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value

    def val(name, **labels):
        return samples.get((name, tuple(sorted(labels.items()))), 0)

    log = json.loads(tg("log", "--json").stdout)
    results = [e for e in log if e["event"] == "call_result"]
    check(len(results) == 21, "21 call_result entries (%d)" % len(results))
    # calls by tool and outcome
    want_calls = {}
    for e in results:
        k = (e["tool"], "ok" if e["details"]["ok"] else "failed")
        want_calls[k] = want_calls.get(k, 0) + 1
    got_calls = {(dict(l)["tool"], dict(l)["outcome"]): v for (n, l), v in samples.items()
                 if n == "toolgate_calls_total"}
    check(got_calls == want_calls, "calls: %r, want %r" % (got_calls, want_calls))
    check(want_calls == {("word_count", "ok"): 12, ("word_count", "failed"): 4,
                         ("spin", "failed"): 2, ("spin", "ok"): 3}, "the load: %r" % want_calls)
    # failures by reason; kills
    want_fail = {}
    for e in results:
        if not e["details"]["ok"]:
            r = e["details"].get("reason", "unknown")
            want_fail[r] = want_fail.get(r, 0) + 1
    got_fail = {dict(l)["reason"]: v for (n, l), v in samples.items()
                if n == "toolgate_call_failures_total"}
    check(got_fail == want_fail and want_fail == {"invalid_args": 4, "timeout": 2},
          "failures: %r, want %r" % (got_fail, want_fail))
    got_kills = {dict(l)["reason"]: v for (n, l), v in samples.items()
                 if n == "toolgate_sandbox_kills_total"}
    check(got_kills == {"timeout": 2}, "kills: %r" % got_kills)
    # creates by outcome
    want_cr = {}
    for e in log:
        if e["event"] == "create":
            want_cr[e["details"]["status"]] = want_cr.get(e["details"]["status"], 0) + 1
    got_cr = {dict(l)["outcome"]: v for (n, l), v in samples.items()
              if n == "toolgate_creates_total"}
    check(got_cr == want_cr and want_cr == {"active": 2}, "creates: %r, want %r" % (got_cr, want_cr))
    check(val("toolgate_audit_entries_total") == log[-1]["seq"],
          "audit entries: %r, want %r" % (val("toolgate_audit_entries_total"), log[-1]["seq"]))
    check(val("toolgate_calls_queued_total") == sum(e["event"] == "call_queued" for e in log),
          "queued calls")
    # the latency histogram: every finished call, buckets cumulative
    check(types.get("toolgate_call_duration_seconds") == "histogram", "a histogram: %r" % types)
    check(val("toolgate_call_duration_seconds_count") == len(results),
          "histogram count %r, want %d" % (val("toolgate_call_duration_seconds_count"), len(results)))
    check(val("toolgate_call_duration_seconds_bucket", le="+Inf") == len(results), "+Inf bucket")
    les = sorted((float(dict(l)["le"]), v) for (n, l), v in samples.items()
                 if n == "toolgate_call_duration_seconds_bucket")
    check(all(a[1] <= b[1] for a, b in zip(les, les[1:])), "cumulative buckets: %r" % les)
    check(val("toolgate_call_duration_seconds_bucket", le="0.25") <= len(results) - 2,
          "the two 300 ms timeouts are above 0.25 s")
    wall = sum(e["details"].get("wall_ms", 0) for e in results) / 1000.0
    check(abs(val("toolgate_call_duration_seconds_sum") - wall) < 0.002,
          "histogram sum %r, want %r" % (val("toolgate_call_duration_seconds_sum"), wall))
    # gauges against toolgate status --json
    status = json.loads(tg("status", "--json").stdout)
    check(val("toolgate_tools") == status["tools"]["total"] == 2, "tools gauge")
    check(val("toolgate_tools_active") == status["tools"]["active"], "active tools gauge")
    check(val("toolgate_pending_versions") == status["pending"]["count"], "pending gauge")
    check(val("toolgate_home_quota_bytes") == status["home"]["quota_bytes"], "quota gauge")
    check(val("toolgate_cache_budget_bytes") == status["cache"]["budget_bytes"], "cache budget gauge")
    check(val("toolgate_home_used_bytes") > 0, "home used bytes")
    check(val("toolgate_run_slots") == status["concurrency"]["max_concurrent_runs"], "run slots")
    check(val("toolgate_run_slots_busy") == 0, "no run slot held between calls")
finally:
    if serve:
        serve.terminate()
        serve.wait(timeout=30)
    shutil.rmtree(work, ignore_errors=True)

finish("metrics")
