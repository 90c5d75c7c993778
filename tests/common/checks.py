"""tests/common/checks.py: the check counter of the Python tests (imported
by tests/registry/audit_mirror.py, tests/mcp/metrics.py and
tests/registry/fleet_status.py): check() counts and reports one assertion,
finish() prints the tally and exits 1 when any failed."""
import sys

_state = {"fails": 0, "checks": 0}


def check(ok, what):
    _state["checks"] += 1
    if not ok:
        _state["fails"] += 1
        print("FAIL:", what)


def finish(name):
    if _state["fails"]:
        print("%s: %d of %d checks failed" % (name, _state["fails"], _state["checks"]))
        sys.exit(1)
    print("%s: ok (%d checks)" % (name, _state["checks"]))
