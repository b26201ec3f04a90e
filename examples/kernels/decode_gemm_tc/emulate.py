"""A lane-by-lane emulation of decode_gemm_tc.cu on the CPU (no GPU; numpy).

The kernel's index logic transcribed: K chunks, each lane's W and X vectors dealt into
mma.m16n8k16 fragments with PTX's layouts, X read from global memory (XSTAGE 0) or from the
block's padded shared-memory stage (XSTAGE 1: the stage's fill, its zero padding, the lanes'
reads, and that the 8 lanes of each quarter warp hit distinct 16-byte bank groups), the KSPLIT
reduction through shared memory, the SPLITK atomics and ticket with blocks in random order,
against X W^T on integer inputs (exact);
then the e4m3 -> bf16x2 conversion against every code. `python3 emulate.py` prints one line per
case and exits 1 on a mismatch. A transcription: a change to the kernel's indexing must be made
here too (docs/perf/kernel.md#tensor-core-decode-gemm).
"""

import itertools
import random
import sys

import numpy as np


def cdiv(a, b):
    return -(-a // b)


def mma(acc, a, b):
    """acc[lane][4] += A B with a[lane] = 4 registers of 2 values, b[lane] = 2 registers."""
    A = np.zeros((16, 16))
    B = np.zeros((16, 8))
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for e in range(2):
            A[g][2 * t + e] = a[lane][0][e]
            A[g + 8][2 * t + e] = a[lane][1][e]
            A[g][2 * t + 8 + e] = a[lane][2][e]
            A[g + 8][2 * t + 8 + e] = a[lane][3][e]
            B[2 * t + e][g] = b[lane][0][e]
            B[2 * t + 8 + e][g] = b[lane][1][e]
    C = A @ B
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for e in range(2):
            acc[lane][e] += C[g][2 * t + e]
            acc[lane][2 + e] += C[g + 8][2 * t + e]


def run(X, W, M, N, K, KSPLIT, WARPS_N, ROWS, UNROLL, MTILE, SPLITK, EPV, XSTAGE=0):
    D = np.full((M, N), np.nan)
    WS = np.zeros(M * N)
    CNT = {}
    grid = (cdiv(M, MTILE), cdiv(N, WARPS_N * ROWS), SPLITK)
    kv_row = K // EPV
    chunks = cdiv(kv_row, 4)
    per_split = cdiv(chunks, SPLITK)
    order = list(itertools.product(*(range(n) for n in grid)))
    random.shuffle(order)
    for bx, by, bz in order:
        m0, n_block = bx * MTILE, by * WARPS_N * ROWS
        c_begin = bz * per_split
        c_end = min(chunks, c_begin + per_split)
        for wn in range(WARPS_N):
            block_warps(X, W, M, N, K, KSPLIT, ROWS, UNROLL, MTILE, SPLITK, EPV, m0,
                        n_block + wn * ROWS, c_begin, c_end, kv_row, D, WS, XSTAGE)
        if SPLITK > 1:
            tile = by * grid[0] + bx
            assert tile < cdiv(N, 16) * cdiv(M, 8), "CNT too small"
            CNT[tile] = CNT.get(tile, 0) + 1
            if CNT[tile] == SPLITK:
                width = WARPS_N * ROWS
                for e in range(width * MTILE):
                    m, n = m0 + e // width, n_block + e % width
                    if m < M and n < N:
                        assert np.isnan(D[m, n]), "written twice"
                        D[m, n] = WS[m * N + n]
                        WS[m * N + n] = 0
                CNT[tile] = 0
    assert not WS.any() and not any(CNT.values()), "workspace left dirty"
    return D


def stage_layout(KSPLIT, UNROLL, MTILE, XV):
    """The X stage's units per row and round (UR), row stride (RU) and units per buffer."""
    UR = KSPLIT * UNROLL * 4 * XV
    RU = UR + (4 if UR % 8 == 0 else 0) if XV == 1 else UR + 1
    return UR, RU, MTILE * RU


def stage_x(Xf, M, K, KSPLIT, UNROLL, MTILE, XV, m0, r0, c_end):
    """The block's stage of round r0: [unit][8 bf16]; padding never written (NaN)."""
    UR, RU, STAGE = stage_layout(KSPLIT, UNROLL, MTILE, XV)
    buf = np.full((STAGE, 8), np.nan)
    for e in range(MTILE * UR):  # any thread order: each unit written once
        mm, cu = e // UR, e % UR
        m, unit = m0 + mm, r0 * 4 * XV + cu
        ok = m < M and r0 + cu // (4 * XV) < c_end and unit < K // 8
        assert np.isnan(buf[mm * RU + cu]).all(), "staged twice"
        buf[mm * RU + cu] = Xf[m * K + unit * 8 : m * K + unit * 8 + 8] if ok else 0
    return buf


def check_banks(RU, NT, UNROLL, XV):
    """Each quarter warp's 16-byte reads (lanes 8q .. 8q + 7) hit 8 distinct bank groups."""
    for j, u, x, q in itertools.product(range(NT), range(UNROLL), range(XV), range(4)):
        groups = set()
        for lane in range(8 * q, 8 * q + 8):
            g, t = lane // 4, lane % 4
            groups.add(((j * 8 + g) * RU + u * 4 * XV + t * XV + x) % 8)
        assert len(groups) == 8, "bank conflict"


def block_warps(X, W, M, N, K, KSPLIT, ROWS, UNROLL, MTILE, SPLITK, EPV, m0, n0, c_begin, c_end,
                kv_row, D, WS, XSTAGE):
    """The KSPLIT warps of one warp column (wn) of a block: their rows n0.., reduced."""
    TILES, NT, MMAS, XV = ROWS // 16, MTILE // 8, EPV // 4, EPV // 8
    R = TILES * NT * 4
    Xf, Wf = X.reshape(-1), W.reshape(-1)
    KU = KSPLIT * UNROLL
    _, RU, _ = stage_layout(KSPLIT, UNROLL, MTILE, XV)
    if XSTAGE:
        check_banks(RU, NT, UNROLL, XV)
    accs = []
    for ks in range(KSPLIT):
        acc = np.zeros((TILES, NT, 32, 4))
        for r0 in range(c_begin, c_end, KU):  # the block's rounds; warp ks takes UNROLL chunks
            c0 = r0 + ks * UNROLL
            xs = stage_x(Xf, M, K, KSPLIT, UNROLL, MTILE, XV, m0, r0, c_end) if XSTAGE else None
            for c in range(c0, min(c0 + UNROLL, c_end)):
                a = np.zeros((TILES, 2, 32, EPV))  # the lane's vector of row g (h 0), g + 8
                b = np.zeros((NT, 32, EPV))  # the lane's vector of X row m
                for lane in range(32):
                    g, t = lane // 4, lane % 4
                    v = c * 4 + t
                    if v >= kv_row:
                        continue
                    for i, h in itertools.product(range(TILES), range(2)):
                        row = n0 + i * 16 + h * 8 + g
                        if row < N:
                            a[i, h, lane] = Wf[row * K + v * EPV : row * K + v * EPV + EPV]
                    for j in range(NT):
                        m = m0 + j * 8 + g
                        if XSTAGE:
                            base = (j * 8 + g) * RU + (c - r0) * 4 * XV + t * XV
                            b[j, lane] = xs[base : base + XV].reshape(-1)
                        elif m < M:
                            b[j, lane] = Xf[m * K + v * EPV : m * K + v * EPV + EPV]
                # Word w holds elements 2w, 2w + 1; mma s takes words 2s (k 2t) and 2s + 1.
                for i, j, s in itertools.product(range(TILES), range(NT), range(MMAS)):
                    lo, hi = slice(4 * s, 4 * s + 2), slice(4 * s + 2, 4 * s + 4)
                    fa = [[a[i, 0, l, lo], a[i, 1, l, lo], a[i, 0, l, hi], a[i, 1, l, hi]]
                          for l in range(32)]
                    fb = [[b[j, l, lo], b[j, l, hi]] for l in range(32)]
                    mma(acc[i, j], fa, fb)
        accs.append(acc)

    def emit(r, src_lane, value):
        q, j, i = r % 4, (r // 4) % NT, r // (4 * NT)
        gg, tt = src_lane // 4, src_lane % 4
        m, n = m0 + j * 8 + 2 * tt + q % 2, n0 + i * 16 + (q // 2) * 8 + gg
        if m >= M or n >= N:
            return
        if SPLITK == 1:
            assert np.isnan(D[m, n]), "written twice"
            D[m, n] = value
        else:
            WS[m * N + n] += value

    flat = [np.array([[accs[ks][i, j, lane, q] for lane in range(32)]
                      for i in range(TILES) for j in range(NT) for q in range(4)]).reshape(-1)
            for ks in range(KSPLIT)]  # [register][lane], as in shared memory
    for ks, lane in itertools.product(range(KSPLIT), range(32)):
        for e in range(ks * 32 + lane, R * 32, KSPLIT * 32):
            emit(e // 32, e % 32, sum(flat[s][e] for s in range(KSPLIT)))


def bf16_value(bits):
    s = -1.0 if bits & 0x8000 else 1.0
    e, m = (bits >> 7) & 0xFF, bits & 0x7F
    return s * (m * 2.0**-133 if e == 0 else (1 + m / 128) * 2.0 ** (e - 127))


def e4m3_value(c):
    e, m = (c >> 3) & 15, c & 7
    v = m * 2.0**-9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
    return -v if c & 0x80 else v


def byte_perm(x, sel):  # __byte_perm(x, 0, sel)
    b = [(x >> (8 * i)) & 0xFF for i in range(4)] + [0] * 4
    return sum(b[(sel >> (4 * i)) & 7] << (8 * i) for i in range(4))


def main():
    random.seed(1)
    rng = np.random.default_rng(1)
    bad = 0
    # M, N, K, KSPLIT, WARPS_N, ROWS, UNROLL, MTILE, SPLITK, EPV (8: bf16, 16: fp8 weights)[,
    # XSTAGE (default 0)]
    for case in [(1, 16, 32, 1, 1, 16, 1, 8, 1, 8), (3, 40, 72, 2, 1, 16, 2, 8, 2, 8),
                 (8, 33, 96, 4, 1, 32, 1, 8, 3, 8), (13, 48, 200, 2, 2, 32, 2, 16, 2, 8),
                 (20, 64, 64, 1, 1, 64, 1, 32, 1, 8), (9, 17, 48, 2, 1, 16, 1, 16, 2, 16),
                 (2, 50, 160, 4, 1, 16, 2, 8, 2, 16), (64, 32, 64, 2, 1, 16, 1, 64, 1, 8),
                 (5, 24, 144, 1, 1, 16, 4, 8, 3, 16), (7, 16, 64, 8, 1, 16, 1, 8, 1, 16),
                 (33, 72, 136, 2, 4, 16, 2, 32, 2, 8), (40, 100, 96, 1, 2, 32, 1, 64, 1, 8),
                 (17, 90, 160, 2, 2, 16, 1, 16, 3, 16), (64, 40, 64, 1, 4, 16, 1, 64, 2, 8),
                 # XSTAGE 1: odd M, N past the block's rows, K ending mid-chunk, rounds cut by
                 # the block's share, KSPLIT * UNROLL odd and even, fp8
                 (17, 150, 200, 2, 4, 16, 2, 32, 2, 8, 1), (33, 72, 136, 1, 8, 16, 1, 64, 3, 8, 1),
                 (64, 100, 160, 2, 2, 32, 1, 64, 1, 16, 1), (9, 90, 208, 4, 2, 16, 1, 16, 2, 16, 1),
                 (40, 130, 64, 2, 1, 64, 2, 32, 1, 8, 1), (64, 40, 1032, 1, 4, 16, 4, 64, 4, 8, 1),
                 (16, 70, 240, 1, 8, 16, 4, 16, 1, 16, 1), (25, 64, 96, 8, 1, 64, 1, 32, 2, 8, 1)]:
        M, N, K = case[:3]
        X = rng.integers(-4, 5, (M, K)).astype(float)
        W = rng.integers(-4, 5, (N, K)).astype(float)
        ok = np.array_equal(run(X, W, *case), X @ W.T)
        bad += not ok
        print(case, "ok" if ok else "WRONG")
    wrong = 0
    for c in range(256):
        if c & 0x7F == 0x7F:
            continue  # NaN
        w = c * 0x01010101
        for sel in (0x1404, 0x3424):  # words {b0, b1} and {b2, b3}
            spread = byte_perm(w, sel)
            bits = (spread & 0x80008000) | ((spread >> 4) & 0x07F007F0)
            for half in (bits & 0xFFFF, bits >> 16):
                wrong += bf16_value(half) * 2.0**120 != e4m3_value(c)
    print("e4m3 -> bf16:", "ok" if wrong == 0 else "%d WRONG" % wrong)
    sys.exit(1 if bad or wrong else 0)


if __name__ == "__main__":
    main()
