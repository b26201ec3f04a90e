#!/usr/bin/env python3
"""Adversarial corpus: runs the built `ktune` on generated bad inputs and checks that it fails well.

    python3 tests/adversarial/run.py --ktune build/tools/ktune-cli/ktune           # full: >1,000 cases
    python3 tests/adversarial/run.py --ktune build/tools/ktune-cli/ktune --quick   # a few seconds

Inputs (deterministic for --seed): empty, truncated, random, byte-flipped and length-crafted
traces; invalid UTF-8 names; mutated results, caches, recorded spaces, suites and tune plans
(wrong schemas, bad numbers, duplicate keys, deep nesting); bad numeric options. Each case runs with
a wall-clock timeout and an address-space cap (ulimit -v). A case fails when ktune
  - dies of a signal or prints "internal error"        (crash)
  - runs past the timeout                              (hang)
  - exits with a code ktune does not document          (0/1/2; 3 for diff: inconclusive)
  - changes a file it was not told to write             (inputs are hashed before and after)
Exit status: 0 when no case failed, 1 otherwise; failing inputs are kept under --out."""
import argparse
import collections
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktrace  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TRACES = ["examples/data/transformer_layer_h200.ktrace",
          "examples/data/transformer_layer_nvtx_h200.ktrace",
          "tests/data/metrics/h200_suite_levels.metrics.ktrace"]
RESULTS = "tests/data/guard/base.json"
CACHE = "tests/data/cache/small.json"
SPACES = ["tests/data/tune/kt_small.json", "tests/data/tune/t4_small.json"]
SUITES = ["tests/data/guard/suite_commands.json", "tests/data/guard/suite_ops.json"]
BAD_UTF8 = [b"\xff", b"\xe2\x82", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
DOCUMENTED = {"diff": {0, 1, 2, 3}}  # every other command: 0, 1, 2


class Corpus:
    """Writes generated inputs into a folder and remembers them as (kind, path)."""

    def __init__(self, folder, rng):
        self.folder, self.rng, self.items = folder, rng, []

    def add(self, kind, name, data):
        safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)[:80]
        ext = ".ktrace" if kind == "trace" else ".json"  # diff picks its reader by extension
        path = os.path.join(self.folder, f"{len(self.items):05d}_{safe}{ext}")
        with open(path, "wb") as f:
            f.write(data)
        self.items.append((kind, path))

    # Generic damage of any bytes.
    def damage(self, kind, name, data, n):
        r = self.rng
        self.add(kind, f"{name}.empty", b"")
        for i in range(n):
            cut = r.randrange(0, max(1, len(data)))
            self.add(kind, f"{name}.cut{i}", data[:cut])
            flipped = bytearray(data)
            for _ in range(r.choice([1, 2, 8, 64])):
                if flipped:
                    flipped[r.randrange(len(flipped))] ^= 1 << r.randrange(8)
            self.add(kind, f"{name}.flip{i}", bytes(flipped))
            self.add(kind, f"{name}.random{i}", bytes(r.randrange(256) for _ in range(r.choice([1, 16, 300, 5000]))))
            splice = bytearray(data)
            a = r.randrange(max(1, len(data)))
            splice[a:a + 16] = bytes(r.randrange(256) for _ in range(16))
            self.add(kind, f"{name}.splice{i}", bytes(splice))


def trace_cases(c, n, sources):
    for src in sources:
        data = open(os.path.join(ROOT, src), "rb").read()
        base = os.path.basename(src).split(".")[0]
        c.damage("trace", base, data, n)
        prefix, chunks, tail = ktrace.split(data)
        # Crafted length fields and types, one chunk at a time.
        crafted = {1: [0, 0x7FFFFFFF, 0xFFFFFFFF], 2: [-24, -1, 0, 1 << 40, 1], 3: [0, 1 << 32, -1, 1]}
        types = [0, 1, 11, 74, 75, 200, 0xFFFFFFFF]
        for k, ch in enumerate(chunks):
            for field, values in crafted.items():
                for v in values:
                    cc = [list(x) for x in chunks]
                    cc[k][field] = v
                    c.add("trace", f"{base}.chunk{k}.f{field}.{v & 0xFFFFFFFFFFFFFFFF:x}", ktrace.join(prefix, cc, tail))
            if k % 2 == 0:
                for t in types:
                    cc = [list(x) for x in chunks]
                    cc[k][0] = t
                    c.add("trace", f"{base}.chunk{k}.type{t:x}", ktrace.join(prefix, cc, tail))
        # Prefix versions and magic.
        for major, minor in [(0, 0), (1, 99), (2, 0), (0xFFFF, 0xFFFF)]:
            c.add("trace", f"{base}.version{major}.{minor}",
                  data[:8] + major.to_bytes(2, "little") + minor.to_bytes(2, "little") + data[12:])
        # Names that are not UTF-8 (every name of the trace broken one way or another).
        for j, bad in enumerate(BAD_UTF8[:3]):
            c.add("trace", f"{base}.utf8_{j}", ktrace.with_strings(data, lambda i, s, b=bad: s[:5] + b + s[5:] if s else s))


