"""The Python module against the command it wraps: the same numbers, the same run directory,
the same errors. Run with the wheel installed: ``python -m pytest python/tests``."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import raterlab

# The installed `raterlab` command (the wheel's), beside this interpreter.
COMMAND = shutil.which("raterlab", path=str(Path(sys.executable).parent)) or "raterlab"


def command_json(*args: str) -> dict:
    out = subprocess.run([COMMAND, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def same(a, b, path="") -> None:
    """Equal documents: numbers exactly (NaN is null in both), everything else as is."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


def without_source(doc: dict) -> dict:
    """The document without what names the input: its source, and the configuration's name
    (the rating column's, which the module names itself)."""
    doc = dict(doc)
    doc.pop("source")
    if "configs" in doc:
        doc["configs"] = [{k: v for k, v in c.items() if k != "name"} for c in doc["configs"]]
    return doc


def write_csv(path: Path, columns: dict[str, list]) -> Path:
    rows = zip(*columns.values())
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns.keys())
        w.writerows(["" if v is None else v for v in row] for row in rows)
    return path


RNG = np.random.default_rng(7)
GOLD = RNG.choice([-1, 0, 1], size=200, p=[0.45, 0.1, 0.45])
RATINGS = np.where(RNG.random(200) < 0.7, GOLD, RNG.choice([-1, 0, 1], size=200))
SUBSETS = RNG.choice(["chat", "code", "safety"], size=200)


def test_analyze_equals_the_command(tmp_path):
    file = write_csv(tmp_path / "labels.csv", {"gold": GOLD.tolist(), "rating": RATINGS.tolist(),
                                                "subset": SUBSETS.tolist()})
    expected = command_json("analyze", "--input", str(file), "--group-col", "subset", "--seed", "3")
    got = raterlab.analyze(GOLD, RATINGS, groups=SUBSETS, seed=3)
    assert got["source"] == "Python values"
    same(without_source(got), without_source(expected))
    assert got["n"] == 200 and set(got["groups"]) == {"chat", "code", "safety"}
    # The numbers are real: accuracy is the share of equal labels.
    assert got["accuracy"] == pytest.approx(float(np.mean(GOLD == RATINGS)), abs=1e-12)


@pytest.mark.parametrize("kind", ["list", "numpy", "pandas", "polars"])
def test_analyze_takes_lists_arrays_and_series(kind):
    convert = {"list": list, "numpy": np.asarray, "pandas": pd.Series, "polars": pl.Series}[kind]
    gold, ratings = GOLD.tolist(), RATINGS.tolist()
    expected = raterlab.analyze(gold, ratings, bootstrap=200)
    same(raterlab.analyze(convert(gold), convert(ratings), bootstrap=200), expected)


def test_missing_labels_are_read_as_the_command_reads_them(tmp_path):
    # A missing gold label is an unlabelled item (counted, in no measure); a missing rating is
    # dropped under unreadable="drop".
    gold = [-1, 1, None, 1, -1, 1, -1, 0]
    ratings = [-1, 1, 1, float("nan"), -1, -1, -1, 0]
    file = write_csv(tmp_path / "m.csv", {"id": list("abcdefgh"), "gold": gold,
                                           "rating": [None if isinstance(r, float) else r for r in ratings]})
    expected = command_json("analyze", "--input", str(file), "--unreadable", "drop")
    got = raterlab.analyze(gold, ratings, ids=list("abcdefgh"), unreadable="drop")
    same(without_source(got), without_source(expected))
    assert (got["n"], got["dropped_gold"], got["dropped_ratings"], got["unlabelled"]) == (6, 0, 1, 1)
    # pandas' nullable integers: pd.NA is missing too.
    nullable = pd.Series(gold, dtype="Int64")
    same(raterlab.analyze(nullable, ratings, unreadable="drop"), got)


def test_annotators_equal_the_command(tmp_path):
    votes = {name: np.where(RNG.random(200) < 0.8, GOLD, -GOLD).tolist() for name in ("a1", "a2", "a3")}
    file = write_csv(tmp_path / "panel.csv", {**votes, "judge": RATINGS.tolist()})
    expected = command_json("analyze", "--input", str(file), "--annotators", "a1,a2,a3",
                            "--rating-col", "judge", "--bootstrap", "100")
    got = raterlab.analyze(ratings=RATINGS, annotators=pd.DataFrame(votes), bootstrap=100)
    same(without_source(got), without_source(expected))
    assert "annotators" in got and "judge_vs_annotators" in got


