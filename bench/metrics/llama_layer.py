"""A Llama-style decoder layer for the roofline-without-replay check (docs/perf/metrics.md,
"Llama layer"): bf16, 2048 tokens (batch 1), hidden 4096, 32 heads of 128, FFN 11008 (SwiGLU),
causal SDPA, RMSNorm before attention and before the FFN, residual adds. Q/K/V, O, gate/up and
down are separate projections, so cuBLAS runs several problem sizes through its GEMM kernels.

usage: llama_layer.py [forward|train] [STEPS]
  forward  STEPS forwards under torch.no_grad (default 20), after 2 warm-up ones
  train    STEPS training steps (MSE loss, backward, AdamW foreach), after 2 warm-up ones
"""
import sys

import torch
import torch.nn.functional as F

mode = sys.argv[1] if len(sys.argv) > 1 else "forward"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
if mode not in ("forward", "train"):
    sys.exit(__doc__)
TOKENS, HIDDEN, HEADS, FFN = 2048, 4096, 32, 11008
dev, dt = "cuda", torch.bfloat16
torch.manual_seed(0)


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim, device=dev, dtype=dt))
        self.eps = eps

    def forward(self, x):
        # The way Llama's reference code writes it: fp32 mean of squares, rsqrt, scale.
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.to(x.dtype) * self.weight


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        lin = lambda i, o: torch.nn.Linear(i, o, bias=False, device=dev, dtype=dt)
        self.attn_norm, self.ffn_norm = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.q, self.k, self.v, self.o = (lin(HIDDEN, HIDDEN) for _ in range(4))
        self.gate, self.up, self.down = lin(HIDDEN, FFN), lin(HIDDEN, FFN), lin(FFN, HIDDEN)

    def forward(self, x):
        b, t, _ = x.shape
        h = self.attn_norm(x)
        heads = lambda y: y.view(b, t, HEADS, HIDDEN // HEADS).transpose(1, 2)
        a = F.scaled_dot_product_attention(heads(self.q(h)), heads(self.k(h)), heads(self.v(h)),
                                           is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, HIDDEN))
        h = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


layer = Layer()
x = torch.randn(1, TOKENS, HIDDEN, device=dev, dtype=dt)
if mode == "forward":
    with torch.no_grad():
        for _ in range(2 + steps):
            y = layer(x)
else:
    opt = torch.optim.AdamW(layer.parameters(), lr=1e-4, foreach=True)
    target = torch.randn_like(x)
    for _ in range(2 + steps):
        opt.zero_grad(set_to_none=True)
        y = layer(x)
        F.mse_loss(y, target).backward()
        opt.step()
torch.cuda.synchronize()
print(mode, "steps", steps, "out", float(y.float().abs().mean()))
