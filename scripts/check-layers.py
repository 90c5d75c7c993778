#!/usr/bin/env python3
"""scripts/check-layers.py: the file-level call graph of a toolgate build,
checked against the project's layers.

From the object files of a build folder (nm on
BUILD/<module>/**/CMakeFiles/**/*.o for each module below) it draws an edge
from file A to file B when A has an undefined symbol that B alone defines,
within a module and across modules. It then reports

  (a) every circle of files: a strongly connected component of more than
      one file, grouped by module (a component spanning modules is listed
      as cross-module);
  (b) every upward edge: a call from a lower module to a higher one in
      MODULE_LAYERS (modules of one layer must not call each other either),
      and within a module, a call from a lower sub-layer to a higher one in
      SUBLAYERS. ALLOWED_UPWARD lists the upward edges that are permitted
      (hooks), each with its reason.

Exit status: 0 when there is no circle and no upward edge outside the
allowlist, 1 otherwise (each one printed), 2 when the build folder holds no
objects or nm fails. --report prints the same and exits 0.

Usage: scripts/check-layers.py [--build DIR] [--report]
Only the Python standard library and binutils' nm are needed.
"""
import argparse
import fnmatch
import os
import subprocess
import sys
from collections import defaultdict

# ---- the layers (data) ------------------------------------------------------

# Lowest first. A file may call files of its own module and of the modules
# of lower layers; modules of one layer must not call each other.
MODULE_LAYERS = [
    ["common"],
    ["analyzer", "store", "sandbox"],
    ["registry"],
    ["mcp"],
    ["cli"],
]

# Sub-layers inside a module, lowest first: folders relative to the source
# root; "<module>/*.c" names the files at the top of the module. A file may
# call its own sub-layer and lower ones. A file in a folder not listed is
# unconstrained (neither checked nor checked against).
SUBLAYERS = {
    "registry": [
        "registry/schema",
        "registry/config",
        "registry/db",
        "registry/record",
        "registry/authz",
        "registry/exec",
        "registry/review",
        "registry/create",
        "registry/call",
        "registry/replica",
        "registry/*.c",
    ],
}

# Upward edges that are permitted (hooks): file patterns (fnmatch) of the
# caller and the callee, and why the call goes up.
ALLOWED_UPWARD = [
    # {"from": "sandbox/x.c", "to": "registry/y.c",
    #  "reason": "a hook the registry installs at open"},
    # None today: where a lower layer must reach a higher one it is handed a
    # function pointer, which the linker does not see as a call. They are:
    # registry/db/txn.c -> the transaction hooks (reg_txn_hooks) that
    #   registry/registry.c registers at open (review notes, audit anchor,
    #   activation undo);
    # registry/exec/bridge.c -> the handle's call_tool (reg_call_ex, call/);
    # registry/exec/* -> the MCP session's tg_call_hooks (attempt, ask,
    #   journaled) and registry/authz -> its principal.
]

# Definitions that are not the project's API: (file, symbol) pairs whose
# definition is ignored. The sandbox waiter and the gVisor bridge shim are
# built without libc and carry their own memset (the waiter memcpy too);
# every other file's memset and memcpy are libc's.
IGNORED_DEFINITIONS = [
    ("sandbox/waiter/waiter.c", "memset"),
    ("sandbox/waiter/waiter.c", "memcpy"),
    ("sandbox/shim/shim.c", "memset"),
]

# nm types of a global definition (lower-case ones are local to the file).
DEFINED_TYPES = set("ABCDGRSTVWi")
UNDEFINED_TYPES = set("Uvw")

# ---- reading the objects ----------------------------------------------------


def modules():
    return [m for layer in MODULE_LAYERS for m in layer]


def source_name(module, build_module_dir, obj):
    """build/sandbox/waiter/CMakeFiles/t.dir/waiter.c.o -> sandbox/waiter/waiter.c"""
    rel = os.path.relpath(obj, build_module_dir)
    parts = rel.split(os.sep)
    i = parts.index("CMakeFiles")
    # the folder below the module (sandbox/waiter), then the path under t.dir
    below = parts[:i] + parts[i + 2:]
    name = "/".join([module] + below)
    return name[:-2] if name.endswith(".o") else name


def find_objects(build):
    """{source file: object path} for every module present in build."""
    objs = {}
    for m in modules():
        top = os.path.join(build, m)
        if not os.path.isdir(top):
            continue
        for root, dirs, files in os.walk(top):
            dirs.sort()
            if "CMakeFiles" not in root.split(os.sep):
                continue
            for f in sorted(files):
                if f.endswith(".o"):
                    p = os.path.join(root, f)
                    objs[source_name(m, top, p)] = p
    return objs