def test_the_alt_test_equals_the_command(tmp_path):
    votes = {name: np.where(RNG.random(200) < 0.8, GOLD, -GOLD).tolist() for name in ("a1", "a2", "a3")}
    file = write_csv(tmp_path / "panel.csv", {**votes, "judge": RATINGS.tolist()})
    expected = command_json("analyze", "--input", str(file), "--annotators", "a1,a2,a3",
                            "--rating-col", "judge", "--bootstrap", "0", "--alt-test", "0.15",
                            "--alpha", "0.1", "--alt-test-min-items", "20")
    got = raterlab.analyze(ratings=RATINGS, annotators=pd.DataFrame(votes), bootstrap=0,
                           alt_test=0.15, alpha=0.1, alt_test_min_items=20)
    same(got["alt_test"], expected["alt_test"])
    assert got["alt_test"]["q"] == 0.1 and len(got["alt_test"]["annotators"]) == 3


def test_a_graded_panel_is_measured_on_its_scale_as_the_command_measures_it(tmp_path):
    # Four annotators grading 1-5 and a judge: gold is their mean grade, and the scale's
    # figures (Pearson against the mean, MAE against the rounded mean...) are the command's.
    truth = RNG.integers(1, 6, size=150)
    votes = {name: np.clip(truth + RNG.integers(-1, 2, size=150), 1, 5).tolist() for name in ("a1", "a2", "a3", "a4")}
    judge = np.clip(truth + RNG.integers(-1, 2, size=150), 1, 5).tolist()
    file = write_csv(tmp_path / "graded.csv", {**votes, "judge": judge})
    expected = command_json("analyze", "--input", str(file), "--annotators", "a1,a2,a3,a4",
                            "--rating-col", "judge", "--bootstrap", "50", "--scale", "1-5")
    got = raterlab.analyze(ratings=judge, annotators=pd.DataFrame(votes), bootstrap=50, scale="1-5")
    same(got["configs"][0]["scale"], expected["configs"][0]["scale"])
    figures = got["configs"][0]["scale"]["figures"]
    mean = np.mean([votes[a] for a in votes], axis=0)
    assert abs(figures["mean_offset"]["value"] - float(np.mean(np.array(judge) - mean))) < 1e-12
    assert got["configs"][0]["scale"]["reference"] == "human_mean" and got["n"] == 150


def test_the_long_form_equals_the_commands_two_files(tmp_path):
    # Four annotations of each of 60 items (ids repeat), the judge's two samples of each.
    items = [f"item{k}" for k in range(60)]
    truth = RNG.choice([-1, 1], size=60)
    gold_rows = [(i, a, int(t if RNG.random() < 0.75 else -t)) for i, t in zip(items, truth) for a in range(4)]
    rating_rows = [(i, s, int(t if RNG.random() < 0.7 else -t)) for i, t in zip(items, truth) for s in range(2)]
    texts = {i: ("x" * int(RNG.integers(5, 80)), "y" * int(RNG.integers(5, 80))) for i in items}
    g = write_csv(tmp_path / "gold.csv", {
        "id": [r[0] for r in gold_rows], "annotation": [r[1] for r in gold_rows],
        "gold": [r[2] for r in gold_rows],
        "texts_1": [texts[r[0]][0] for r in gold_rows], "texts_2": [texts[r[0]][1] for r in gold_rows]})
    r = write_csv(tmp_path / "ratings.csv", {
        "id": [r[0] for r in rating_rows], "annotation": [r[1] for r in rating_rows],
        "rating": [r[2] for r in rating_rows]})
    expected = command_json("analyze", "--gold", str(g), "--ratings", str(r), "--id-col", "id",
                            "--gold-col", "gold", "--rating-col", "rating", "--annotator-col", "annotation",
                            "--texts", "texts_1,texts_2", "--bootstrap", "200")
    got = raterlab.analyze(
        [r[2] for r in gold_rows], [r[2] for r in rating_rows],
        ids=[r[0] for r in gold_rows], annotation=[r[1] for r in gold_rows],
        rating_ids=[r[0] for r in rating_rows], samples=[r[1] for r in rating_rows],
        texts=([texts[r[0]][0] for r in gold_rows], [texts[r[0]][1] for r in gold_rows]),
        bootstrap=200)
    same(without_source(got), without_source(expected))
    # AlpacaEval's measures are there, with the judge's two samples (bias needs two).
    judge = got["configs"][0]["evaluator"]
    assert got["long_form"] and judge["samples_per_item"] == 2
    assert judge["bias"] is not None and judge["prefer_longer"] is not None
    with pytest.raises(raterlab.Error, match="long form needs"):
        raterlab.analyze([1, -1], [1], ids=["a", "a"], annotation=[0, 1])
    with pytest.raises(raterlab.Error, match="the long form's"):
        raterlab.analyze([1, -1], [1, -1], rating_ids=["a", "b"])


