#!/usr/bin/env python3
# bench/replication/bench.py TOOLGATE SOURCE_DIR: replication figures, each
# against its baseline in the same run, the two sides alternating round by
# round (so a load change on the machine hits both), medians and p99.
#  1. `toolgate pull` of N new versions into a fresh home (each re-vetted,
#     re-built and its 3 tests re-run in the sandbox), per version, against
#     `toolgate create` of the same tool (N creates per round, each source
#     made unique by a comment so nothing is cached).
#  2. A store of T tools (made with git fast-import: one version each, the
#     same commit layout toolgate writes) where nothing changed:
#     `toolgate pull` and `toolgate push` against `git fetch` / `git push`
#     of the same refs between a bare clone and the same bare hub.
#  3. The quarantine's cost: in the same store of T tools, a pull whose one
#     moved history (a new tool with a symlink entry) is fetched into a
#     quarantine (made, its refs seeded with the T tips, checked, removed)
#     and refused, against a pull where nothing changed (no quarantine).
# Environment: TG_BENCH_PULL_VERSIONS (N, default 20), TG_BENCH_ROUNDS
# (part 1 rounds, default 3; parts 2 and 3 run 10x as many), TG_BENCH_TOOLS
# (T, default 1000), TG_BENCH_PARTS (default "123": all). With few samples p99
# is the largest one.
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TG, SRC = sys.argv[1], sys.argv[2]
N = int(os.environ.get("TG_BENCH_PULL_VERSIONS", "20"))
ROUNDS = int(os.environ.get("TG_BENCH_ROUNDS", "3"))
TOOLS = int(os.environ.get("TG_BENCH_TOOLS", "1000"))
WORK = tempfile.mkdtemp(prefix="tg_bench_repl.")


def run(*cmd, ok=(0,), quiet=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE if quiet else None,
                       stderr=subprocess.PIPE if quiet else None)
    if r.returncode not in ok:
        sys.exit("bench/replication: %s: exit %d\n%s" % (" ".join(cmd), r.returncode,
                                                         (r.stderr or b"").decode()[-2000:]))
    return r


def timed(*cmd, ok=(0,)):
    t = time.perf_counter()
    run(*cmd, ok=ok)
    return time.perf_counter() - t


def tg(home, *args, ok=(0,)):
    return run(TG, "--home", home, *args, ok=ok)


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.99 * (len(xs) - 1))))]


def show(label, xs, unit_ms=True):
    print("%-44s median %8.1f ms  p99 %8.1f ms  (%d samples)" %
          (label, statistics.median(xs) * 1000, p99(xs) * 1000, len(xs)))


def tool_dir(name, n):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(SRC, "examples/word_count/tool.json"), d)
    with open(os.path.join(SRC, "examples/word_count/tool.c")) as f:
        src = f.read()
    with open(os.path.join(d, "tool.c"), "w") as f:
        f.write("/* bench %s %d */\n" % (name, n) + src)
    return d


def no_rate_limit(home):
    """A bench submits faster than the default 30 creates a minute."""
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump({"home_max_creates_per_minute": 0}, f)


def part1():
    print("-- 1. pull of %d new versions (re-vetted, re-built, re-tested) per version "
          "vs a local create" % N)
    hub = os.path.join(WORK, "hub1.git")
    run("git", "init", "-q", "--bare", hub)
    src_home = os.path.join(WORK, "S1")
    tg(src_home, "init")
    no_rate_limit(src_home)
    tg(src_home, "remote", "add", "origin", hub)
    for i in range(N):
        tg(src_home, "create", tool_dir("src", i))
    tg(src_home, "push")
    create_home = os.path.join(WORK, "C1")
    tg(create_home, "init")
    no_rate_limit(create_home)
    pulls, creates, k = [], [], 0
    for r in range(ROUNDS):
        home = os.path.join(WORK, "B1_%d" % r)
        tg(home, "init")
        tg(home, "remote", "add", "origin", hub)
        pulls.append(timed(TG, "--home", home, "pull") / N)
        out = json.loads(tg(home, "history", "word_count", "--json").stdout)
        passed = sum(v["status"] in ("active", "inactive") for v in out["versions"])
        if passed != N:
            sys.exit("bench/replication: only %d of %d pulled versions passed" % (passed, N))
        shutil.rmtree(home)
        for _ in range(N):
            d = tool_dir("c", k)
            k += 1
            creates.append(timed(TG, "--home", create_home, "create", d))
    show("toolgate pull, per version", pulls)
    show("toolgate create (same tool)", creates)
    print("ratio of medians: pull per version / create = %.2f" %
          (statistics.median(pulls) / statistics.median(creates)))


