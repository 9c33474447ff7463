"""raterlab: meta-evaluate LLM autoraters (LLM-as-a-judge) from Python.

The functions run the raterlab crate itself (the code behind the ``raterlab`` command), so
their numbers are the command's::

    import raterlab
    result = raterlab.analyze(gold=[-1, 1, 1, -1], ratings=[-1, 1, -1, -1])
    result["kappa_quadratic"], result["ci"]["accuracy"]

- :func:`analyze` -- agreement of ratings with gold labels: the dict ``raterlab analyze --json``
  prints for the same labels.
- :func:`calibrate` and :func:`plan` -- the commands with keyword arguments for their flags.
- :func:`read_run` -- a run directory as DataFrames.

A failure raises :class:`Error` with the command's message (what, where, how to fix it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, NamedTuple

from . import _native
from ._native import Error, __version__

__all__ = ["Error", "analyze", "calibrate", "plan", "read_run", "CalibrateResult", "__version__"]


def _bad_input(message: str) -> Error:
    """A :class:`Error` for a bad argument, with the command's exit code for bad input (2)."""
    error = Error(message)
    error.exit_code = 2
    return error


def _missing(value: Any) -> bool:
    """None, NaN, pandas' NA and NaT, numpy's NaN: a missing value."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def _to_list(values: Any, what: str) -> list:
    """A list of plain Python values from a list, tuple, numpy array, or pandas/polars Series."""
    expected = f"{what}: expected a sequence of labels (a list, numpy array or Series), got {type(values).__name__}"
    if isinstance(values, (str, bytes, dict)):
        raise _bad_input(expected)
    if hasattr(values, "to_list"):  # pandas and polars Series
        values = values.to_list()
    elif hasattr(values, "tolist"):  # numpy arrays
        values = values.tolist()
    try:
        values = list(values)
    except TypeError:
        raise _bad_input(expected) from None
    out = []
    for v in values:
        if _missing(v):
            out.append(None)
        elif hasattr(v, "item") and not isinstance(v, (str, bytes)):  # numpy scalars
            out.append(v.item())
        else:
            out.append(v)
    return out


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _flags(options: dict[str, Any]) -> list[str]:
    """Keyword arguments as the command's flags: ``out_dir="x"`` is ``--out-dir=x``, ``True`` a bare
    flag, ``False`` and ``None`` no flag, a list or tuple the flag once per value, a dict
    ``KEY=VALUE`` once per item."""
    flags: list[str] = []
    for name, value in options.items():
        flag = _flag(name)
        if value is None or value is False:
            continue
        if value is True:
            flags.append(flag)
        elif isinstance(value, dict):
            flags.extend(f"{flag}={k}={v}" for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            flags.extend(f"{flag}={v}" for v in value)
        else:
            flags.append(f"{flag}={value}")
    return flags


def analyze(
    gold: Any = None,
    ratings: Any = None,
    *,
    ids: Any = None,
    groups: Any = None,
    annotators: Any = None,
    labels: Any = None,
    gold_map: dict | None = None,
    rating_map: dict | None = None,
    unreadable: str = "error",
    no_majority: str = "drop",
    bootstrap: int = 1000,
    seed: int = 0,
    csv: str | Path | None = None,
    html: str | Path | None = None,
    annotation: Any = None,
    rating_ids: Any = None,
    samples: Any = None,
    annotations_per_item: int | None = None,
    texts: tuple | None = None,
    probability: Any = None,
    compare: Any = None,
    generators: tuple | None = None,
    prompts: Any = None,
    reference: str | Path | None = None,
    reference_map: dict | None = None,
    estimate: Any = None,
    alpha: float | None = None,
    alt_test: float | None = None,
    alt_test_score: str | None = None,
    alt_test_min_annotators: int | None = None,
    alt_test_min_items: int | None = None,
    scale: str | None = None,
) -> dict:
    """Agreement of ``ratings`` with ``gold``: the dict ``raterlab analyze --json`` prints.

    ``gold`` and ``ratings`` are integer labels (-1 response 1 better, 0 tie, 1 response 2
    better, or any integer scale) as lists, numpy arrays or pandas/polars Series; None or NaN
    is a missing label: a missing gold label makes the item unlabelled (counted in
    ``unlabelled``, in no agreement figure), a missing rating is an error unless
    ``unreadable="drop"``. ``ids`` names the items, ``groups`` adds a result per group (e.g. the
    subset). ``annotators`` (a dict of name to votes, or a DataFrame with one column each)
    takes the place of ``gold``: gold is their majority, and the result adds their agreement,
    the human ceiling and the judge beside it. The other arguments are ``analyze``'s flags
    (``labels=[-1, 0, 1]``, ``gold_map={"Tie": 0}``, ``csv="metrics.csv"``...).

    The long form, as ``--gold FILE --ratings FILE`` reads it: with ``annotation`` (one value
    per gold label, naming the annotation), ``gold`` holds several annotations of each item
    named by ``ids`` (they repeat), and ``ratings`` are the judge's, one row per item named by
    ``rating_ids`` (or several, one per sample named by ``samples``); the result adds
    AlpacaEval's evaluator measures (``annotations_per_item`` as ``--annotations-per-item``).

    ``texts=(response1, response2)`` adds the bias figures (and AlpacaEval's ``longest``),
    ``probability`` a judge's P(response 2 better), ``generators=(model1, model2)`` with
    ``prompts`` the system level (each model's win rate and the ranking), compared with
    ``reference`` (``"gold"``, or a table's path with ``reference_map={"model": COL, "score":
    COL}``), as ``--texts``, ``--probability``, ``--generators``, ``--prompt-col``,
    ``--reference`` and ``--reference-map`` give them. ``compare`` is a second judge's labels,
    compared with ``ratings`` as the items come (``--compare-col --sequential``): the result's
    ``sequential`` holds the anytime-valid interval and the item at which it decides.

    ``estimate`` (``True`` for the label -1, or the label itself) asks for corrected
    estimates (``--estimate``): the items whose gold is missing are the unlabelled set, and the
    result's ``estimate`` holds the share of items with that label by the judge alone, the
    humans alone, PPI, PPI++ and Rogan–Gladen at level 1 − ``alpha`` (default 0.05), the
    judge's worth in human labels, and with ``generators`` each model's rank-set
    (prediction-powered ranking).

    ``alt_test`` (ε) with ``annotators`` runs the alternative annotator test (``--alt-test``):
    the result's ``alt_test`` says whether the judge can replace an annotator (its winning
    rate, advantage probability and each annotator's p-value; Benjamini–Yekutieli at
    ``alpha``). ``alt_test_score`` (``"accuracy"`` or ``"neg_rmse"``) and the two minimums are
    ``--alt-test-score``, ``--alt-test-min-annotators`` and ``--alt-test-min-items``.

    ``scale`` (``"binary"``, ``"1-5"``, ``"categories:a,b,c"``; else read from the labels: 0/1
    binary, three integer grades or more graded) measures a judge that grades one response
    (``--scale``): the result's ``configs[0]["scale"]`` holds the scale's figures (Pearson and
    MAE against the annotators' mean grade, leniency, each class's precision and recall...),
    each ``{"value", "ci"}``; with ``annotators`` on a graded scale gold is their mean grade.
    """
    if ratings is None:
        raise _bad_input("analyze: give ratings (the labels under test)")
    flags = [f"--bootstrap={bootstrap}", f"--seed={seed}", f"--unreadable={unreadable}",
             f"--no-majority={no_majority}", "--rating-col=rating"]
    if labels is not None:
        flags.append("--labels=" + ",".join(str(int(v)) for v in _to_list(labels, "labels")))
    for flag, mapping in (("--gold-map", gold_map), ("--rating-map", rating_map)):
        if mapping:
            flags.append(flag + "=" + ",".join(f"{k}={v}" for k, v in mapping.items()))
    for flag, path in (("--csv", csv), ("--html", html)):
        if path is not None:
            flags.append(f"{flag}={path}")
    if reference is not None:
        flags.append(f"--reference={reference}")
    if reference_map:
        flags.append("--reference-map=" + ",".join(f"{k}={v}" for k, v in reference_map.items()))
    # Columns beside the labels: (name, values) and the flag that names them.
    extra: list[tuple[str, list]] = []
    for name, values in (("texts", texts), ("generators", generators)):
        if values is not None:
            if len(values) != 2:
                raise _bad_input(f"analyze: {name} takes two sequences (response 1's and response 2's)")
            cols = [f"{name}_1", f"{name}_2"]
            extra += [(cols[0], _to_list(values[0], f"{name}[0]")),
                      (cols[1], _to_list(values[1], f"{name}[1]"))]
            flags.append(f"--{name}=" + ",".join(cols))
    for name, values, flag in (("probability", probability, "--probability"),
                               ("prompt", prompts, "--prompt-col"),
                               ("compare", compare, "--compare-col")):
        if values is not None:
            extra.append((name, _to_list(values, name)))
            flags.append(f"{flag}={name}")
    if compare is not None:
        flags.append("--sequential")
    if estimate is not None and estimate is not False:
        flags.append("--estimate")
        if estimate is not True:
            flags.append(f"--estimate-label={estimate}")
    for flag, value in (("--alt-test", alt_test), ("--alt-test-score", alt_test_score),
                        ("--alt-test-min-annotators", alt_test_min_annotators),
                        ("--alt-test-min-items", alt_test_min_items)):
        if value is not None:
            flags.append(f"{flag}={value}")
    if scale is not None:
        flags.append(f"--scale={scale}")
    if alpha is not None and (estimate not in (None, False) or alt_test is not None):
        flags.append(f"--alpha={alpha}")
    elif alpha is not None:
        raise _bad_input("analyze: alpha is the level of estimate's intervals and the alt-test's q; give estimate too, or alt_test")
    rating = ("rating", _to_list(ratings, "ratings"))
    if annotation is not None:
        return _analyze_long(gold, rating, ids, annotation, rating_ids, samples,
                             annotations_per_item, groups, annotators, extra, flags)
    if rating_ids is not None or samples is not None or annotations_per_item is not None:
        raise _bad_input("analyze: rating_ids, samples and annotations_per_item are the long form's; "
                         "give annotation (one value per gold label) with them")
    columns: list[tuple[str, list]] = [rating, *extra]
    if annotators is not None:
        if gold is not None:
            raise _bad_input("analyze: give gold or annotators, not both (with annotators, gold is their majority)")
        names = list(annotators.keys()) if hasattr(annotators, "keys") else list(annotators.columns)
        for name in names:
            if name in ("rating", "id", "group") or name in dict(extra):
                raise _bad_input(f"analyze: an annotator may not be named '{name}'; rename it")
            columns.append((str(name), _to_list(annotators[name], f"annotators['{name}']")))
        flags.append("--annotators=" + ",".join(str(n) for n in names))
    elif gold is None:
        raise _bad_input("analyze: give gold (the gold labels) or annotators")
    else:
        columns.append(("gold", _to_list(gold, "gold")))
        flags.append("--gold-col=gold")
    if ids is not None:
        columns.append(("id", [None if v is None else str(v) for v in _to_list(ids, "ids")]))
        flags.append("--id-col=id")
    if groups is not None:
        columns.append(("group", [None if v is None else str(v) for v in _to_list(groups, "groups")]))
        flags.append("--group-col=group")
    return json.loads(_native.analyze("Python values", columns, flags))


def _analyze_long(gold, rating, ids, annotation, rating_ids, samples, annotations_per_item,
                  groups, annotators, extra, flags) -> dict:
    """The long form: a gold table of annotations and a ratings table, joined on their ids."""
    if gold is None or ids is None or rating_ids is None:
        raise _bad_input("analyze: the long form needs gold, ids (repeating, one per annotation), "
                         "ratings and rating_ids")
    if groups is not None or annotators is not None:
        raise _bad_input("analyze: groups and annotators are the one-table form's; the long form's "
                         "annotators are the annotations themselves")
    text = lambda v, what: [None if x is None else str(x) for x in _to_list(v, what)]  # noqa: E731
    gold_columns = [("id", text(ids, "ids")), ("annotation", _to_list(annotation, "annotation")),
                    ("gold", _to_list(gold, "gold"))]
    # The texts are the gold table's (AlpacaEval's outputs beside its annotations); the rest go
    # beside the ratings.
    beside_gold = [(n, v) for n, v in extra if n.startswith("texts_")]
    beside_ratings = [(n, v) for n, v in extra if not n.startswith("texts_")]
    rating_rows = len(rating[1])
    rating_columns = [("id", text(rating_ids, "rating_ids")),
                      ("annotation", _to_list(samples, "samples") if samples is not None else [0] * rating_rows),
                      rating, *beside_ratings]
    flags = [*flags, "--id-col=id", "--gold-col=gold", "--annotator-col=annotation"]
    if annotations_per_item is not None:
        flags.append(f"--annotations-per-item={int(annotations_per_item)}")
    return json.loads(_native.analyze_two(("Python gold", "Python ratings"),
                                          gold_columns + beside_gold, rating_columns, flags))


class CalibrateResult(NamedTuple):
    """What :func:`calibrate` returns: the ``--json`` document and the run directory."""

    report: dict
    run_dir: Path


def calibrate(**options: Any) -> CalibrateResult:
    """Runs ``raterlab calibrate`` with these flags (``demo=True``, ``data="file.parquet"``,
    ``prompt=["simple_no_tie", "simple_with_tie"]``, ``rater=["basic", "sc:5"]``, ``out="runs/x"``...)
    and returns the document ``calibrate --json`` prints and the run directory written.
    Progress and warnings go to ``sys.stderr``."""
    options.pop("json", None)
    doc, run_dir = _native.calibrate(_flags(options))
    return CalibrateResult(json.loads(doc), Path(run_dir))


def plan(**options: Any) -> dict:
    """Runs ``raterlab plan`` with these flags (``diff=0.05``, ``discordance=0.2``,
    ``run="runs/x"``...) and returns the document ``plan --json`` prints."""
    options.pop("json", None)
    return json.loads(_native.plan(_flags(options)))


_TABLES = ("ratings", "metrics", "comparisons", "confusion")


def read_run(path: str | Path, *, polars: bool = False) -> dict:
    """A run directory written by ``calibrate`` (or ``report``) as a dict: ``ratings``,
    ``metrics``, ``comparisons``, ``confusion`` (its CSV files; RewardBench 2 runs have no
    confusion) and ``items`` (items.jsonl) as pandas DataFrames (polars with ``polars=True``),
    and ``run``, the parsed run.json."""
    run_dir = Path(path)
    if not (run_dir / "run.json").is_file():
        raise _bad_input(
            f"'{run_dir}' is not a raterlab run directory (no run.json); pass the folder calibrate wrote"
        )
    try:
        if polars:
            import polars as pl

            read_csv = lambda p: pl.read_csv(p, infer_schema_length=None)  # noqa: E731
            read_jsonl = pl.read_ndjson
        else:
            import pandas as pd

            read_csv = lambda p: pd.read_csv(p, dtype={"id": str, "pair_id": str})  # noqa: E731
            read_jsonl = lambda p: pd.read_json(p, lines=True, dtype={"id": str})  # noqa: E731
    except ImportError:
        need = "polars" if polars else "pandas"
        raise _bad_input(
            f"read_run returns {need} DataFrames and {need} is not installed: "
            f"pip install 'raterlab[{need}]'"
        ) from None
    out: dict[str, Any] = {"run": json.loads((run_dir / "run.json").read_text())}
    # A RewardBench 2 run has no confusion matrix: its rows are scored, not labelled.
    rewardbench2 = out["run"].get("data", {}).get("form") == "rewardbench2"
    for name in _TABLES[:3] if rewardbench2 else _TABLES:
        file = run_dir / f"{name}.csv"
        if not file.is_file():
            raise _bad_input(f"'{run_dir}' has no {name}.csv; the run directory is incomplete")
        out[name] = read_csv(file)
    out["items"] = read_jsonl(run_dir / "items.jsonl")
    return out


def _main() -> None:
    """The ``raterlab`` command installed by pip: the same command line as the binary."""
    import sys

    sys.exit(_native.main(["raterlab", *sys.argv[1:]]))
