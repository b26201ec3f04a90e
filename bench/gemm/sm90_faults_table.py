#!/usr/bin/env python3
"""The correctness gate under planted bugs (docs/perf/gemm.md#hopper-faults): from `ktune tune
gemm --inject-faults RATE --json` reports, per report the template candidates measured, the
faults planted in them, how many the check rejected, how many passed it, and whether a
candidate with a planted fault won; then the totals.

    sm90_faults_table.py out/gemm_sm90_faults/f_*.json
"""
import json
import sys


def counts(doc):
    own = [c for c in doc["evaluated"] if c["algo"].get("provider") == "ktune_sm90"]
    planted = [c for c in own if c.get("injected_fault")]
    passed = [c for c in planted if c["status"] == "ok"]
    kinds = {}
    for c in planted:
        kinds[c["injected_fault"]] = kinds.get(c["injected_fault"], 0) + 1
    return {"template": len(own), "planted": len(planted), "passed": len(passed),
            "kinds": kinds, "wrong_winner": bool(doc["winner"].get("injected_fault"))}


def main(paths):
    print("| report | template candidates | planted (kinds) | rejected | passed | planted winner |")
    print("|---|---|---|---|---|---|")
    total = {"template": 0, "planted": 0, "passed": 0, "wrong": 0, "tunes": 0}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema") != "ktune.tune.gemm":
            continue
        c = counts(doc)
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(c["kinds"].items()))
        print(f'| {path.rsplit("/", 1)[-1]} | {c["template"]} | {c["planted"]} ({kinds}) | '
              f'{c["planted"] - c["passed"]} | {c["passed"]} | {"yes" if c["wrong_winner"] else "no"} |')
        total["template"] += c["template"]
        total["planted"] += c["planted"]
        total["passed"] += c["passed"]
        total["wrong"] += c["wrong_winner"]
        total["tunes"] += 1
    print(f'\n{total["tunes"]} tunes: {total["planted"]} faults planted in {total["template"]} '
          f'template candidates, {total["planted"] - total["passed"]} rejected, '
          f'{total["passed"]} passed the check, {total["wrong"]} wrong winners')


if __name__ == "__main__":
    main(sys.argv[1:])
