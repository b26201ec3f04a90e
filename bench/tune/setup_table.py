#!/usr/bin/env python3
"""The set-up tables of the tuning runtime (docs/perf/tune.md#setup-split) from bench_tune
and `ktune tune --json` output.

  setup_table.py bench LOG.jsonl      one row per tune line (mode starting s4_, s5_ or session_) with
                                      the set-up split, then medians per before/after variant
  setup_table.py cli FILE.json...     `ktune tune --json` (one tune or ktune.tune_plan_result):
                                      per tune wall, busy, set-up; busy of the tunes after the first
"""
import json
import statistics
import sys

WORKER = ["spawn", "main", "cuinit", "context", "device_query", "flush_buffer", "helpers",
          "first_request", "prepared", "first_answer"]
TUNER = ["processes_started", "device_query", "device_record", "copy_gbs", "baseline_compiled", "baseline"]


def split(marks):
    w = " ".join("%s %.0f" % (k, marks["worker:" + k]) for k in WORKER if "worker:" + k in marks)
    t = " ".join("%s %.0f" % (k, marks[k]) for k in TUNER if k in marks)
    return "worker: %s | tuner: %s (ms since the tune began)" % (w or "-", t or "-")


def bench(path):
    rows = {}
    for line in open(path):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        mode = j.get("mode", "")
        if not mode.startswith(("s4_", "s5_", "session_")):
            continue
        s = j["summary"]
        print("%-28s wall %.3f s busy %5.1f %% (loop %5.1f %%) setup %.3f s (worker %.3f) "
              "confirm %.3f s servers %d hits %d/%d | %s" % (
                  mode, s["wall_s"], s["gpu_busy_pct"], s["loop_busy_pct"], s["setup_s"],
                  s["worker_setup_s"], s["confirm_s"], s["compile_servers"],
                  s["cubin_cache_hits"], s["candidates"], split(s.get("setup_ms", {}))))
        rows.setdefault(mode, []).append(s)
    print()
    print("%-28s %3s %22s %22s %22s" % ("variant (medians)", "n", "wall s [min, max]",
                                        "busy % [min, max]", "setup s [min, max]"))
    for mode, ss in rows.items():
        def col(key):
            v = [x[key] for x in ss]
            return "%.3f [%.3f, %.3f]" % (statistics.median(v), min(v), max(v))
        print("%-28s %3d %22s %22s %22s" % (mode, len(ss), col("wall_s"), col("gpu_busy_pct"),
                                            col("setup_s")))


def cli(paths):
    for p in paths:
        try:
            j = json.load(open(p))
        except (OSError, ValueError) as e:
            print(p, "unreadable:", e)
            continue
        tunes = j["tunes"] if j.get("schema") == "ktune.tune_plan_result" else [j]
        print("%s: %s, %d tune(s)%s" % (p, j.get("schema"), len(tunes),
                                        ", %.2f s in all" % j["wall_s"] if "wall_s" in j else ""))
        later_wall = later_busy = 0.0
        searched = 0
        for t in tunes:
            name = "%s %s %s" % (t.get("op"), t.get("shape"), t.get("dtype"))
            if "error" in t:
                print("  %-28s failed: %s" % (name, t["error"]))
                continue
            if t.get("cache_hit"):
                print("  %-28s cache hit %.4f ms" % (name, t["winner"]["median_us"] / 1000))
                continue
            w = t.get("winner", {})
            busy = 100 * t["gpu_busy_s"] / t["wall_s"]
            print("  %-28s %4d cands wall %.3f s busy %5.1f %% setup %.3f s (worker %.3f) "
                  "winner %.4f ms | %s" % (name, len(t["candidates"]), t["wall_s"], busy,
                                           t["setup_s"], t["worker_setup_s"],
                                           w.get("median_us", 0) / 1000,
                                           split(t.get("setup_ms", {}))))
            if searched:
                later_wall += t["wall_s"]
                later_busy += t["gpu_busy_s"]
            searched += 1
        if later_wall:
            print("  GPU busy over the searched tunes after the first: %.1f %%" %
                  (100 * later_busy / later_wall))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "bench":
        bench(sys.argv[2])
    elif len(sys.argv) > 2 and sys.argv[1] == "cli":
        cli(sys.argv[2:])
    else:
        sys.exit(__doc__)