def mutate_json(rng, doc):
    """Structural mutations of a JSON document: list of (name, bytes)."""
    out = []
    text = json.dumps(doc).encode()
    out.append(("schema", json.dumps(dict(doc, schema="ktune.other")).encode()))
    out.append(("major", json.dumps(dict(doc, version="9.0.0")).encode()))
    out.append(("array", json.dumps([doc]).encode()))
    out.append(("null", b"null"))
    out.append(("deep", b"[" * 100000 + b"]" * 100000))
    out.append(("deep_obj", b'{"a":' * 50000 + b"1" + b"}" * 50000))
    out.append(("bom", b"\xef\xbb\xbf" + text))
    out.append(("nul", text[:20] + b"\x00" + text[20:]))
    out.append(("utf8", text.replace(b'"', b'"\xff', 3)))
    for num in [b"1e999", b"-1e999", b"NaN", b"-0", b"1e-999", b"18446744073709551616", b"-1"]:
        # Replace every number in turn with a bad one (first few occurrences).
        s = text.decode()
        idx = [i for i, ch in enumerate(s) if ch.isdigit() and (i == 0 or not (s[i - 1].isdigit() or s[i - 1] in ".e-"))]
        for i in rng.sample(idx, min(3, len(idx))):
            j = i
            while j < len(s) and (s[j].isdigit() or s[j] in ".eE+-"):
                j += 1
            out.append((f"num{num.decode()}_{i}", (s[:i] + num.decode() + s[j:]).encode()))
    return out


def json_cases(c, kind, src, n, extra=()):
    data = open(os.path.join(ROOT, src), "rb").read()
    base = os.path.basename(src).split(".")[0]
    c.damage(kind, base, data, n)
    for name, blob in mutate_json(c.rng, json.loads(data)):
        c.add(kind, f"{base}.{name}", blob)
    for name, blob in extra:
        c.add(kind, f"{base}.{name}", blob)


def results_extra():
    doc = json.load(open(os.path.join(ROOT, RESULTS)))
    out = []
    e = doc["entries"]
    for name, entries in [
        ("dup", e + [e[0]]),
        ("failed", [dict(e[0], status="failed", samples=[])] + e[1:]),
        ("status_x", [dict(e[0], status="crashed")] + e[1:]),
        ("zeros", [dict(e[0], samples=[0.0] * 30)] + e[1:]),
        ("negative", [dict(e[0], samples=[-x for x in e[0]["samples"]])] + e[1:]),
        ("one_zero_baseline", [dict(e[0], samples=[0.0] * 20 + [1.0] * 10)] + e[1:]),
        ("few", [dict(x, samples=x["samples"][:2]) for x in e]),
        ("missing", e[:2]),
        ("empty_samples", [dict(e[0], samples=[])] + e[1:]),
        ("string_samples", [dict(e[0], samples="fast")] + e[1:]),
        ("no_entries", []),
        ("huge_samples", [dict(e[0], samples=[1.0 + i % 7 for i in range(200000)])]),
    ]:
        out.append((name, json.dumps(dict(doc, entries=entries)).encode()))
    return out


def space_extra():
    doc = json.load(open(os.path.join(ROOT, SPACES[0])))
    out = [("params_many", json.dumps(dict(doc, tune_params={f"p{i}": list(range(50)) for i in range(12)})).encode()),
           ("no_cache", json.dumps(dict(doc, cache={})).encode()),
           ("time_strings", json.dumps(dict(doc, cache={k: dict(v, time="x") for k, v in doc["cache"].items()})).encode())]
    # A gzip bomb: 200 MB of spaces in a small file.
    with tempfile.NamedTemporaryFile(delete=False) as t:
        t.write(b" " * (200 << 20))
    bomb = subprocess.run(["gzip", "-9", "-c", t.name], capture_output=True, check=True).stdout
    os.unlink(t.name)
    out.append(("bomb.gz", bomb))
    return out


def plan_cases(c, n):
    plans = [{"schema": "ktune.tune_plan", "version": "1.0.0", "tunes": [{"op": "softmax", "shape": "64x64"}]},
             [{"op": "softmax", "shape": "8x8", "budget": -1}], [{"op": "nope", "shape": "0x0"}],
             [{"op": "softmax", "shape": "99999999999x99999999999", "dtype": "q7"}], {"tunes": []}, {"tunes": {}}]
    for i, p in enumerate(plans):
        c.add("plan", f"plan{i}", json.dumps(p).encode())
    data = json.dumps(plans[0]).encode()
    c.damage("plan", "plan", data, n)
    for name, blob in mutate_json(c.rng, plans[0]):
        c.add("plan", f"plan.{name}", blob)