def test_generators_with_a_reference_equal_the_command(tmp_path):
    # Four models each write response 1 or 2 of 120 prompts; the judge mostly follows gold.
    models = ["m1", "m2", "m3", "m4"]
    strength = {"m1": 0.8, "m2": 0.6, "m3": 0.4, "m4": 0.2}
    g1 = RNG.choice(models, size=120).tolist()
    g2 = [RNG.choice([m for m in models if m != a]) for a in g1]
    gold = [-1 if RNG.random() < strength[a] / (strength[a] + strength[b]) else 1 for a, b in zip(g1, g2)]
    judge = [v if RNG.random() < 0.8 else -v for v in gold]
    prompts = [f"p{k}" for k in range(120)]
    f = write_csv(tmp_path / "systems.csv", {"gold": gold, "rating": judge, "generators_1": g1,
                                             "generators_2": g2, "prompt": prompts})
    ref = write_csv(tmp_path / "arena.csv", {"name": models, "elo": [1300, 1200, 1100, 1000]})
    for reference, reference_map, cli in (
        ("gold", None, ["--reference", "gold"]),
        (ref, {"model": "name", "score": "elo"},
         ["--reference", str(ref), "--reference-map", "model=name,score=elo"]),
    ):
        expected = command_json("analyze", "--input", str(f), "--generators", "generators_1,generators_2",
                                "--prompt-col", "prompt", "--bootstrap", "200", *cli)
        got = raterlab.analyze(gold, judge, generators=(g1, g2), prompts=prompts,
                               reference=reference, reference_map=reference_map, bootstrap=200)
        same(without_source(got), without_source(expected))
        assert {m["name"] for m in got["configs"][0]["systems"]["generators"]} == set(models)
        assert got["configs"][0]["systems"]["reference"]["n"] == 4


def test_edge_cases_are_the_commands():
    # Constant ratings: Spearman and Kendall are undefined (NaN → None), as in scipy.
    got = raterlab.analyze([-1, 1, 1, -1], [1, 1, 1, 1], bootstrap=0)
    assert got["spearman"] is None and got["kendall_tau_b"] is None and got["ci"] is None
    assert got["accuracy"] == 0.5 and got["confusion"]["matrix"] == [[0, 0, 2], [0, 0, 0], [0, 0, 2]]


def test_analyze_writes_the_csv_and_html_it_is_asked_for(tmp_path):
    raterlab.analyze(GOLD, RATINGS, csv=tmp_path / "m.csv", html=tmp_path / "a.html", bootstrap=50)
    metrics = pd.read_csv(tmp_path / "m.csv")
    assert set(metrics.scope) == {"overall"} and "kappa_quadratic" in set(metrics.metric)
    assert "<html" in (tmp_path / "a.html").read_text()


def test_read_run_has_the_rows_of_the_run_directory(tmp_path):
    out = tmp_path / "demo"
    subprocess.run([COMMAND, "calibrate", "--demo", "--out", str(out)], check=True, capture_output=True)
    run = raterlab.read_run(out)
    with (out / "ratings.csv").open() as f:
        rows = list(csv.DictReader(f))
    ratings = run["ratings"]
    assert len(ratings) == len(rows) == 387
    assert list(ratings.columns) == list(rows[0].keys())
    assert ratings["id"].tolist() == [r["id"] for r in rows]
    assert ratings["config"].tolist() == [r["config"] for r in rows]
    assert run["run"]["data"]["items"] == len(run["items"]) == 43
    for name in ("metrics", "comparisons", "confusion"):
        with (out / f"{name}.csv").open() as f:
            assert len(run[name]) == sum(1 for _ in f) - 1
    frames = raterlab.read_run(out, polars=True)
    assert isinstance(frames["ratings"], pl.DataFrame) and frames["ratings"].height == 387


