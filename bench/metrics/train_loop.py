"""A PyTorch training loop for the metrics wall-time comparison ("the 10 hottest kernels of a
PyTorch workload", docs/perf/metrics.md#training-loop): two transformer encoder layers (d_model
1024, 16 heads, FFN 4096, batch 8 x 512, bf16, dropout off), MSE loss, backward, AdamW (foreach),
2 warm-up steps and STEPS (argv[1], default 30) more. Unlike the inference loop
(bench/profile/transformer_layer.py 40), whose fused fast path launches only a handful of
distinct kernels per forward, a training step launches dozens, so its
10 hottest kernels are all kernels of the step, repeated every step, not one-off initialisation.
"""
import sys

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(
    d_model=1024, nhead=16, dim_feedforward=4096, dropout=0.0, batch_first=True,
    device="cuda", dtype=torch.bfloat16)
model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
target = torch.randn_like(x)
for step in range(2 + steps):
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print("loss", float(loss.detach()), "steps", steps)
