#!/usr/bin/env python3
"""Time `raterlab analyze --json` against the equivalent pandas + scipy + sklearn script.

Both read the same 2*10^6-row parquet file from disk in a fresh process (start-up and file
loading included) and compute the same statistics; the values are checked to agree. Each
command's median wall time and peak resident memory are printed, the ratio against pandas;
the commands take turns, run by run.

    pip install -r requirements-dev.txt
    cargo build --release
    python3 benches/compare_pandas.py [--rows 2000000] [--runs 3]

The binary is $RATERLAB_BIN, else $CARGO_TARGET_DIR/release/raterlab, else target/release/raterlab.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

PANDAS_SCRIPT = r"""
import json, sys
import pandas as pd
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix
df = pd.read_parquet(sys.argv[1])
assert not df["id"].duplicated().any()
g, r = df["gold"].to_numpy(), df["rating"].to_numpy()
labels = [-1, 0, 1]
rho, rho_p = spearmanr(g, r)
tau, tau_p = kendalltau(g, r)
print(json.dumps({
    "accuracy": accuracy_score(g, r),
    "kappa": cohen_kappa_score(r, g, labels=labels),
    "kappa_linear": cohen_kappa_score(r, g, labels=labels, weights="linear"),
    "kappa_quadratic": cohen_kappa_score(r, g, labels=labels, weights="quadratic"),
    "spearman": rho, "spearman_p": rho_p, "kendall_tau_b": tau, "kendall_p": tau_p,
    "confusion": confusion_matrix(g, r, labels=labels).tolist(),
}))
"""


def binary():
    if os.environ.get("RATERLAB_BIN"):
        return os.environ["RATERLAB_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(pathlib.Path(__file__).parents[1] / "target"))
    return str(pathlib.Path(target) / "release" / "raterlab")


def make_file(path, rows):
    rng = np.random.default_rng(0)
    subsets = np.array(["alpacaeval-easy", "mt-bench-hard", "llmbar-natural", "refusals-dangerous",
                        "xstest-should-respond", "hep-python", "math-prm"])
    subset = subsets[rng.integers(0, len(subsets), rows)]
    gold = rng.choice([-1, 1], rows)
    u = rng.random(rows)
    rating = np.where(u < 0.1, 0, np.where(u < 0.775, gold, -gold))
    ids = pd.Series(subset).str.cat(pd.Series(np.arange(rows)).astype(str), sep="-")
    pd.DataFrame({"id": ids, "subset": subset, "gold": gold, "rating": rating}).to_parquet(path, index=False)


def once(cmd):
    """One fresh process: its wall time, peak resident memory (MB) and JSON output."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as sink:
        child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{' '.join(cmd)} exited {code}")
        sink.seek(0)
        out = json.loads(sink.read().decode())
    return seconds, usage.ru_maxrss * 1024 / 1e6, out


def paired(commands, runs):
    """Each command run `runs` times, the commands taking turns (so that a slower moment of
    the machine falls on all of them): each one's median time and peak memory, and output."""
    times = {name: [] for name in commands}
    peaks = {name: [] for name in commands}
    outs = {}
    for _ in range(runs):
        for name, cmd in commands.items():
            t, m, outs[name] = once(cmd)
            times[name].append(t)
            peaks[name].append(m)
    return {n: (statistics.median(times[n]), statistics.median(peaks[n]), outs[n]) for n in commands}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--make", metavar="PATH", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        make_file(args.make, args.rows)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pairs.parquet")
        # In a child process: a child's peak memory starts from its parent's at the fork, so
        # the parent stays as small as it started.
        subprocess.run([sys.executable, __file__, "--make", path, "--rows", str(args.rows)], check=True)
        size = os.path.getsize(path) / 1e6
        r = paired({
            "pandas": [sys.executable, "-c", PANDAS_SCRIPT, path],
            "nb": [binary(), "analyze", "--input", path, "--json", "--bootstrap", "0"],
            "bs": [binary(), "analyze", "--input", path, "--json"],
        }, args.runs)
    (t_pandas, m_pandas, ref), (t_nb, m_nb, ours), (t_bs, m_bs, _) = r["pandas"], r["nb"], r["bs"]
    for key in ["accuracy", "kappa", "kappa_linear", "kappa_quadratic", "spearman", "kendall_tau_b"]:
        assert abs(ours[key] - ref[key]) < 1e-9, (key, ours[key], ref[key])
    assert ours["confusion"]["matrix"] == ref["confusion"], "confusion matrices differ"
    print(f"{args.rows} rows, {size:.1f} MB parquet, median of {args.runs} paired runs, values agree to 1e-9")
    print(f"{'command':<52} {'time':>9} {'ratio':>9} {'peak':>9}")
    print(f"{'pandas + scipy + sklearn (reference)':<52} {t_pandas:>8.3f}s {1:>8.1f}x {m_pandas:>6.0f} MB")
    print(f"{'raterlab analyze --json --bootstrap 0':<52} {t_nb:>8.3f}s {t_pandas / t_nb:>8.1f}x {m_nb:>6.0f} MB")
    print(f"{'raterlab analyze --json (1000 bootstrap resamples)':<52} {t_bs:>8.3f}s {t_pandas / t_bs:>8.1f}x {m_bs:>6.0f} MB")


if __name__ == "__main__":
    main()