@pytest.mark.parametrize("frames", ["pandas", "polars"])
def test_read_run_without_its_dataframe_library_names_the_extra(tmp_path, monkeypatch, frames):
    out = tmp_path / "rb2"
    subprocess.run([COMMAND, "calibrate", "--demo", "--data", "sample-v2", "--out", str(out)],
                   check=True, capture_output=True)
    # As if the library were not installed: `import pandas` raises ImportError.
    monkeypatch.setitem(sys.modules, frames, None)
    with pytest.raises(raterlab.Error) as e:
        raterlab.read_run(out, polars=frames == "polars")
    assert str(e.value) == (f"read_run returns {frames} DataFrames and {frames} is not installed: "
                            f"pip install 'raterlab[{frames}]'")
    assert e.value.exit_code == 2


def test_read_run_reads_every_form_and_report_dir_remakes_it(tmp_path):
    # A RewardBench 2 run, remade by `report DIR`, reads the same; its items carry the order.
    out = tmp_path / "rb2"
    subprocess.run([COMMAND, "calibrate", "--demo", "--data", "sample-v2", "--out", str(out)],
                   check=True, capture_output=True)
    before = raterlab.read_run(out)
    subprocess.run([COMMAND, "report", str(out)], check=True, capture_output=True)
    after = raterlab.read_run(out)
    for name in ("ratings", "metrics", "comparisons"):
        pd.testing.assert_frame_equal(before[name], after[name])
    assert before["run"]["schema"] == "raterlab/run/4" and "order" in before["items"].columns


def test_calibrate_returns_the_commands_json_and_the_run(tmp_path):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        result = raterlab.calibrate(demo=True, out=tmp_path / "py", prompt=["simple_no_tie"],
                                    rater=["basic", "sc:5"])
    report, run_dir = result
    assert run_dir == tmp_path / "py" and (run_dir / "report.html").is_file()
    expected = command_json("calibrate", "--demo", "--out", str(tmp_path / "cmd"), "--prompt",
                            "simple_no_tie", "--rater", "basic", "--rater", "sc:5")
    names = [c["name"] for c in report["configs"]]
    assert names == [c["name"] for c in expected["configs"]]
    for a, b in zip(report["configs"], expected["configs"]):
        same(a["overall"], b["overall"])
    # Progress went to Python's sys.stderr, where a notebook shows it.
    assert "simple_no_tie/basic: 43/43 calls" in err.getvalue()
    # The directory reads back with the same numbers.
    metrics = raterlab.read_run(run_dir)["metrics"]
    kappa = metrics[(metrics.scope == "overall") & (metrics.metric == "kappa_quadratic")]
    first = report["configs"][0]
    value = kappa[kappa.config == first["name"]].value.iloc[0]
    assert value == pytest.approx(first["overall"]["kappa_quadratic"], abs=1e-12)


def test_calibrate_sequential_races_and_names_a_pair(tmp_path):
    """sequential=True races every configuration; sequential="A,B" names two; a wrong name is
    the command's input error."""
    with contextlib.redirect_stderr(io.StringIO()):
        report, _ = raterlab.calibrate(demo=True, out=tmp_path / "race", bootstrap=0,
                                       prompt=["simple_no_tie"], rater=["basic", "sc:5"],
                                       sequential=True)
        s = report["sequential"]
        assert (s["order"], s["comparisons"], s["items"]) == ("shuffled", 1, 43)
        assert all("stopped_at" in c for c in report["configs"])
        pair = "simple_no_tie/basic,simple_no_tie/sc:5"
        named, _ = raterlab.calibrate(demo=True, out=tmp_path / "named", bootstrap=0,
                                      prompt=["simple_no_tie"], rater=["basic", "sc:5"],
                                      sequential=pair, no_shuffle=True)
        assert named["sequential"]["named"] == pair.split(",")
        assert named["sequential"]["order"] == "file"
        with pytest.raises(Exception, match="is not a configuration of this run"):
            raterlab.calibrate(demo=True, out=tmp_path / "bad", sequential="a,b")


