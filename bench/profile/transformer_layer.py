"""The bundled real trace: a PyTorch transformer-layer forward in bf16, under `ktune profile`.

    ktune profile -o transformer_layer.ktrace -- python3 transformer_layer.py

torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first),
batch 8 x 512 tokens, bf16, eval mode: 2 warm-up forwards, then 3 forwards each inside an NVTX
range "forward N" (so `ktune top --by nvtx` has something to show).
"""
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(
    d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True,
    device="cuda", dtype=torch.bfloat16).eval()
x = torch.randn(8, 512, 1024, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    for _ in range(2):
        layer(x)
    torch.cuda.synchronize()
    for i in range(3):
        torch.cuda.nvtx.range_push(f"forward {i}")
        y = layer(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
print("output", tuple(y.shape), float(y.float().abs().mean()))
