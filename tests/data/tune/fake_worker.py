#!/usr/bin/env python3
"""A measurement worker without a GPU, for tests of the tuner's processes on the CPU.

Speaks the worker protocol (docs/formats.md#worker-protocol): one JSON request a line in, one
answer a line out, in order; `prepare` requests get no answer. A config's time is a fixed
function of its JSON text, so a tune over it has one known optimum. Environment:
FAKE_WORKER_LOG (append each answered config's JSON, one a line), FAKE_WORKER_DIE_AT and
FAKE_WORKER_DIE_ONCE (exit 3, as a worker whose CUDA context died, at the N-th request of this
process, and only while the file FAKE_WORKER_DIE_ONCE does not exist: it is created first).
"""
import hashlib
import json
import os
import sys


def time_ms(cfg_text):
    h = int(hashlib.sha256(cfg_text.encode()).hexdigest()[:8], 16)
    return 1.0 + (h % 1000) / 1000.0


def main():
    log = os.environ.get("FAKE_WORKER_LOG")
    die_at = int(os.environ.get("FAKE_WORKER_DIE_AT", "0"))
    once = os.environ.get("FAKE_WORKER_DIE_ONCE", "")
    answered = 0
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("prepare"):
            continue
        answered += 1
        cfg = json.dumps(req.get("config"), sort_keys=True)
        if log:
            with open(log, "a") as f:
                f.write(cfg + "\n")
        if die_at and answered == die_at and once and not os.path.exists(once):
            open(once, "w").close()
            sys.exit(3)
        t = time_ms(cfg)
        ans = {"status": "ok", "message": "", "samples_ms": [t] * 16, "median_ms": t,
               "ci_lo_ms": t, "ci_hi_ms": t, "max_error": 0.0, "bad_elements": 0,
               "registers": 32, "clocks_known": False, "sm_mhz": 0, "memory_mhz": 0,
               "throttle_reasons": 0, "temperature_c": 0, "power_mw": 0,
               "gpu_busy_ms": t * 16, "worker_ms": 1.0, "load_ms": 0.1, "check_ms": 0.1,
               "timing_ms": t * 16, "setup_ms": 0.0, "fatal": False}
        sys.stdout.write(json.dumps(ans) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
