#!/usr/bin/env bash
# Start-up cost of the commands that do little work (docs/perf/startup.md): wall time, CPU time
# (user + sys) and peak RSS of `ktune --version`, `ktune top` on a small bundled trace and
# `ktune cache get` (cache get*: the key's environment from this machine), each run RUNS times
# (default 20) after one warm-up; prints median (min..max). Needs no GPU.
#
#   bench/startup/run.sh [KTUNE]          # default: build/tools/ktune-cli/ktune
#   RUNS=50 bench/startup/run.sh /usr/local/bin/ktune
#   bench/startup/run.sh libs              # what each library costs a process that maps it
#
# Each run is one process under GNU time (peak RSS, %M); wait4() gives wall and CPU time. On a
# loaded machine wall time follows the load; CPU time and RSS do not.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = libs ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cc -O1 -o "$tmp/dlopen_cost" bench/startup/dlopen_cost.c -ldl
    for lib in "" libcudart.so.13 libcupti.so.13 libxgboost.so.0 libnvrtc.so.13 \
        libnvperf_host.so libcublasLt.so.13; do
        for ((i = 0; i < ${RUNS:-5}; i++)); do
            /usr/bin/time -f '%e %M' -o "$tmp/t" "$tmp/dlopen_cost" $lib && tail -1 "$tmp/t"
        done | sort -n | awk -v l="${lib:-(none)}" '{ t[NR] = $1; m[NR] = $2 }
            END { h = int((NR + 1) / 2); printf "%-20s wall %.2f s (%.2f..%.2f)  peak RSS %.1f MiB\n",
                  l, t[h], t[1], t[NR], m[h] / 1024 }'
    done
    exit 0
fi
ktune=${1:-${BUILD_DIR:-build}/tools/ktune-cli/ktune}
[ -x "$ktune" ] || { echo "no ktune at $ktune: build it (TARGET=ktune_cli scripts/build.sh)" >&2; exit 2; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ktune: $ktune ($("$ktune" --version)), ${RUNS:-20} runs each, median (min..max)"
exec python3 - "$ktune" "${RUNS:-20}" <<'PY'
import os, statistics, sys, tempfile, time

ktune, runs = sys.argv[1], int(sys.argv[2])
commands = [
    ("--version", ["--version"]),
    ("top", ["top", "examples/data/transformer_layer_h200.ktrace"]),
    ("cache get", ["cache", "get", "gemm", "--shape", "1024x1024", "--dtype", "fp16",
                   "--op-version", "v3", "--arch", "sm_90", "--toolkit", "13.0", "--driver",
                   "580", "-f", "tests/data/cache/small.json"]),
    ("cache get*", ["cache", "get", "softmax", "--shape", "8192x8192", "--dtype", "bf16",
                    "-f", "tests/data/cache/small.json"]),
]
devnull = os.open(os.devnull, os.O_WRONLY)

rss_file = tempfile.NamedTemporaryFile(prefix="ktune-startup-", delete=False).name

def run_once(argv):
    # Through GNU time: a child spawned by this Python would count Python's pages in its peak
    # RSS; time's %M is ktune's own. wait4() on time gives wall and CPU time of time + ktune
    # (time's own share is well under a millisecond).
    timed = ["/usr/bin/time", "-f", "%M %x", "-o", rss_file] + argv
    t0 = time.perf_counter()
    pid = os.posix_spawn(timed[0], timed, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    lines = open(rss_file).read().splitlines()
    rss_kib, code = (int(v) for v in lines[-1].split())
    if lines[0].startswith("Command terminated by signal"):  # GNU time's %x is 0 then
        code = -int(lines[0].split()[-1])
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3, rss_kib / 1024, code

def fmt(values, unit):
    return f"{statistics.median(values):.1f} {unit} ({min(values):.1f}..{max(values):.1f})"

for name, args in commands:
    argv = [ktune] + args
    run_once(argv)  # warm-up: page cache, dynamic linker cache
    rows = [run_once(argv) for _ in range(runs)]
    codes = sorted({r[3] for r in rows})
    print(f"{name:<11} wall {fmt([r[0] for r in rows], 'ms'):<26} cpu {fmt([r[1] for r in rows], 'ms'):<24}"
          f" peak RSS {fmt([r[2] for r in rows], 'MiB')}  exit {','.join(map(str, codes))}")
os.unlink(rss_file)
PY
