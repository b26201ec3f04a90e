#!/usr/bin/env python3
"""Writes the damaged traces of the CLI tests (tests/data/trace_damage/) from the bundled trace.
Run from the repository root: python3 tests/adversarial/make_damaged_traces.py"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktrace  # noqa: E402

SOURCE = "examples/data/transformer_layer_h200.ktrace"
OUT = "tests/data/trace_damage"


def first(chunks, kind):
    return next(ch for ch in chunks if ch[0] == kind)


def main():
    data = open(SOURCE, "rb").read()
    os.makedirs(OUT, exist_ok=True)
    out = {}
    out["truncated.ktrace"] = data[: len(data) * 3 // 4]
    prefix, chunks, tail = ktrace.split(data)
    # A stored size of -24 points back at the chunk's own header: a walk that trusts it loops.
    c = [list(ch) for ch in chunks]
    first(c, ktrace.KERNELS)[2] = -24
    out["negative_size.ktrace"] = ktrace.join(prefix, c, tail)
    # One 4-byte count changed: 2^31 kernel records claimed for a 622-byte block.
    c = [list(ch) for ch in chunks]
    first(c, ktrace.KERNELS)[1] = 0x7FFFFFFF
    out["huge_count.ktrace"] = ktrace.join(prefix, c, tail)
    # A raw size of 4 GiB for the same block.
    c = [list(ch) for ch in chunks]
    first(c, ktrace.KERNELS)[3] = 1 << 32
    out["huge_raw.ktrace"] = ktrace.join(prefix, c, tail)
    # The kernel block's type changed to one no ktune writes yet (skipped by length): the
    # footer still counts 62 kernels.
    c = [list(ch) for ch in chunks]
    first(c, ktrace.KERNELS)[0] = 11
    out["unknown_type.ktrace"] = ktrace.join(prefix, c, tail)
    # Names that are not UTF-8: a lone 0xff, a cut 3-byte sequence, an overlong NUL.
    bad = [b"\xff", b"\xe2\x82", b"\xc0\x80"]
    out["bad_utf8.ktrace"] = ktrace.with_strings(
        data, lambda i, s: s + bad[i % 3] + b"_tail" if s else s)
    for name, blob in out.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(blob)
    print(f"{len(out)} traces in {OUT}")


if __name__ == "__main__":
    main()
