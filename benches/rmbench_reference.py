#!/usr/bin/env python3
"""RM-Bench's own scoring of a data file (a JSON array of RM-Bench rows) and a scores file,
timed.

    python3 benches/rmbench_reference.py DATA.json SCORES.jsonl RM_BENCH_CHECKOUT

As `scripts/run_rm.py` scores a reward model: each row's `score_chosen` and `score_rejected`
(the three styles), then `compute_accuracy` per domain (RM-Bench's function, run from the checkout named
third, `scripts/utils.py` read by name as tests/fixtures/source_loader.py reads it); the overall figures the mean over the domains present.
Prints one JSON line: the seconds spent scoring (after reading and importing), the seconds
including the reading, and every figure (for benches/rmbench.rs to compare).
"""
import json
import os
import sys
import time

start = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
from typing import Any, Dict, List  # noqa: E402

import numpy as np  # noqa: E402
import source_loader  # noqa: E402

compute_accuracy = source_loader.defined(
    source_loader.checkout(sys.argv[3], "scripts/utils.py"),
    "scripts/utils.py",
    ["split_dataset_by_domain", "compute_accuracy"],
    {"np": np, "Any": Any, "Dict": Dict, "List": List},
)["compute_accuracy"]

imported = time.perf_counter()
rows = json.load(open(sys.argv[1], encoding="utf-8"))
score_of = {}
for line in open(sys.argv[2], encoding="utf-8"):
    s = json.loads(line)
    score_of[(s["prompt"], s["response"])] = s["score"]
read = time.perf_counter()


def domain(subset):
    if subset.startswith("alpacaeval"):
        return "chat"
    if subset.startswith("math"):
        return "math"
    if subset.startswith("hep-") or subset.startswith("humanevalpack"):
        return "code"
    return "safety"


by_domain = {}
for row in rows:
    unit = dict(row)
    unit["score_chosen"] = [score_of[(row["prompt"], t)] for t in row["chosen"]]
    unit["score_rejected"] = [score_of[(row["prompt"], t)] for t in row["rejected"]]
    by_domain.setdefault(domain(row["subset"]), []).append(unit)
domains = {d: {k: float(v) for k, v in compute_accuracy(units).items()} for d, units in by_domain.items()}
overall = {k: float(np.mean([d[k] for d in domains.values()])) for k in ["hard_acc", "normal_acc", "easy_acc"]}
done = time.perf_counter()
print(json.dumps({
    "scoring_s": done - read,
    "with_reading_s": done - imported,
    "with_imports_s": done - start,
    "domains": domains,
    "overall": overall,
}))
