#!/usr/bin/env python3
# tests/remote/commit_tool.py: forge toolgate version commits with git
# plumbing, for the signed-verdict tests (tests/remote/cli_trust.sh).
#   craft GITDIR PARENT TOOL_C KEY|-   a version on top of PARENT (a commit
#       id): PARENT's tree with tool.c replaced by the file TOOL_C, the
#       next Toolgate-Version, Toolgate-Content-Hash recomputed the way
#       toolgate computes it (FORGE_CONTENT_HASH in the environment: claim
#       that hash instead), status/verdict claiming pass, signed like git
#       signs with SSH (ssh-keygen -Y sign -n git -f KEY over the commit
#       bytes, armored signature in the gpgsig header) unless KEY is "-".
#   swapsig GITDIR COMMIT DONOR        COMMIT with the gpgsig header of the
#       commit DONOR in place of its own (a signature copied from another
#       commit).
# Prints the new commit id (the object is written, no ref moved).
import hashlib
import os
import subprocess
import sys
import tempfile


def git(gitdir, *args, data=None):
    return subprocess.run(["git", "--git-dir=" + gitdir, *args], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def split(raw):
    """(header lines without gpgsig, gpgsig value lines, message)"""
    head, _, msg = raw.partition(b"\n\n")
    lines, sig, in_sig = [], [], False
    for line in head.split(b"\n"):
        if line.startswith(b"gpgsig "):
            in_sig = True
            sig.append(line[len(b"gpgsig "):])
        elif in_sig and line.startswith(b" "):
            sig.append(line[1:])
        else:
            in_sig = False
            lines.append(line)
    return lines, sig, msg


def join(lines, sig, msg):
    out = list(lines)
    if sig:
        at = max(i for i, l in enumerate(out) if l.startswith(b"committer ")) + 1
        out[at:at] = [b"gpgsig " + sig[0]] + [b" " + s for s in sig[1:]]
    return b"\n".join(out) + b"\n\n" + msg


def sign(data, key):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "data")
        with open(p, "wb") as f:
            f.write(data)
        subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "git", "-f", key, p],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(p + ".sig", "rb") as f:
            return f.read().rstrip(b"\n").split(b"\n")


def craft(gitdir, parent, toolc, key):
    raw = git(gitdir, "cat-file", "commit", parent)
    lines, _, msg = split(raw)
    src = open(toolc, "rb").read()
    blob = git(gitdir, "hash-object", "-w", toolc).decode().strip()
    entries = []
    for e in git(gitdir, "ls-tree", parent).decode().splitlines():
        meta, name = e.split("\t", 1)
        if name == "tool.c":
            meta = "100644 blob " + blob
        entries.append(meta + "\t" + name)
    tree = git(gitdir, "mktree", data=("\n".join(entries) + "\n").encode()).decode().strip()
    h = os.environ.get("FORGE_CONTENT_HASH") or \
        hashlib.sha256(b"toolgate-build-v1\n" + src).hexdigest()
    subject = msg.split(b"\n", 1)[0]
    trailers = {}
    for l in msg.decode().splitlines()[1:]:
        if ": " in l:
            k, v = l.split(": ", 1)
            trailers[k] = v
    version = int(trailers["Toolgate-Version"]) + 1
    new_msg = subject + b"\n\n" + (
        "Toolgate-Version: %d\nToolgate-Status: active\nToolgate-Verdict: pass\n"
        "Toolgate-Content-Hash: %s\nToolgate-Submitter: cli\n" % (version, h)).encode()
    head = [b"tree " + tree.encode(), b"parent " + parent.encode()]
    head += [l for l in lines if l.startswith(b"author ") or l.startswith(b"committer ")]
    body = join(head, [], new_msg)
    if key != "-":
        body = join(head, sign(body, key), new_msg)
    return git(gitdir, "hash-object", "-t", "commit", "-w", "--stdin", data=body).decode().strip()


def swapsig(gitdir, commit, donor):
    lines, _, msg = split(git(gitdir, "cat-file", "commit", commit))
    _, sig, _ = split(git(gitdir, "cat-file", "commit", donor))
    assert sig, "the donor commit is not signed"
    body = join(lines, sig, msg)
    return git(gitdir, "hash-object", "-t", "commit", "-w", "--stdin", data=body).decode().strip()


if __name__ == "__main__":
    if sys.argv[1] == "craft":
        print(craft(*sys.argv[2:6]))
    elif sys.argv[1] == "swapsig":
        print(swapsig(*sys.argv[2:5]))
    else:
        sys.exit("usage: commit_tool.py craft|swapsig ...")