def fast_import_store(store):
    """T tools, one version each, the layout toolgate's store writes."""
    with open(os.path.join(SRC, "examples/word_count/tool.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(SRC, "examples/word_count/tool.c"), "rb") as f:
        src = f.read()
    import hashlib
    chash = hashlib.sha256(b"toolgate-build-v1\n" + src).hexdigest()
    analysis = b'{"verdict": "pass", "findings": [], "reason": ""}\n'
    tests = b"[]\n"
    out = []

    def data(b):
        out.append(b"data %d\n" % len(b) + b + b"\n")
    for name, blob in (("src", src), ("analysis", analysis), ("tests", tests)):
        out.append(b"blob\nmark :%s\n" % {"src": b"1", "analysis": b"2", "tests": b"3"}[name])
        data(blob)
    for i in range(TOOLS):
        name = "tool_%04d" % i
        manifest["name"] = name
        manifest["source"] = "tool.c"
        m = json.dumps(manifest, indent=2).encode() + b"\n"
        msg = ("%s: active\n\nToolgate-Version: 1\nToolgate-Status: active\n"
               "Toolgate-Verdict: pass\nToolgate-Content-Hash: %s\nToolgate-Submitter: cli\n"
               % (name, chash)).encode()
        out.append(b"commit refs/tools/%s\nmark :%d\n" % (name.encode(), 10 + i))
        out.append(b"author toolgate <toolgate@localhost> 1700000000 +0000\n"
                   b"committer toolgate <toolgate@localhost> 1700000000 +0000\n")
        data(msg)
        out.append(b"M 100644 :1 tool.c\nM 100644 :2 analysis.json\nM 100644 :3 tests.json\n"
                   b"M 100644 inline tool.json\n")
        data(m)
        out.append(b"reset refs/active/%s\nfrom :%d\n\n" % (name.encode(), 10 + i))
    subprocess.run(["git", "--git-dir=" + store, "fast-import", "--quiet"], input=b"".join(out),
                   check=True)


def part2():
    print("-- 2. push / pull of a store of %d tools where nothing changed vs git fetch / push"
          % TOOLS)
    hub = os.path.join(WORK, "hub2.git")
    run("git", "init", "-q", "--bare", hub)
    s = os.path.join(WORK, "S2")
    tg(s, "init")
    fast_import_store(os.path.join(s, "store.git"))
    v = json.loads(tg(s, "verify", "--json", ok=(0, 1)).stdout)
    if v["checked"]["tools"] != TOOLS or v["problems"]:
        sys.exit("bench/replication: the made store does not verify: %s" % v["problems"][:3])
    tg(s, "remote", "add", "origin", hub)
    tg(s, "push")
    b = os.path.join(WORK, "B2")
    shutil.copytree(s, b, symlinks=True)
    tg(b, "pull")
    g = os.path.join(WORK, "g2.git")
    run("git", "init", "-q", "--bare", g)
    specs = ["refs/tools/*:refs/tools/*", "refs/active/*:refs/active/*"]
    run("git", "--git-dir=" + g, "fetch", "-q", hub, *specs)
    fetch, pull, push, gpush = [], [], [], []
    for _ in range(ROUNDS * 10):
        fetch.append(timed("git", "--git-dir=" + g, "fetch", "-q", hub, *specs))
        pull.append(timed(TG, "--home", b, "pull"))
        gpush.append(timed("git", "--git-dir=" + g, "push", "-q", hub, *specs))
        push.append(timed(TG, "--home", b, "push"))
    show("git fetch (nothing new)", fetch)
    show("toolgate pull (nothing new)", pull)
    show("git push (nothing new)", gpush)
    show("toolgate push (nothing new)", push)
    print("ratios of medians: pull / git fetch = %.2f, push / git push = %.2f" %
          (statistics.median(pull) / statistics.median(fetch),
           statistics.median(push) / statistics.median(gpush)))


def part3():
    print("-- 3. a pull fetching one refused history into a quarantine, store of %d tools, "
          "vs a pull where nothing changed" % TOOLS)
    hub = os.path.join(WORK, "hub3.git")
    run("git", "init", "-q", "--bare", hub)
    s = os.path.join(WORK, "S3")
    tg(s, "init")
    fast_import_store(os.path.join(s, "store.git"))
    tg(s, "remote", "add", "origin", hub)
    tg(s, "push")
    b = os.path.join(WORK, "B3")
    shutil.copytree(s, b, symlinks=True)
    tg(b, "pull")
    g = ["git", "--git-dir=" + hub]
    src = run(*g, "rev-parse", "refs/tools/tool_0000:tool.c").stdout.decode().strip()
    man = run(*g, "rev-parse", "refs/tools/tool_0000:tool.json").stdout.decode().strip()
    link = subprocess.run(g + ["hash-object", "-w", "--stdin"], input=b"/etc/passwd",
                          capture_output=True, check=True).stdout.decode().strip()
    tree = subprocess.run(g + ["mktree"], capture_output=True, check=True, input=(
        "120000 blob %s\tlink\n100644 blob %s\ttool.c\n100644 blob %s\ttool.json\n"
        % (link, src, man)).encode()).stdout.decode().strip()
    env = dict(os.environ, GIT_AUTHOR_NAME="x", GIT_AUTHOR_EMAIL="x@x",
               GIT_COMMITTER_NAME="x", GIT_COMMITTER_EMAIL="x@x")
    c = subprocess.run(g + ["commit-tree", tree], input=b"linky\n\nToolgate-Version: 1\n",
                       capture_output=True, check=True, env=env).stdout.decode().strip()
    same, refused = [], []
    for _ in range(ROUNDS * 10):
        run(*g, "update-ref", "-d", "refs/tools/linky")
        same.append(timed(TG, "--home", b, "pull"))
        run(*g, "update-ref", "refs/tools/linky", c)
        refused.append(timed(TG, "--home", b, "pull", ok=(1,)))
    show("toolgate pull (nothing new)", same)
    show("toolgate pull (one history, quarantined, refused)", refused)
    print("difference of medians: %.1f ms" % (1000 * (statistics.median(refused) - statistics.median(same))))


PARTS = os.environ.get("TG_BENCH_PARTS", "123")
try:
    if "1" in PARTS:
        part1()
    if "2" in PARTS:
        part2()
    if "3" in PARTS:
        part3()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
