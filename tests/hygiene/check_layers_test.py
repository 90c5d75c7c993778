#!/usr/bin/env python3
"""tests/hygiene/check_layers_test.py: scripts/check-layers.py on small
builds made here. Tiny C files are compiled into objects laid out as CMake
lays out a module (DIR/<module>/CMakeFiles/<target>.dir/<file>.c.o):

  - two files of common/ calling each other: exit 1, the circle named;
  - the same calls one way, and cli/ calling common/: exit 0;
  - common/ calling cli/ (a lower module calling a higher one): exit 1;
  - registry/db/ calling a file at the top of registry/ (a lower sub-layer
    calling a higher one): exit 1;
  - the waiter's own memset and a symbol defined twice make no edge;
  - --report on the failing layout: exit 0; an empty folder: exit 2.

Usage: check_layers_test.py SCRIPT [CC]
"""
import os
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
CC = sys.argv[2] if len(sys.argv) > 2 else "cc"
TARGETS = {"cli": "toolgate"}
failures = []


def build(root, files):
    """files: {"common/a.c": source}. Compiles each into its object."""
    for name, src in files.items():
        module, rel = name.split("/", 1)
        target = TARGETS.get(module, module)
        obj = os.path.join(root, module, "CMakeFiles", target + ".dir", rel + ".o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        c = os.path.join(root, "src", name)
        os.makedirs(os.path.dirname(c), exist_ok=True)
        with open(c, "w") as f:
            f.write(src)
        subprocess.run([CC, "-c", "-o", obj, c], check=True)


def run(root, *extra):
    r = subprocess.run([sys.executable, SCRIPT, "--build", root, *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect(what, cond, out):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)
        print(out)


def case(name, files, want_rc, want_text, *extra):
    with tempfile.TemporaryDirectory(prefix="tg_layers.") as root:
        build(root, files)
        rc, out = run(root, *extra)
        expect("%s: exit %d" % (name, want_rc), rc == want_rc, out)
        for t in want_text:
            expect("%s: says %r" % (name, t), t in out, out)


A_CALLS_B = "int b(int);\nint a(int x) { return x ? b(x - 1) : 0; }\n"
B_CALLS_A = "int a(int);\nint b(int x) { return x ? a(x - 1) : 1; }\n"
B_ALONE = "int b(int x) { return x + 1; }\n"
MAIN = "int a(int);\nint main(void) { return a(3); }\n"
HIGH = "int high(void) { return 7; }\n"
CALLS_HIGH = "int high(void);\nint low(void) { return high(); }\n"

CIRCLE = {"common/a.c": A_CALLS_B, "common/b.c": B_CALLS_A}
case("circle", CIRCLE, 1,
     ["circles in common: 1", "circle of 2 files: common/a.c common/b.c",
      "common/a.c -> common/b.c (b)", "common/b.c -> common/a.c (a)"])
case("acyclic", {"common/a.c": A_CALLS_B, "common/b.c": B_ALONE, "cli/main.c": MAIN}, 0,
     ["circles: none", "upward calls: none", "check-layers: ok"])
case("upward module", {"common/low.c": CALLS_HIGH, "cli/high.c": HIGH}, 1,
     ["upward call: common/low.c -> cli/high.c (high)"])
case("same layer", {"store/low.c": CALLS_HIGH, "sandbox/high.c": HIGH}, 1,
     ["upward call: store/low.c -> sandbox/high.c (high): modules store and sandbox"])
case("upward sub-layer", {"registry/db/low.c": CALLS_HIGH, "registry/high.c": HIGH}, 1,
     ["upward call: registry/db/low.c -> registry/high.c (high): registry/db calls the "
      "higher layer registry/*.c"])
case("downward sub-layer", {"registry/db/high.c": HIGH, "registry/low.c": CALLS_HIGH}, 0,
     ["check-layers: ok"])
# the waiter's own memset and memcpy, and a symbol defined twice, make no edge
case("ignored definitions",
     {"sandbox/waiter/waiter.c": "void *memset(void *d, int c, unsigned long n)\n"
      "{ char *p = d; while (n--) *p++ = (char)c; return d; }\n",
      "common/zero.c": "void *memset(void *, int, unsigned long);\n"
      "void zero(char *p) { memset(p, 0, 4); }\n",
      "mcp/twice.c": "int twice(void) { return 2; }\n",
      "cli/twice.c": "int twice(void) { return 2; }\n",
      "common/use.c": "int twice(void);\nint use(void) { return twice(); }\n"}, 0,
     ["0 calls between files", "check-layers: ok"])
case("report", CIRCLE, 0, ["circle of 2 files: common/a.c common/b.c"], "--report")

with tempfile.TemporaryDirectory(prefix="tg_layers.") as root:
    rc, out = run(root)
    expect("empty build: exit 2", rc == 2, out)

if failures:
    print("%d failed" % len(failures))
    sys.exit(1)
print("all passed")
