"""A real trace with nested NVTX ranges: a PyTorch transformer-layer forward in bf16, its blocks
each inside an NVTX range, under `ktune profile` (the bundled examples/data trace of format 1.1).

    ktune profile -o t.ktrace -- python3 transformer_nvtx.py
    ktune top t.ktrace --by nvtx-path      # kernel time of forward/attention, forward/mlp, ...

torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first),
batch 8 x 512 tokens, bf16, eval: 2 warm-up forwards outside any range, then 3 forwards inside
"forward", each block in its own range (attention, norm, mlp).
"""
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(
    d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True,
    device="cuda", dtype=torch.bfloat16).eval()
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
rng = torch.cuda.nvtx.range


def forward(x):
    try:  # the layer's own blocks (post-norm), so each gets its range
        with rng("attention"):
            a = layer._sa_block(x, None, None)
        with rng("norm"):
            h = layer.norm1(x + a)
        with rng("mlp"):
            f = layer._ff_block(h)
        with rng("norm"):
            return layer.norm2(h + f)
    except (AttributeError, TypeError):  # a PyTorch without these private blocks
        with rng("layer"):
            return layer(x)


with torch.no_grad():
    for _ in range(2):
        forward(x)
    torch.cuda.synchronize()
    for i in range(3):
        with rng("forward"):
            y = forward(x)
        torch.cuda.synchronize()
print("output", tuple(y.shape), float(y.float().abs().mean()))