def test_analyze_estimate_corrects_the_judge_with_the_labelled_items():
    """estimate= is --estimate: missing gold makes the unlabelled set; the result equals the
    command's on the same values, and a bad label is the command's input error."""
    import random
    rng = random.Random(55)
    gold = [rng.choice([-1, 1]) for _ in range(600)]
    judge = [g if rng.random() < 0.8 else -g for g in gold]
    partial = [g if i % 5 == 0 else None for i, g in enumerate(gold)]
    report = raterlab.analyze(partial, judge, estimate=-1, alpha=0.1, bootstrap=0)
    e = report["estimate"]
    assert (e["n_labelled"], e["n_unlabelled"], e["alpha"]) == (120, 480, 0.1)
    lo, hi = e["mean"]["ppi_plus"]["ci"]
    assert lo < e["mean"]["ppi_plus"]["estimate"] < hi
    assert 0 <= e["mean"]["ppi_plus"]["lambda"] <= 1
    assert raterlab.analyze(partial, judge, estimate=True, alpha=0.1, bootstrap=0)["estimate"] == e
    with pytest.raises(Exception, match="neither a label"):
        raterlab.analyze(partial, judge, estimate="model_a")
    with pytest.raises(Exception, match="give estimate too"):
        raterlab.analyze(partial, judge, alpha=0.1)


def test_calibrate_on_rewardbench2_rows_equals_the_command(tmp_path):
    prompts = ["rb2_ranking", "rb2_rating", "simple_no_tie"]
    with contextlib.redirect_stderr(io.StringIO()):
        report, run_dir = raterlab.calibrate(data="sample-v2", judge="sim", prompt=prompts,
                                             out=tmp_path / "py")
    flags = [f for p in prompts for f in ("--prompt", p)]
    expected = command_json("calibrate", "--data", "sample-v2", "--judge", "sim", "--out",
                            str(tmp_path / "cmd"), *flags)
    assert [c["protocol"] for c in report["configs"]] == ["ranking", "ratings", "pairwise"]
    for a, b in zip(report["configs"], expected["configs"]):
        assert a["name"] == b["name"]
        same(a["rewardbench2"], b["rewardbench2"])
    assert report["data"]["form"] == "rewardbench2"
    # The directory reads back: a row per configuration and row, the leaderboard in metrics.
    run = raterlab.read_run(run_dir)
    assert len(run["ratings"]) == 3 * 19 and len(run["items"]) == 19
    assert "confusion" not in run
    m = run["metrics"]
    board = m[(m.scope == "leaderboard") & (m.metric == "score")]
    for c in report["configs"]:
        value = board[board.config == c["name"]].value.iloc[0]
        assert value == pytest.approx(c["rewardbench2"]["score"], abs=1e-12)


def test_a_jury_from_python_equals_the_command_and_reads_back_with_its_members_votes(tmp_path):
    jury = "poll=raterlab_no_tie/basic,raterlab_with_tie/basic,raterlab_ab_no_tie/basic"
    with contextlib.redirect_stderr(io.StringIO()):
        report, run_dir = raterlab.calibrate(demo=True, rater=["basic"], jury=[jury],
                                             out=tmp_path / "py")
    expected = command_json("calibrate", "--demo", "--rater", "basic", "--jury", jury, "--out",
                            str(tmp_path / "cmd"))
    ours = [c for c in report["configs"] if "jury" in c]
    theirs = [c for c in expected["configs"] if "jury" in c]
    assert [c["name"] for c in ours] == ["poll"] == [c["name"] for c in theirs]
    same(ours[0]["overall"], theirs[0]["overall"])
    assert ours[0]["jury"]["no_majority"] == theirs[0]["jury"]["no_majority"]
    ratings = raterlab.read_run(run_dir)["ratings"]
    votes = ratings[ratings.config == "poll"].member_votes
    assert len(votes) == 43 and all(len(v.split(",")) == 3 for v in votes)


