"""NVTX ranges open on two threads at once (window mode falls back to launch callbacks):

    ktune profile --nvtx-link window -o t.ktrace -- python3 threads_nvtx.py
    ktune top t.ktrace --by nvtx-path

Expected kernels per range, whatever the mode: main 20 (add_ and sub_ on the main thread),
helper 10 (mul_ on the helper thread), no range 10 (div_ on the helper after its pop; plus the
fill before any range).
"""
import threading

import torch

x = torch.ones(1 << 16, device="cuda")
torch.cuda.synchronize()
rng = torch.cuda.nvtx.range
opened, done = threading.Event(), threading.Event()


def helper():
    with rng("helper"):
        opened.set()
        for _ in range(10):
            x.mul_(1.0001)
        done.wait()
    for _ in range(10):  # outside any range on this thread, while main's is open
        x.div_(1.0001)


with rng("main"):
    for _ in range(10):
        x.add_(2)
    t = threading.Thread(target=helper)
    t.start()
    opened.wait()
    for _ in range(10):
        x.sub_(1)
    done.set()
    t.join()
torch.cuda.synchronize()
print("ok", float(x[0]))
