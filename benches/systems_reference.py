#!/usr/bin/env python3
"""The system level in pandas and numpy, as a team would write it beside AlpacaEval: each
model's win rate against the baseline (the mean credit of its rows, AlpacaEval's
`describe_head2head`), 1000 percentile-bootstrap resamples over prompts for every model's
interval, and Spearman/Kendall/Pearson with the reference per resample (scipy), timed.

    python3 benches/systems_reference.py ROWS.jsonl VERDICTS.jsonl REFERENCE.csv

Prints one JSON line: the seconds of the analysis (after reading and importing) and each
model's win rate (for benches/systems.rs to compare).
"""
import json
import sys
import time

import numpy as np
import pandas as pd
from scipy.stats import kendalltau, pearsonr, spearmanr

rows = pd.read_json(sys.argv[1], lines=True)
verdicts = pd.read_json(sys.argv[2], lines=True)
reference = pd.read_csv(sys.argv[3]).set_index("model")["score"]
start = time.perf_counter()
credit = verdicts["completion"].map({"[[A]]": 0.0, "[[B]]": 1.0, "[[C]]": 0.5}).to_numpy()
model = rows["model_2"].to_numpy()
prompt = rows["prompt"].to_numpy()
df = pd.DataFrame({"model": model, "prompt": prompt, "credit": credit})
table = df.pivot_table(index="model", columns="prompt", values="credit", aggfunc="sum", fill_value=0.0)
counts = df.pivot_table(index="model", columns="prompt", values="credit", aggfunc="count", fill_value=0)
win = table.sum(axis=1) / counts.sum(axis=1)
rng = np.random.default_rng(0)
n_prompts = table.shape[1]
sums, ns = table.to_numpy(), counts.to_numpy()
held = [m for m in table.index if m in reference.index]
ref = reference.loc[held].to_numpy()
where = [list(table.index).index(m) for m in held]
draws = []
for _ in range(1000):
    w = np.bincount(rng.integers(0, n_prompts, n_prompts), minlength=n_prompts)
    rates = (sums @ w) / (ns @ w)
    sub = rates[where]
    draws.append((rates, spearmanr(sub, ref).statistic, kendalltau(sub, ref).statistic, pearsonr(sub, ref).statistic))
ci = np.percentile(np.array([d[0] for d in draws]), [2.5, 97.5], axis=0)
elapsed = time.perf_counter() - start
print(json.dumps({"analysis_s": elapsed, "win_rate": {m: float(v) for m, v in win.items()}}))
