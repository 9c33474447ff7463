#!/usr/bin/env python3
"""Time `raterlab analyze` on graded single responses against pandas + scipy + scikit-learn
(#83): 2,000,000 rows, a human's grade and a judge's (1-5), Spearman, Kendall's τ-b, Pearson,
κ quadratic and MAE.

raterlab's time is a fresh process reading the CSV and computing every figure of the scale
(`--bootstrap 0`: no intervals on either side) and every agreement figure; the reference's is
pandas' `read_csv` and the five calls, in this process. They take turns, run by run; each
one's median wall time is printed with the ratio, and the figures are checked to agree to
1e-9. (raterlab's peak memory: `farm-bench -- raterlab analyze ...`; a child's maxrss seen
from Python counts the forked interpreter.)

    cargo build --release
    python3 benches/compare_scale.py [--rows 2000000] [--runs 3]

The binary is $RATERLAB_BIN, else $CARGO_TARGET_DIR/release/raterlab, else target/release/raterlab.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd
from scipy.stats import kendalltau, pearsonr, spearmanr
from sklearn.metrics import cohen_kappa_score, mean_absolute_error

HERE = os.path.dirname(os.path.abspath(__file__))


def binary():
    if os.environ.get("RATERLAB_BIN"):
        return os.environ["RATERLAB_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    return os.path.join(target, "release", "raterlab")


def reference(path):
    df = pd.read_csv(path)
    h, j = df["human"].to_numpy(), df["judge"].to_numpy()
    return {
        "spearman": spearmanr(j, h).statistic,
        "kendall_tau_b": kendalltau(j, h).statistic,
        "pearson": pearsonr(j, h).statistic,
        "kappa_quadratic": cohen_kappa_score(h, j, weights="quadratic"),
        "mae": mean_absolute_error(h, j),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(83)
    truth = rng.integers(1, 6, args.rows)
    human = np.clip(truth + rng.integers(-1, 2, args.rows), 1, 5)
    judge = np.clip(truth + rng.integers(-1, 2, args.rows), 1, 5)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graded.csv")
        pd.DataFrame({"id": np.arange(args.rows), "human": human, "judge": judge}).to_csv(path, index=False)
        command = [binary(), "analyze", "--input", path, "--gold-col", "human", "--rating-col",
                   "judge", "--scale", "1-5", "--bootstrap", "0", "--json"]
        theirs, ours = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            want = reference(path)
            theirs.append(time.perf_counter() - start)
            start = time.perf_counter()
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            ours.append(time.perf_counter() - start)
        got = json.loads(out)["configs"][0]["scale"]["figures"]
        for name, value in want.items():
            assert abs(got[name]["value"] - value) < 1e-9, (name, got[name], value)
    t, o = statistics.median(theirs), statistics.median(ours)
    print(f"graded single responses: {args.rows} rows ({args.runs} runs, medians; figures equal)")
    print(f"  pandas + scipy + sklearn, in process: {t:.3f} s")
    print(f"  raterlab analyze, whole process:      {o:.3f} s")
    print(f"  ratio: raterlab is {t / o:.1f}x faster")


if __name__ == "__main__":
    main()