def suite_cases(c, n):
    for src in SUITES:
        doc = json.load(open(os.path.join(ROOT, src)))
        # The commands a suite runs are the user's: mutating "sleep 0.005" into "sleep 1e999"
        # tests sleep, not ktune. Every command runs `true`.
        for cmd in doc.get("commands", []):
            cmd["run"] = ["true"]
        base = os.path.basename(src).split(".")[0]
        # Byte flips of a suite could turn "sleep 0.005" into a long sleep, which is what the
        # user asked for: suites get structural mutations and cuts only.
        data = json.dumps(doc).encode()
        for i in range(n):
            c.add("suite", f"{base}.cut{i}", data[:c.rng.randrange(len(data))])
        for name, blob in mutate_json(c.rng, doc):
            if name.startswith("num") and "1e-999" in name:
                continue  # a 0 s sleep repeated: fine, but not a hostile input
            c.add("suite", f"{base}.{name}", blob)
        for k, v in [("repeat", -1), ("repeat", "x"), ("repeat", 1e999), ("warmup", -5), ("run", []),
                     ("run", "true"), ("name", ""), ("run", ["/nonexistent/binary"])]:
            d = json.loads(json.dumps(doc))
            d["commands"][0][k] = v
            c.add("suite", f"{base}.{k}_{v}", json.dumps(d, allow_nan=True).encode())


def commands(kind, path, out):
    """Command lines (after the ktune binary) to run on one input; each names its outputs."""
    good_trace = os.path.join(ROOT, TRACES[0])
    if kind == "trace":
        return [["top", path], ["top", path, "--json", "--by", "nvtx"], ["roofline", path, "--json"],
                ["export", path, "--format", "chrome", "-o", out + ".chrome.json"],
                ["export", path, "--format", "csv", "-o", out + ".csv"],
                ["diff", good_trace, path, "-f", "json"], ["top", path, "--allow-incomplete", "--json"]]
    if kind == "results":
        base = os.path.join(ROOT, RESULTS)
        return [["diff", base, path], ["diff", path, base, "-f", "json"], ["diff", base, path, "-f", "junit"]]
    if kind == "cache":
        return [["cache", "ls", path], ["cache", "verify", path],
                ["cache", "get", "softmax", "--shape", "8192x8192", "--dtype", "bf16", "--arch", "sm_90",
                 "--toolkit", "13.0", "--driver", "580", "-f", path]]
    if kind == "space":
        return [["tune", "--space", path, "--repeat", "2", "--budget", "20", "--json"]]
    if kind == "suite":
        return [["bench", path, "-o", out + ".json"]]
    if kind == "plan":
        return [["tune", "--plan", path]]
    raise ValueError(kind)


def option_cases():
    """Bad numeric options: (name, argv) on good inputs."""
    space = os.path.join(ROOT, SPACES[0])
    base = os.path.join(ROOT, RESULTS)
    trace = os.path.join(ROOT, TRACES[0])
    bad = ["-1", "nan", "inf", "-inf", "1e999", "", "x", "0x10", "1.5", "99999999999999999999999", "-0"]
    out = []
    for v in bad:
        for opt in ["--repeat", "--target", "--budget", "--seed", "--jobs"]:
            out.append((f"tune{opt}={v}", ["tune", "--space", space, opt, v, "--repeat", "1"] if opt != "--repeat"
                        else ["tune", "--space", space, opt, v]))
        for opt in ["--threshold", "--alpha", "--min-samples", "--resamples", "--seed"]:
            out.append((f"diff{opt}={v}", ["diff", base, base, opt, v]))
        out.append((f"top--limit={v}", ["top", trace, "--limit", v]))
        out.append((f"roofline--latency-pct={v}", ["roofline", trace, "--latency-pct", v]))
    return out


def digest(folder):
    h = {}
    for dirpath, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                h[p] = hashlib.sha256(fh.read()).hexdigest()
    return h


