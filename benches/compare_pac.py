#!/usr/bin/env python3
"""PAC labelling's speed against the authors' own code (#66), whole processes side by side.

The same work for both: the real stance set (../shared/data/pac-labels/stance.csv) with the
jittered uncertainty and the first round of 500 rows that tests/fixtures/pac.json stores
(first round 0), zero-one loss, eps = alpha = 0.05, the betting bound (or --bound clt).

- A: `python3 THIS --their FILE`: the authors' `pac_utils.pac_labeling` (from a checkout given
  as --pac-source), its draws set to the file's gold rows, as one process.
- B: `raterlab analyze --input FILE ... --pac --json`, as one process.

The two run in turn (A B A B ...), --runs pairs after one warm-up each, and the script prints
each one's median wall time and the median of the pairs' ratios A/B. Both must send the same
rows to a human (checked on the warm-up).

    python3 benches/compare_pac.py --pac-source DIR [--raterlab target/release/raterlab] [--runs 5]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "..", "shared", "data", "pac-labels", "stance.csv")
MAP = "agrees=1,disagrees=-1,neutral=0"


def prepare(path):
    """The stance rows with gold on the first round only, and the fixture's uncertainty."""
    with open(os.path.join(ROOT, "tests", "fixtures", "pac.json"), encoding="utf-8") as f:
        ref = json.load(f)
    first = set(ref["runs"][0]["first_round"])
    with open(DATA, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "gold", "judge", "uncertainty"])
        for i, r in enumerate(rows):
            w.writerow([i, r["Y"] if i in first else "", r["Yhat (GPT4o)"], ref["uncertainty"][i]])


def their(path, source, bound):
    """One call of the authors' pac_labeling on the file; prints the rows it sends to a human."""
    sys.path.insert(0, os.path.abspath(source))
    import numpy as np
    import pac_utils

    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    judge = np.array([r["judge"] for r in rows])
    first = np.array([i for i, r in enumerate(rows) if r["gold"]])
    # The humans' labels exist only on the first round; elsewhere the judge's stand in (their
    # code reads Y only at the draws, and for its loss bound, 1 here as the judge errs).
    Y = np.array([r["gold"] or r["judge"] for r in rows])
    uncertainty = np.array([float(r["uncertainty"]) for r in rows])
    n = len(rows)
    pac_utils.np.random.choice = lambda *a, **k: first.copy()
    pac_utils.bernoulli.rvs = lambda p, *a, **k: np.ones(len(p), dtype=int)
    _, labeled, _ = pac_utils.pac_labeling(
        Y, judge, pac_utils.zero_one_loss, 0.05, 0.05, uncertainty, np.ones(n), len(first),
        asymptotic=(bound == "clt"),
    )
    in_first = np.zeros(n, dtype=bool)
    in_first[first] = True
    print(",".join(str(i) for i in np.where((labeled == 1) & ~in_first)[0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pac-source", required=True)
    parser.add_argument("--raterlab", default=os.path.join(ROOT, "target", "release", "raterlab"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bound", choices=["clt", "betting"], default="betting")
    parser.add_argument("--their", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.their:
        return their(args.their, args.pac_source, args.bound)
    path = os.path.join(tempfile.mkdtemp(), "stance-first-round.csv")
    prepare(path)
    a = [sys.executable, os.path.abspath(__file__), "--pac-source", args.pac_source,
         "--bound", args.bound, "--their", path]
    b = [args.raterlab, "analyze", "--input", path, "--gold-col", "gold", "--rating-col", "judge",
         "--gold-map", MAP, "--rating-map", MAP, "--uncertainty-col", "uncertainty", "--pac",
         "--pac-bound", args.bound, "--json", "--bootstrap", "0"]

    def timed(cmd):
        start = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return time.perf_counter() - start, out

    _, theirs = timed(a)
    _, ours = timed(b)
    ours = ",".join(json.loads(ours)["pac"]["to_label"])
    if theirs.strip() != ours:
        raise SystemExit("the two send different rows to a human")
    ta, tb = [], []
    for _ in range(args.runs):
        ta.append(timed(a)[0])
        tb.append(timed(b)[0])
    ratios = [x / y for x, y in zip(ta, tb)]
    print(f"PAC labelling, {args.bound} bound, stance set (2,299 rows, first round 500), {args.runs} paired runs")
    print(f"  authors' pac_labeling (python3, whole process): median {statistics.median(ta):.3f} s")
    print(f"  raterlab analyze --pac (whole process):         median {statistics.median(tb):.3f} s")
    print(f"  ratio (theirs / raterlab), median of pairs:      {statistics.median(ratios):.1f}x "
          f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)")


if __name__ == "__main__":
    main()
