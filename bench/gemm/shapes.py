#!/usr/bin/env python3
"""Writes ktune tune gemm plans (ktune.tune_plan files, op "gemm") in chunks.

  shapes.py llm  OUTDIR   # M in {1,16,128,2048,8192} x Llama-7B/70B projections, bf16 + fp8
  shapes.py extra OUTDIR  # M in {8,32,64,256,512} x the same (N, K), bf16: the >= 100 shape set
Shapes are (M tokens, N output features, K input features), layout tn (nn.Linear's x @ W^T).
fp8 needs M % 16 == 0 on cuBLASLt (and torch._scaled_mm): its decode row here uses M = 16 (M = 1
padded); ktune's Hopper template alone runs fp8 at M = 1 (docs/perf/gemm.md#fp8-small-m)."""
import json, os, sys

# (N, K): Llama-7B q/k/v/o, fused qkv, gate/up, down; Llama-70B q/o, fused qkv (GQA), gate/up, down.
NK = [(4096, 4096), (12288, 4096), (11008, 4096), (4096, 11008),
      (8192, 8192), (10240, 8192), (28672, 8192), (8192, 28672)]

def tunes(kind):
    if kind == "llm":
        for dt in ("bf16", "fp8"):
            for m in (1, 16, 128, 2048, 8192):
                if dt == "fp8" and m == 1:
                    continue
                for n, k in NK:
                    yield {"op": "gemm", "shape": f"{m}x{n}x{k}", "dtype": dt}
    else:
        for m in (8, 32, 64, 256, 512):
            for n, k in NK:
                yield {"op": "gemm", "shape": f"{m}x{n}x{k}", "dtype": "bf16"}

kind, out = sys.argv[1], sys.argv[2]
chunk = int(sys.argv[3]) if len(sys.argv) > 3 else 8
os.makedirs(out, exist_ok=True)
ts = list(tunes(kind))
for i in range(0, len(ts), chunk):
    with open(os.path.join(out, f"{kind}_{i // chunk:02d}.json"), "w") as f:
        json.dump({"tunes": ts[i:i + chunk]}, f)
print(len(ts))