def test_rm_bench_from_python_has_its_style_matrix(tmp_path):
    rows = [{"id": i, "subset": "alpacaeval", "prompt": f"q{i}",
             "chosen": ["short", "a longer answer", "**a longer answer**"],
             "rejected": ["no", "a wrong long answer", "**a wrong long answer**"]} for i in range(5)]
    data = tmp_path / "rm.json"
    data.write_text(json.dumps(rows))
    with contextlib.redirect_stderr(io.StringIO()):
        report, _ = raterlab.calibrate(data=str(data), judge="sim", out=tmp_path / "py")
    rm = report["configs"][0]["rmbench"]
    assert len(rm["matrix"]) == 3 and set(rm["domains"]) == {"chat"}
    assert rm["average"] == pytest.approx((rm["hard"] + rm["normal"] + rm["easy"]) / 3, abs=1e-12)


def test_plan_equals_the_command():
    same(raterlab.plan(diff=0.05, discordance=0.2), command_json("plan", "--diff", "0.05", "--discordance", "0.2"))


def test_bad_arguments_raise_the_commands_message(tmp_path):
    with pytest.raises(raterlab.Error, match=r"--sort <METRIC>': 'leaderboard' is not a metric") as e:
        raterlab.calibrate(demo=True, sort="leaderboard", out=tmp_path / "x")
    assert e.value.exit_code == 2
    with pytest.raises(raterlab.Error, match=r"column 'gold', row 3: 'x' is not an integer label"):
        raterlab.analyze([-1, 1, "x"], [1, 1, 1])
    with pytest.raises(raterlab.Error, match=r"'gold' has 2 values but 'rating' has 3"):
        raterlab.analyze([-1, 1], [1, 1, 1])
    with pytest.raises(raterlab.Error, match=r"unexpected argument '--no-such-flag'"):
        raterlab.calibrate(no_such_flag=1)
    with pytest.raises(raterlab.Error, match=r"not a raterlab run directory") as e:
        raterlab.read_run(tmp_path)
    assert e.value.exit_code == 2
    with pytest.raises(raterlab.Error, match=r"gold: expected a sequence of labels"):
        raterlab.analyze("abc", [1])
    with pytest.raises(raterlab.Error, match=r"label 5 is not in the label set"):
        raterlab.analyze([-1, 1, 5], [1, 1, 1], labels=[-1, 0, 1])


def test_the_command_is_installed_and_exits_as_the_binary(tmp_path):
    version = subprocess.run([COMMAND, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip() == f"raterlab {raterlab.__version__}"
    bad = subprocess.run([COMMAND, "analyze", "--input", str(tmp_path / "nosuch.csv")],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: cannot read") and "file not found; check the path" in bad.stderr
    usage = subprocess.run([COMMAND, "calibrate", "--bogus"], capture_output=True, text=True)
    assert usage.returncode == 2 and "unexpected argument '--bogus'" in usage.stderr


@pytest.mark.skipif(not os.environ.get("RATERLAB_WHEEL_TEST"), reason="CI sets RATERLAB_WHEEL_TEST=1 with the wheel installed")
def test_the_installed_wheel_is_what_runs():
    # The package and its native part come from the installed abi3 wheel, not the clone.
    assert "site-packages" in raterlab.__file__, raterlab.__file__
    assert raterlab._native.__file__.endswith(".abi3.so"), raterlab._native.__file__


def test_compare_gives_the_commands_sequential_comparison(tmp_path):
    # Two judges on the same 600 items: A right on 9 of 10, B on 6 of 10.
    gold = [(-1) ** i for i in range(600)]
    a = [-g if i % 10 == 0 else g for i, g in enumerate(gold)]
    b = [-g if i % 10 < 4 else g for i, g in enumerate(gold)]
    file = write_csv(tmp_path / "s.csv", {"id": list(range(600)), "gold": gold, "rating": a, "compare": b})
    expected = command_json("analyze", "--input", str(file), "--compare-col", "compare", "--sequential")
    got = raterlab.analyze(gold, a, compare=b)
    same(without_source(got), without_source(expected))
    s = got["sequential"]
    assert (s["a"], s["b"], s["better"], s["n"]) == ("rating", "compare", "a", 600)
    assert s["stopped_at"] is not None and s["lower"] > 0.5
