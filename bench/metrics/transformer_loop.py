"""A PyTorch transformer-layer forward loop for `--replay launches`: the layer of
bench/profile/transformer_layer.py (d_model 1024, 16 heads, FFN 4096, batch 8 x 512, bf16,
eval), 2 warm-up forwards and FORWARDS (argv[1], default 40) timed ones, as an inference or
training loop repeats its kernels. `--replay launches` collects one kernel at a time, one pass per
launch, so 10 kernels of a 3-pass set need about 30 forwards.
"""
import sys

import torch

forwards = int(sys.argv[1]) if len(sys.argv) > 1 else 40
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(
    d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True,
    device="cuda", dtype=torch.bfloat16).eval()
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    for _ in range(2):
        layer(x)
    torch.cuda.synchronize()
    for _ in range(forwards):
        y = layer(x)
    torch.cuda.synchronize()
print("output", tuple(y.shape), float(y.float().abs().mean()), "forwards", forwards)
