"""Profiling overhead on PyTorch, one profiler per process (run by gpu_step.sh).

    python3 torch_overhead.py base|kineto|proton     (ktune: run `base` under `ktune profile`)

Workloads (as in ../shared/notes/anchors.md): 20 000 tiny x.add_(1) launches; 40 bf16 8192^3
matmuls; a CUDA graph of 1000 tiny nodes replayed 20 times. Each: one warm-up, then the median
of 3 timed runs (wall clock around the launches + a final synchronize). Prints one JSON line.
"""
import json
import statistics
import sys
import time

import torch

mode = sys.argv[1]
dev = "cuda"
x = torch.zeros(1024, device=dev)
a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
g_in = torch.zeros(1024, device=dev)
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        g_in.add_(1)
torch.cuda.current_stream().wait_stream(s)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    for _ in range(1000):
        g_in.add_(1)
torch.cuda.synchronize()


def tiny():
    for _ in range(20000):
        x.add_(1)


def gemm():
    for _ in range(40):
        torch.matmul(a, b)


def replay():
    for _ in range(20):
        graph.replay()


def timed(fn):
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def run():
    return {"tiny_ms": timed(tiny), "gemm_ms": timed(gemm), "graph_ms": timed(replay)}


t_start = time.perf_counter()
if mode == "kineto":
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t_started = time.perf_counter()
        r = run()
        t_stop0 = time.perf_counter()
    r["stop_s"] = time.perf_counter() - t_stop0
    r["start_s"] = t_started - t_start
elif mode == "proton":
    import triton.profiler as proton

    proton.start("/tmp/proton_bench", backend="cupti")
    r = run()
    t_stop0 = time.perf_counter()
    proton.finalize()
    r["stop_s"] = time.perf_counter() - t_stop0
else:
    r = run()
r["mode"] = mode if len(sys.argv) < 3 else sys.argv[2]
print(json.dumps(r), flush=True)
