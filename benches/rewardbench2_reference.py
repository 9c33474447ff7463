#!/usr/bin/env python3
"""reward-bench's own RewardBench 2 scoring over a data file and a scores file, timed.

    python3 benches/rewardbench2_reference.py DATA.parquet SCORES.csv REWARD_BENCH_CHECKOUT

As `scripts/run_v2.py` scores a reward model: rows outside Ties through
`reroll_and_score_dataset` (each row's completions unrolled, correct first), a subset's score
the mean of its rows; Ties through `process_single_model`; the leaderboard the mean of the six.
Prints one JSON line: the seconds spent scoring (after reading both files and importing), the
seconds including the reading, and every score (for benches/rewardbench2.rs to compare).
"""
import json
import os
import sys
import time

start = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from rewardbench_source import Dataset, reroll_and_score_dataset, ties_main  # noqa: E402

process_single_model = ties_main(sys.argv[3])

imported = time.perf_counter()
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

table = pq.read_table(sys.argv[1])
# polars writes string views, which pandas does not convert: plain strings first.
table = pa.table({
    name: column.cast(pa.list_(pa.string()))
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type)
    else column.cast(pa.string()) if column.type == pa.string_view() else column
    for name, column in zip(table.column_names, table.columns)
})
data = table.to_pandas()
scores = pd.read_csv(sys.argv[2], keep_default_na=False)
score_of = {(p, r): float(s) for p, r, s in zip(scores["prompt"], scores["response"], scores["score"])}
read = time.perf_counter()

subsets = {}
main = data[data["subset"] != "Ties"]
unrolled = [
    {"id": row.id, "subset": row.subset, "text": c, "scores": score_of[(row.prompt, c)]}
    for row in main.itertuples()
    for c in list(row.chosen) + list(row.rejected)
]
scored = reroll_and_score_dataset(Dataset(pd.DataFrame(unrolled)), list(main["total_completions"])).to_pandas()
for subset, results in scored.groupby("subset")["results"]:
    subsets[subset] = float(np.mean(results))
ties = data[data["subset"] == "Ties"]
rows = [
    {"id": row.id, "num_correct": row.num_correct,
     "scores": [score_of[(row.prompt, c)] for c in list(row.chosen) + list(row.rejected)]}
    for row in ties.itertuples()
]
_, subsets["Ties"] = process_single_model(Dataset(pd.DataFrame(rows)))
leaderboard = float(np.mean([subsets[s] for s in ["Factuality", "Precise IF", "Math", "Safety", "Focus", "Ties"]]))
done = time.perf_counter()
print(json.dumps({
    "scoring_s": done - read,
    "with_reading_s": done - imported,
    "with_imports_s": done - start,
    "subsets": {k: float(v) for k, v in subsets.items()},
    "leaderboard": leaderboard,
}))
