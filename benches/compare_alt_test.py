#!/usr/bin/env python3
"""Time the whole `raterlab analyze --alt-test` process against the authors' `alt_test` call
alone (#84): 6,400 items, 3 annotators, pairwise verdicts (-1, 0, 1), accuracy scoring.

The authors' function is read from a checkout of nitaytech/AltTest (`--source DIR`, their
notebook's cell, run unchanged as tests/fixtures/generate_alt_test_fixtures.py runs it) and
timed in this process on dictionaries already built, so its time is the call alone; raterlab's
is a fresh process reading the CSV file, computing every agreement figure, the annotator
panel and the alt-test (`--bootstrap 0`: no resampling on either side). The two take turns,
run by run; each one's median wall time is printed with the ratio, and the figures (ω, ρ and
every p-value) are checked to agree to 1e-9.

    cargo build --release
    python3 benches/compare_alt_test.py --source DIR [--items 6400] [--runs 5]

The binary is $RATERLAB_BIN, else $CARGO_TARGET_DIR/release/raterlab, else target/release/raterlab.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fixtures"))
from generate_alt_test_fixtures import NOTEBOOK, authors  # noqa: E402
from source_loader import checkout  # noqa: E402


def binary():
    if os.environ.get("RATERLAB_BIN"):
        return os.environ["RATERLAB_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "..", "target"))
    return os.path.join(target, "release", "raterlab")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="a checkout of nitaytech/AltTest")
    parser.add_argument("--items", type=int, default=6400)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    scope, record = authors(checkout(args.source, NOTEBOOK))
    rng = np.random.default_rng(84)
    truth = rng.choice([-1, 0, 1], args.items, p=[0.45, 0.1, 0.45])

    def noisy(noise):
        flip = rng.random(args.items) < noise
        return np.where(flip, rng.choice([-1, 0, 1], args.items), truth).tolist()

    names = ["a1", "a2", "a3"]
    cols = {n: noisy(0.3) for n in names}
    cols["judge"] = noisy(0.2)
    humans = {n: {f"i{k}": cols[n][k] for k in range(args.items)} for n in names}
    llm = {f"i{k}": cols["judge"][k] for k in range(args.items)}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "panel.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write("id,a1,a2,a3,judge\n")
            for k in range(args.items):
                f.write(f"i{k},{cols['a1'][k]},{cols['a2'][k]},{cols['a3'][k]},{cols['judge'][k]}\n")
        command = [binary(), "analyze", "--input", path, "--annotators", "a1,a2,a3",
                   "--rating-col", "judge", "--alt-test", "0.1", "--bootstrap", "0", "--json"]
        theirs, ours = [], []
        for _ in range(args.runs):
            record["p"] = []
            start = time.perf_counter()
            wr, ap = scope["alt_test"](llm, humans, "accuracy", epsilon=0.1)
            theirs.append(time.perf_counter() - start)
            start = time.perf_counter()
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            ours.append(time.perf_counter() - start)
        got = json.loads(out)["alt_test"]
        assert abs(got["winning_rate"] - wr) < 1e-9 and abs(got["advantage_probability"] - ap) < 1e-9
        for a, p in zip(got["annotators"], record["p"]):
            assert abs(a["p_value"] - p) < 1e-9, (a, p)
    t, o = statistics.median(theirs), statistics.median(ours)
    print(f"alt-test on {args.items} items, 3 annotators ({args.runs} runs, medians; figures equal)")
    print(f"  authors' alt_test call alone:      {t:.3f} s")
    print(f"  raterlab analyze, whole process:   {o:.3f} s")
    print(f"  ratio: raterlab is {t / o:.1f}x faster")


if __name__ == "__main__":
    main()
