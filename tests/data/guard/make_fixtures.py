#!/usr/bin/env python3
"""Writes the ktune.results fixtures of the guard tests (deterministic: seeded).
Run from this folder: python3 make_fixtures.py"""
import json, random

ENV = {"host": "ci-runner", "gpu": "NVIDIA H200", "gpu_uuid": "GPU-0000", "arch": "sm_90",
       "driver": "580.159.04", "runtime": "13.0", "toolkit": "13.0", "sm_clock_mhz": 1980,
       "memory_clock_mhz": 3201, "throttle_reasons": 0}

def samples(rng, median, n=30, cv=0.01):
    # Skewed like GPU timings: a floor plus a lognormal tail.
    return [round(median * (0.995 + rng.lognormvariate(-5.3, 0.6) * 0.2 + rng.gauss(0, cv / 3)), 4)
            for _ in range(n)]

def write(name, entries, env=ENV):
    doc = {"schema": "ktune.results", "version": "1.0.0", "suite": "fixture",
           "created": "2026-11-21T05:00:00Z", "ktune_version": "0.1.0", "environment": env,
           "entries": entries}
    with open(name, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

def entry(name, s, shape="", launches=0):
    e = {"name": name, "shape": shape, "kind": "command", "status": "ok", "unit": "us", "runs": 1,
         "samples": s}
    if launches:
        e["launches_per_run"] = launches
    return e

def side(seed, scale):
    rng = random.Random(seed)
    return [entry("gemm_bf16", [x * scale.get("gemm", 1) for x in samples(rng, 180.0)], "4096x4096x4096"),
            entry("softmax_f32", samples(rng, 42.0), "8192x8192"),
            entry("layernorm_f32", samples(rng, 35.0), "8192x8192", 10),
            entry("copy_1GiB", samples(rng, 480.0))]

def removed_op():
    return entry("removed_op", samples(random.Random(9), 10.0))

# Bench keys are expected on both sides: every side but cand_slower (a finding anyway) has them.
write("base.json", side(1, {}) + [removed_op()])
write("base_run2.json", side(2, {}) + [removed_op()])
write("cand_same.json", side(3, {}) + [removed_op()])
slow = side(4, {"gemm": 1.08})
slow[2]["launches_per_run"] = 12  # layernorm launched 20 % more often
slow.append(entry("new_op", samples(random.Random(8), 12.0)))
write("cand_slower.json", slow)
write("cand_env.json", side(5, {"gemm": 1.08}) + [removed_op()],
      dict(ENV, driver="575.57.08", sm_clock_mhz=1590))
few = side(6, {}) + [removed_op()]
for e in few:
    e["samples"] = e["samples"][:3]
write("cand_few.json", few)
# Broken candidates: each must fail the gate (exit 1) or be an input error (exit 2).
failed = side(3, {}) + [removed_op()]
failed[1] = dict(failed[1], status="failed", detail="exit status 139", samples=[])
write("cand_failed.json", failed)
write("cand_missing.json", side(3, {}))
zero = side(3, {}) + [removed_op()]
zero[0]["samples"] = [0.0] * 30
write("cand_zero.json", zero)
negative = side(3, {}) + [removed_op()]
negative[2]["samples"][5] = -negative[2]["samples"][5]
write("cand_negative.json", negative)
dup = side(3, {}) + [removed_op()]
dup.append(dict(dup[1]))
write("cand_duplicate.json", dup)

bad = {"schema": "ktune.results", "version": "1.0.0", "entries": [entry("k", [1.0, "x"])]}
json.dump(bad, open("bad_sample.json", "w"))
json.dump(dict(bad, version="2.0.0"), open("bad_version.json", "w"))
json.dump(dict(bad, schema="ktune.cache"), open("bad_schema.json", "w"))
open("overflow.json", "w").write('{"schema": "ktune.results", "version": "1.0.0", "entries": '
                                 '[{"name": "k", "samples": [1.0, 1e999]}]}\n')
open("not_json.json", "w").write('{"schema": "ktune.results",\n "version": "1.0.0",\n "entries": [\n')
