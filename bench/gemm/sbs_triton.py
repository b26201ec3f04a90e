"""An autotuned Triton GEMM for bench/gemm/side_by_side.py: Y (R x C) = X (R x K) @ W (C x K)^T,
bf16 in, fp32 accumulate, bf16 out, X, W and Y row-major with K (and C for Y) contiguous:
nn.Linear's layout. side_by_side.py maps ktune's tn problem MxNxK onto it with R = N, C = M,
X = B, W = A, so the kernel reads and writes the memory ktune's cuBLASLt call does
(docs/perf/gemm.md#side-by-side-tunableop-and-triton).

side_by_side.py imports this file under a new module name per shape: each import is a fresh
JITFunction and a fresh autotuner (no compiled kernel and no tuning result carried over), so
each shape's tune time includes its compiles.

The configs come in three sets, one per width of W (C = ktune's M): skinny (decode, C <= 32),
mid (C <= 256) and large; the autotuner's early prune keeps the set of the problem, so a shape
compiles and times 8 configs. No split-K: the kernel is the textbook tiled GEMM with grouped tile
order, as Triton users write it."""
import triton
import triton.language as tl


def _cfg(r, c, k, group, warps, stages):
    return triton.Config({"BLOCK_R": r, "BLOCK_C": c, "BLOCK_K": k, "GROUP_R": group},
                         num_warps=warps, num_stages=stages)


# (BLOCK_R, BLOCK_C, BLOCK_K, GROUP_R, warps, stages). Skinny: one column of tiles, so many
# row tiles and long K steps keep enough bytes in flight for a memory-bound GEMV-like shape.
SKINNY = [_cfg(16, 16, 128, 1, 4, 4), _cfg(16, 16, 256, 1, 4, 3), _cfg(32, 16, 128, 1, 4, 4),
          _cfg(32, 16, 256, 1, 4, 3), _cfg(64, 16, 128, 1, 4, 4), _cfg(64, 16, 256, 1, 4, 3),
          _cfg(32, 32, 128, 1, 4, 4), _cfg(16, 16, 512, 1, 4, 2)]
MID = [_cfg(128, 64, 64, 8, 4, 4), _cfg(64, 64, 128, 8, 4, 4), _cfg(128, 128, 64, 8, 4, 4),
       _cfg(64, 128, 64, 8, 4, 4), _cfg(128, 32, 128, 8, 4, 4), _cfg(64, 32, 128, 8, 4, 4),
       _cfg(256, 64, 64, 8, 8, 3), _cfg(128, 128, 64, 8, 8, 3)]
LARGE = [_cfg(128, 256, 64, 8, 8, 3), _cfg(256, 128, 64, 8, 8, 3), _cfg(128, 128, 64, 8, 8, 4),
         _cfg(128, 128, 64, 8, 4, 4), _cfg(128, 256, 32, 8, 8, 4), _cfg(256, 64, 64, 8, 4, 4),
         _cfg(128, 64, 64, 8, 4, 4), _cfg(128, 128, 32, 8, 4, 5)]


def config_set(c):
    """The config set for a W of c rows (ktune's M)."""
    return SKINNY if c <= 32 else MID if c <= 256 else LARGE


def _prune(configs, named_args, **_):
    return config_set(int(named_args["C"]))


@triton.autotune(configs=SKINNY + MID + LARGE, key=["R", "C", "K"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.heuristics({"EVEN_K": lambda a: a["K"] % a["BLOCK_K"] == 0})
@triton.jit
def linear_kernel(x_ptr, w_ptr, y_ptr, R, C, K, stride_x, stride_w, stride_y,
                  BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_R: tl.constexpr, EVEN_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_r = tl.cdiv(R, BLOCK_R)
    tiles_c = tl.cdiv(C, BLOCK_C)
    # Grouped order: GROUP_R consecutive row tiles walk the column tiles together, so the W
    # tiles they share are read from L2 rather than DRAM.
    per_group = GROUP_R * tiles_c
    first_r = (pid // per_group) * GROUP_R
    group_rows = tl.minimum(tiles_r - first_r, GROUP_R)
    tile_r = first_r + (pid % per_group) % group_rows
    tile_c = (pid % per_group) // group_rows

    rows = tile_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tile_c * BLOCK_C + tl.arange(0, BLOCK_C)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < R
    col_ok = cols < C
    xp = x_ptr + rows[:, None] * stride_x + ks[None, :]
    wp = w_ptr + cols[None, :] * stride_w + ks[:, None]  # a (BLOCK_K, BLOCK_C) view of W^T
    acc = tl.zeros((BLOCK_R, BLOCK_C), dtype=tl.float32)
    for step in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            xs = tl.load(xp, mask=row_ok[:, None], other=0.0)
            ws = tl.load(wp, mask=col_ok[None, :], other=0.0)
        else:
            left = K - step * BLOCK_K
            xs = tl.load(xp, mask=row_ok[:, None] & (ks[None, :] < left), other=0.0)
            ws = tl.load(wp, mask=col_ok[None, :] & (ks[:, None] < left), other=0.0)
        acc = tl.dot(xs, ws, acc=acc)
        xp += BLOCK_K
        wp += BLOCK_K
    yp = y_ptr + rows[:, None] * stride_y + cols[None, :]
    tl.store(yp, acc.to(tl.bfloat16), mask=row_ok[:, None] & col_ok[None, :])


def launch(x, w, y):
    """y[:] = x @ w.T for row-major bf16 tensors with a contiguous last dimension."""
    r, k = x.shape
    c = w.shape[0]
    grid = lambda meta: (triton.cdiv(r, meta["BLOCK_R"]) * triton.cdiv(c, meta["BLOCK_C"]),)
    linear_kernel[grid](x, w, y, r, c, k, x.stride(0), w.stride(0), y.stride(0))


def best_config():
    """The config the autotuner picked for the last problem, as a plain dict (or None)."""
    cfg = getattr(linear_kernel, "best_config", None)
    if cfg is None:
        return None
    out = dict(cfg.kwargs)
    out.update(num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    return out


def timed_configs():
    """How many configs the autotuner timed for the last problem (None if it does not say)."""
    t = getattr(linear_kernel, "configs_timings", None)
    return len(t) if t else None
