#!/usr/bin/env python3
# tests/remote/big_pack.py GITDIR: write into the bare repository GITDIR one
# pack (and its .idx) holding a toolgate version of tool "big" whose tool.c
# is a blob of 1 GiB of zeros, stored whole (not as a delta) and deflated
# at level 9: the pack is about 1 MB. Nothing of 1 GiB is ever held in
# memory or written to disk: the blob's id and its deflated stream are
# computed from 1 MiB chunks. Prints the commit id (no ref moved).
# With --delta the blob is a REF_DELTA on a 64 KiB blob of zeros instead
# (a pack of a few KB that inflates to 1 GiB when its deltas are resolved).
# With --commit tool.c is small and the commit itself is 1 GiB: its
# message ends in 1 GiB of zeros (a pack of about 1 MB again).
import hashlib
import os
import struct
import sys
import zlib

SIZE = 1 << 30
CHUNK = b"\0" * (1 << 20)


def obj_header(kind, size):
    """A pack entry header: type (blob 3, tree 2, commit 1) and size."""
    b = (kind << 4) | (size & 15)
    size >>= 4
    out = bytearray()
    while size:
        out.append(b | 0x80)
        b = size & 0x7F
        size >>= 7
    out.append(b)
    return bytes(out)


def small(kind, data):
    name = {1: b"commit", 2: b"tree", 3: b"blob"}[kind]
    oid = hashlib.sha1(name + b" %d\0" % len(data) + data).digest()
    return oid, obj_header(kind, len(data)) + zlib.compress(data, 9)


def zeros(kind=3, prefix=b""):
    """An object of the kind (blob 3, commit 1): prefix, then 1 GiB of zeros."""
    name = {1: b"commit", 3: b"blob"}[kind]
    h = hashlib.sha1(name + b" %d\0" % (len(prefix) + SIZE) + prefix)
    z = zlib.compressobj(9)
    parts = [z.compress(prefix)]
    for _ in range(SIZE // len(CHUNK)):
        h.update(CHUNK)
        parts.append(z.compress(CHUNK))
    parts.append(z.flush())
    return h.digest(), obj_header(kind, len(prefix) + SIZE) + b"".join(parts)


def delta():
    """The same 1 GiB blob as a REF_DELTA on a 64 KiB blob of zeros: 16384
    copy instructions of 64 KiB each (the byte 0x80), a pack of a few KB."""
    base = b"\0" * 65536
    base_id, base_entry = small(3, base)

    def varint(n):
        out = bytearray()
        while True:
            b = n & 0x7F
            n >>= 7
            out.append(b | (0x80 if n else 0))
            if not n:
                return bytes(out)
    d = varint(len(base)) + varint(SIZE) + b"\x80" * (SIZE // 65536)
    h = hashlib.sha1(b"blob %d\0" % SIZE)
    for _ in range(SIZE // len(CHUNK)):
        h.update(CHUNK)
    entry = obj_header(7, len(d)) + base_id + zlib.compress(d, 9)
    return h.digest(), entry, [(base_id, base_entry)]


def main(gitdir, mode=""):
    extra = []
    if mode == "--delta":
        big_id, big, extra = delta()
    elif mode == "--commit":
        big_id, big = small(3, b"int main(void) { return 0; }\n")
    else:
        big_id, big = zeros()
    manifest = (b'{"name":"big","description":"a big one","input_schema":{"type":"object"},'
                b'"source":"tool.c","tests":[],"limits":{},"capabilities":[]}\n')
    json_id, json_entry = small(3, manifest)
    tree_data = (b"100644 tool.c\0" + big_id + b"100644 tool.json\0" + json_id)
    tree_id, tree_entry = small(2, tree_data)
    commit = (b"tree " + tree_id.hex().encode() + b"\n"
              b"author x <x@x> 1700000000 +0000\ncommitter x <x@x> 1700000000 +0000\n\n"
              b"big: active\n\nToolgate-Version: 1\nToolgate-Status: active\n"
              b"Toolgate-Verdict: pass\n")
    if mode == "--commit":
        commit_id, commit_entry = zeros(1, commit + b"\n")
    else:
        commit_id, commit_entry = small(1, commit)
    objs = extra + [(big_id, big), (json_id, json_entry), (tree_id, tree_entry),
                    (commit_id, commit_entry)]
    pack = bytearray(b"PACK" + struct.pack(">II", 2, len(objs)))
    index = []
    for oid, entry in objs:
        index.append((oid, zlib.crc32(entry) & 0xFFFFFFFF, len(pack)))
        pack += entry
    pack += hashlib.sha1(pack).digest()
    index.sort()
    idx = bytearray(b"\377tOc" + struct.pack(">I", 2))
    for i in range(256):
        idx += struct.pack(">I", sum(1 for oid, _, _ in index if oid[0] <= i))
    for oid, _, _ in index:
        idx += oid
    for _, crc, _ in index:
        idx += struct.pack(">I", crc)
    for _, _, off in index:
        idx += struct.pack(">I", off)
    idx += pack[-20:]
    idx += hashlib.sha1(idx).digest()
    base = os.path.join(gitdir, "objects", "pack", "pack-" + pack[-20:].hex())
    with open(base + ".pack", "wb") as f:
        f.write(pack)
    with open(base + ".idx", "wb") as f:
        f.write(idx)
    print(commit_id.hex())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
