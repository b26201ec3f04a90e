"""Reads and rewrites the .ktrace container (docs/formats.md#ktrace) to craft damaged traces.

A trace is a 16-byte prefix, then chunks of {u32 type, u32 count, u64 stored, u64 raw} and a
payload of `stored` bytes (zstd for strings and record blocks). Compression goes through the
`zstd` command-line tool, so no Python package is needed."""
import os
import struct
import subprocess
import tempfile

HEADER = struct.Struct("<IIQQ")
STRINGS, KERNELS, FOOTER = 2, 3, 9


def split(data):
    """(prefix, [[type, count, stored, raw, payload], ...], tail bytes that are no chunk)."""
    prefix, off, chunks = data[:16], 16, []
    while off + HEADER.size <= len(data):
        t, c, s, r = HEADER.unpack_from(data, off)
        payload = data[off + HEADER.size:off + HEADER.size + s]
        chunks.append([t, c, s, r, payload])
        off += HEADER.size + s
    return prefix, chunks, data[off:]


def join(prefix, chunks, tail=b""):
    out = bytearray(prefix)
    for t, c, s, r, payload in chunks:
        out += HEADER.pack(t, c, s & (2**64 - 1), r & (2**64 - 1)) + payload
    return bytes(out + tail)


def _zstd(args, data):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in")
        with open(src, "wb") as f:
            f.write(data)
        # A file argument (not stdin) makes zstd record the content size, as ktune's writer does.
        return subprocess.run(["zstd", "-q", "-c", *args, src], check=True,
                              capture_output=True).stdout


def compress(data):
    return _zstd(["-3"], data)


def decompress(data):
    return _zstd(["-d"], data)


def strings_of(raw):
    """[(id, mangled bytes, demangled bytes)] of a decompressed strings chunk."""
    out, p = [], 0
    while p + 4 <= len(raw):
        (i,) = struct.unpack_from("<I", raw, p)
        p += 4
        names = []
        for _ in range(2):
            (n,) = struct.unpack_from("<I", raw, p)
            names.append(raw[p + 4:p + 4 + n])
            p += 4 + n
        out.append((i, names[0], names[1]))
    return out


def pack_strings(strings):
    raw = b"".join(struct.pack("<I", i) + struct.pack("<I", len(m)) + m + struct.pack("<I", len(d)) + d
                   for i, m, d in strings)
    return raw


def with_strings(data, rename):
    """The trace with every name passed through rename(index, bytes) -> bytes."""
    prefix, chunks, tail = split(data)
    for ch in chunks:
        if ch[0] != STRINGS:
            continue
        names = [(i, rename(i, m), rename(i, d)) for i, m, d in strings_of(decompress(ch[4]))]
        raw = pack_strings(names)
        ch[4] = compress(raw)
        ch[2], ch[3] = len(ch[4]), len(raw)
    return join(prefix, chunks, tail)