def read_symbols(objs):
    """({file: set of defined}, {file: set of undefined}) via nm -P -A."""
    defined, undefined = defaultdict(set), defaultdict(set)
    by_path = {p: f for f, p in objs.items()}
    paths = sorted(by_path)
    for i in range(0, len(paths), 200):
        chunk = paths[i:i + 200]
        out = subprocess.run(["nm", "-P", "-A", *chunk], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("nm failed: " + out.stderr.strip())
        for line in out.stdout.splitlines():
            head, sep, rest = line.partition(": ")
            if not sep or head not in by_path:
                continue
            fields = rest.split()
            if len(fields) < 2:
                continue
            name, typ = fields[0], fields[1]
            f = by_path[head]
            if typ in UNDEFINED_TYPES:
                undefined[f].add(name)
            elif typ in DEFINED_TYPES:
                defined[f].add(name)
    for f, sym in IGNORED_DEFINITIONS:
        defined.get(f, set()).discard(sym)
    return defined, undefined


def call_graph(files, defined, undefined):
    """{A: {B: [symbols]}} for A calling B; a symbol defined in several
    objects names no single callee and is left out."""
    owners = defaultdict(list)
    for f in files:
        for s in defined.get(f, ()):
            owners[s].append(f)
    graph = {f: defaultdict(list) for f in files}
    for a in files:
        for s in sorted(undefined.get(a, ())):
            o = owners.get(s)
            if o and len(o) == 1 and o[0] != a:
                graph[a][o[0]].append(s)
    return graph


# ---- circles and layers -----------------------------------------------------


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the components, each a sorted list."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def module_of(f):
    return f.split("/", 1)[0]


def module_rank(m):
    for i, layer in enumerate(MODULE_LAYERS):
        if m in layer:
            return i
    return None


def sublayer_rank(f):
    """Index of f's sub-layer in its module's SUBLAYERS, or None."""
    layers = SUBLAYERS.get(module_of(f))
    if not layers:
        return None
    folder = f.rsplit("/", 1)[0]
    for i, entry in enumerate(layers):
        if entry.endswith("/*.c"):
            if folder == entry[:-4] and f.endswith(".c"):
                return i
        elif folder == entry or folder.startswith(entry + "/"):
            return i
    return None


def upward(a, b):
    """Why the edge a -> b goes against the layers, or None."""
    ma, mb = module_of(a), module_of(b)
    if ma != mb:
        ra, rb = module_rank(ma), module_rank(mb)
        if ra is None or rb is None:
            return None
        if rb > ra:
            return "module %s calls the higher module %s" % (ma, mb)
        if rb == ra:
            return "modules %s and %s are of one layer" % (ma, mb)
        return None
    sa, sb = sublayer_rank(a), sublayer_rank(b)
    if sa is not None and sb is not None and sb > sa:
        layers = SUBLAYERS[ma]
        return "%s calls the higher layer %s" % (layers[sa], layers[sb])
    return None


def allowed(a, b):
    for e in ALLOWED_UPWARD:
        if fnmatch.fnmatchcase(a, e["from"]) and fnmatch.fnmatchcase(b, e["to"]):
            return e
    return None


# ---- the report -------------------------------------------------------------


def symbols_text(syms, limit=4):
    shown = ", ".join(syms[:limit])
    return shown + (", ... (%d)" % len(syms) if len(syms) > limit else "")


def print_circles(graph, circles):
    by_module = defaultdict(list)
    for c in circles:
        ms = sorted({module_of(f) for f in c})
        by_module[ms[0] if len(ms) == 1 else "cross-module (" + ", ".join(ms) + ")"].append(c)
    for m in sorted(by_module):
        print("circles in %s: %d" % (m, len(by_module[m])))
        for c in by_module[m]:
            members = set(c)
            print("  circle of %d files: %s" % (len(c), " ".join(c)))
            for a in c:
                for b in sorted(graph[a]):
                    if b in members:
                        print("    %s -> %s (%s)" % (a, b, symbols_text(graph[a][b])))


def check(build, report):
    objs = find_objects(build)
    if not objs:
        print("check-layers: no object files under %s/<module>/ (build first)" % build,
              file=sys.stderr)
        return 2
    try:
        defined, undefined = read_symbols(objs)
    except (OSError, RuntimeError) as e:
        print("check-layers: %s" % e, file=sys.stderr)
        return 2
    files = sorted(objs)
    graph = call_graph(files, defined, undefined)
    circles = [c for c in strongly_connected(graph) if len(c) > 1]
    bad, hooks = [], []
    for a in files:
        for b in sorted(graph[a]):
            why = upward(a, b)
            if not why:
                continue
            e = allowed(a, b)
            (hooks if e else bad).append((a, b, why, e))
    counts = defaultdict(int)
    for f in files:
        counts[module_of(f)] += 1
    print("check-layers: %d files (%s), %d calls between files" % (
        len(files), ", ".join("%s %d" % (m, counts[m]) for m in modules() if counts[m]),
        sum(len(v) for v in graph.values())))
    print_circles(graph, circles)
    if not circles:
        print("circles: none")
    for a, b, why, _ in bad:
        print("upward call: %s -> %s (%s): %s" % (a, b, symbols_text(graph[a][b]), why))
    if not bad:
        print("upward calls: none outside the allowlist")
    for a, b, why, e in hooks:
        print("allowed upward call: %s -> %s: %s (%s)" % (a, b, why, e["reason"]))
    failed = bool(circles or bad)
    print("check-layers: %s" % ("FAIL: %d circles, %d upward calls" % (len(circles), len(bad))
                                if failed else "ok"))
    return 1 if failed and not report else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=None,
                    help="the CMake build folder (default: build/ beside scripts/)")
    ap.add_argument("--report", action="store_true",
                    help="print the circles and upward calls, exit 0")
    args = ap.parse_args()
    build = args.build or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build")
    return check(build, args.report)


if __name__ == "__main__":
    sys.exit(main())
