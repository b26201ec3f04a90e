"""A PyTorch transformer-layer forward in bf16, the workload of the bundled real traces.

    ktune profile -o transformer_layer.ktrace -- python3 transformer_layer.py
    ktune profile --metrics roofline --replay launches -- python3 transformer_layer.py 40

torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first),
batch 8 x 512 tokens, bf16, eval mode, 2 warm-up forwards, then:
- no argument: 3 forwards, each inside an NVTX range "forward N" (so `ktune top --by nvtx` has
  something to show);
- FORWARDS: that many forwards in a loop, no ranges, as an inference loop repeats its kernels
  (`--replay launches` collects one kernel per pass, one pass per launch, so 10 kernels of a
  3-pass set need about 30 forwards: docs/perf/metrics.md#replay-launches).
"""
import sys

import torch

forwards = int(sys.argv[1]) if len(sys.argv) > 1 else 0
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(
    d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True,
    device="cuda", dtype=torch.bfloat16).eval()
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    for _ in range(2):
        layer(x)
    torch.cuda.synchronize()
    if forwards:
        for _ in range(forwards):
            y = layer(x)
        torch.cuda.synchronize()
    else:
        for i in range(3):
            torch.cuda.nvtx.range_push(f"forward {i}")
            y = layer(x)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
print("output", tuple(y.shape), float(y.float().abs().mean()), *(["forwards", forwards] if forwards else []))