def run_case(ktune, argv, cwd, timeout, mem_mb):
    def limits():
        if mem_mb:
            resource.setrlimit(resource.RLIMIT_AS, (mem_mb << 20, mem_mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # no GPU path, the same on every machine
    start = time.monotonic()
    # A session of its own: on a timeout the whole group goes, children that hold the pipes too.
    p = subprocess.Popen([ktune] + argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limits, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, err = p.communicate()
        hung = True
    return p.returncode, hung, time.monotonic() - start, out, err


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ktune", default=os.path.join(ROOT, "build/tools/ktune-cli/ktune"))
    ap.add_argument("--quick", action="store_true", help="a small subset (seconds), for CTest")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variants", type=int, default=12, help="random damages per source file")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--mem-mb", type=int, default=4096, help="address-space cap per run (ulimit -v)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="keep inputs and failures here (default: a temporary folder)")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--count", action="store_true", help="only count the cases")
    ap.add_argument("--all-commands", action="store_true", help="every command on every input")
    a = ap.parse_args()
    ktune = os.path.abspath(a.ktune)
    work = a.out or tempfile.mkdtemp(prefix="ktune_adversarial_")
    inputs, outputs = os.path.join(work, "inputs"), os.path.join(work, "outputs")
    shutil.rmtree(inputs, ignore_errors=True)
    shutil.rmtree(outputs, ignore_errors=True)
    os.makedirs(inputs)
    os.makedirs(outputs)
    rng = random.Random(a.seed)
    c = Corpus(inputs, rng)
    n = 1 if a.quick else a.variants
    trace_cases(c, n, TRACES[:1] if a.quick else TRACES)
    json_cases(c, "results", RESULTS, n, results_extra())
    json_cases(c, "cache", CACHE, n)
    for s in SPACES:
        json_cases(c, "space", s, n, space_extra() if s == SPACES[0] and not a.quick else ())
    suite_cases(c, n)
    plan_cases(c, n)
    cases = []
    for i, (kind, path) in enumerate(c.items):
        # One command a input, the kind's commands in turn (--all-commands: every one).
        every = commands(kind, path, os.path.join(outputs, f"{i}"))
        cases += [(kind, argv) for argv in every] if a.all_commands else [(kind, every[i % len(every)])]
    if not a.quick:
        cases += [("option", argv) for _, argv in option_cases()]
    if a.quick:  # every command form once, a spread of inputs: about 60 runs
        forms, first = set(), []
        for k, argv in cases:
            form = (k, argv[0], tuple(x for x in argv[2:] if x.startswith("-")))
            if form not in forms:
                forms.add(form)
                first.append((k, argv))
        step = max(1, len(cases) // 40)
        cases = first + cases[::step] + [("option", argv) for _, argv in option_cases()[::20]]

    if a.count:
        print(f"{len(cases)} runs on {len(c.items)} inputs")
        return 0
    # Everything ktune may read: the generated inputs and the repository's fixtures.
    watched = [inputs, os.path.join(ROOT, "tests/data"), os.path.join(ROOT, "examples/data")]
    before = {}
    for w in watched:
        before.update(digest(w))

    failures, codes, slowest, t0 = [], collections.Counter(), (0, None), time.monotonic()
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [(kind, argv, pool.submit(run_case, ktune, argv, outputs, a.timeout, a.mem_mb)) for kind, argv in cases]
        for kind, argv, f in futures:
            rc, hung, secs, out, err = f.result()
            cmd = argv[0]
            codes[(cmd, rc)] += 1
            slowest = max(slowest, (secs, argv))
            text = (out + err).decode("utf-8", "replace")
            why = None
            if hung:
                why = f"hang (> {a.timeout:g} s)"
            elif rc < 0:
                why = f"crash (signal {-rc})"
            elif "internal error" in text:
                why = "internal error"
            elif rc not in DOCUMENTED.get(cmd, {0, 1, 2}):
                why = f"undocumented exit code {rc}"
            if why:
                failures.append({"why": why, "argv": argv, "kind": kind, "output": text[-600:]})
    after = {}
    for w in watched:
        after.update(digest(w))
    for p, h in before.items():
        if after.get(p) != h:
            failures.append({"why": "an input was modified" if p in after else "an input was deleted", "argv": [p]})
    for p in after:
        if p not in before:
            failures.append({"why": "a file appeared beside the inputs", "argv": [p]})

    summary = {"cases": len(cases), "inputs": len(c.items), "seconds": round(time.monotonic() - t0, 1),
               "failures": len(failures), "slowest_s": round(slowest[0], 2), "slowest": slowest[1],
               # ru_maxrss of waited-for children: the largest peak RSS of any one run.
               "max_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
               "exit_codes": {f"{k[0]} {k[1]}": v for k, v in sorted(codes.items(), key=str)},
               "timeout_s": a.timeout, "mem_mb": a.mem_mb, "seed": a.seed, "quick": a.quick}
    print(f"ktune adversarial corpus: {summary['cases']} runs on {summary['inputs']} generated inputs "
          f"in {summary['seconds']} s; {len(failures)} failures; slowest run {summary['slowest_s']} s; "
          f"largest peak RSS {summary['max_rss_mb']} MB")
    for k, v in summary["exit_codes"].items():
        print(f"  {k}: {v}")
    for f in failures[:30]:
        print(f"FAIL {f['why']}: {' '.join(f['argv'])}\n    {f.get('output', '')[-300:]!r}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dict(summary, failure_list=failures), fh, indent=1)
    if not a.out:
        if failures:
            print(f"inputs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
