"""The sentences and pictures tell the truth. Summaries by median with a failure rate,
oracle and non-private references never starred or ranked, rankings within one guarantee, chart
defects (stage colours, floor statistic, accuracy-first axis and words), the binary product
headline against every baseline, and Your data's sentences (no winner from one draw or when every
estimate is far off)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.experiments import FAILURE_MULTIPLE, ExperimentConfig, regret_table, run, summarise
from dpcore.figures.binary_product import sweep_winners, tv_headline
from dpcore.figures.compare import (
    FLOOR_NAME,
    error_figure,
    headline,
    target_figure,
    target_sentence,
)
from dpcore.figures.style import ledger_chart, stage_colors
from dpcore.registry import get
from dpcore.theory.binary_product import SEPARATION_WARN, separation_light


@pytest.fixture(scope="module")
def oracle_frame() -> pd.DataFrame:
    cfg = ExperimentConfig(
        distribution="gaussian",
        n=400,
        d=8,
        skew=2.0,
        budget=0.5,
        repetitions=5,
        seed=3,
        estimators=["empirical", "plan", "plan_oracle", "gaussian_private"],
        sweep={"budget": [0.125, 0.5, 2.0]},
    )
    return run(cfg)


def test_oracle_is_not_private() -> None:
    assert not get("plan_oracle").private and not get("empirical").private and get("plan").private
    assert get("plan").guarantee == ("zcdp", "replace-one")


def test_summary_median_and_failure_rate() -> None:
    """One blow-up moves the mean, not the median, and shows up as the failure rate."""
    errs = [1.0, 1.1, 0.9, 1.05, 500.0]
    rows = [
        {
            "estimator": "plan",
            "name": "plan",
            "label": "P",
            "color": "#000000",
            "notion": "zcdp",
            "family": "x",
            "setting": 0,
            "n": 10,
            "d": 1,
            "skew": 0.0,
            "budget": 1.0,
            "err_l2": e,
            "sampling_l2": 0.5,
            "clipping_l2": 0.0,
            "noise_l2": e,
            "failed": "",
            "warnings": "",
            "seconds": 0.0,
            "rep": i,
        }
        for i, e in enumerate(errs)
    ]
    s = summarise(pd.DataFrame(rows), "l2").iloc[0]
    assert s["median"] == pytest.approx(1.05) and s["mean"] > 100
    assert s["failure_rate"] == pytest.approx(1 / 5) and s["max"] == 500.0
    assert {"p90", "failure_rate", "median"} <= set(summarise(pd.DataFrame(rows), "l2").columns)
    assert FAILURE_MULTIPLE == 3.0


def test_oracle_never_starred_or_ranked(oracle_frame: pd.DataFrame) -> None:
    _fig, data = error_figure(oracle_frame, x="budget", metric="l2")
    best = data[(data["kind"] == "estimator") & data["best"].astype(bool)]
    assert set(best["estimator"]) <= {"plan", "gaussian_private"} and len(best) == 3
    t = regret_table(oracle_frame, "l2")
    assert set(t["estimator"]) == {"plan", "gaussian_private"}
    assert "oracle" not in headline(oracle_frame, metric="l2", at=0.5)


def test_floor_is_the_empirical_median(oracle_frame: pd.DataFrame) -> None:
    """The floor is the same statistic (median) of the same runs as the non-private mean's line, so it
    never sits above that line (an RMS floor once sat at 0.909, above the mean's 0.72)."""
    fig, _ = error_figure(oracle_frame, x="budget", metric="l2", theory_curves=False)
    traces = {t.name: t for t in fig.data if t.mode and "lines" in t.mode and t.name}
    floor = np.asarray(traces[FLOOR_NAME].y, float)
    emp = np.asarray(traces[get("empirical").label].y, float)
    assert np.allclose(floor, emp, rtol=1e-12)


def test_bands_are_light(oracle_frame: pd.DataFrame) -> None:
    fig, _ = error_figure(oracle_frame, x="budget", metric="l2", theory_curves=False)
    fills = [t.fillcolor for t in fig.data if getattr(t, "fill", None) == "toself"]
    assert fills and all(float(f.rsplit(",", 1)[1].rstrip(")")) <= 0.08 for f in fills)


def test_warning_markers_where_runs_blow_up() -> None:
    errs = [1.0, 1.1, 0.9, 1.05, 500.0]
    rows = [
        {
            "estimator": "plan",
            "name": "plan",
            "label": "P",
            "color": "#08519c",
            "notion": "zcdp",
            "family": "x",
            "setting": 0,
            "n": 10,
            "d": 1,
            "skew": 0.0,
            "budget": b,
            "err_l2": e,
            "sampling_l2": 0.5,
            "clipping_l2": 0.0,
            "noise_l2": e,
            "failed": "",
            "warnings": "",
            "seconds": 0.0,
            "rep": i,
        }
        for i, e in enumerate(errs)
        for b in (1.0,)
    ]
    rows += [{**r, "budget": 2.0, "setting": 1, "err_l2": 1.0} for r in rows]
    f = pd.DataFrame(rows)
    fig, _ = error_figure(
        f,
        x="budget",
        metric="l2",
        theory_curves=False,
        config=ExperimentConfig(n=10, d=1, estimators=["plan"], sweep={"budget": [1.0, 2.0]}),
    )
    marks = [t for t in fig.data if t.name == "warning or blow-up"]
    assert len(marks) == 1 and list(marks[0].x) == [1.0]
    assert "20% of runs far off (> 3×" in marks[0].text[0]
    assert "worst 476× the median" in marks[0].text[0]


def test_regret_within_one_guarantee() -> None:
    cfg = ExperimentConfig(
        distribution="bounded",
        n=300,
        d=1,
        unit="eps",
        budget=1.0,
        repetitions=4,
        seed=2,
        estimators=["simplex_laplace", "plugin_laplace", "sum_known_n_laplace_replace"],
        sweep={"budget": [0.5, 1.0]},
    )
    t = regret_table(run(cfg), "l2")
    groups = dict(t.groupby("guarantee")["estimator"].apply(set))
    assert groups == {
        "pure ε-DP, add-remove": {"simplex_laplace", "plugin_laplace"},
        "pure ε-DP, replace-one": {"sum_known_n_laplace_replace"},
    }
    assert t.loc[t["estimator"] == "sum_known_n_laplace_replace", "rank"].item() == 1
    assert sorted(t.loc[t["guarantee"] == "pure ε-DP, add-remove", "rank"]) == [1, 2]
    assert "side by side" in headline(run(cfg), metric="l2", unit="eps")


def test_ledger_stage_colours_unique() -> None:
    stages = [f"stage {i}" for i in range(60)]
    assert len(set(stage_colors(stages).values())) == 60


def test_the_budget_split_colours_stages_by_role_and_names_each_segment() -> None:
    """Eleven stages of four estimators in five colours (one per role), not eleven: each segment
    carries its stage's name, and the legend lists each role once."""
    stages = [
        "variances", "centre (coordinate medians)", "clip radius", "noisy sum",
        "centre: l2 spread", "centre (CoinPress)", "upper quantile: threshold",
        "upper quantile: queries", "lower quantile: threshold", "lower quantile: queries",
        "winsorized mean: Gaussian noise", "noisy count",
    ]  # fmt: skip
    df = pd.DataFrame(
        {"estimator": "A", "stage": stages, "spent": 1.0, "unit": "ρ", "share": 1 / len(stages)}
    )
    fig = ledger_chart(df)
    colors = {t.marker.color for t in fig.data}
    assert len(colors) <= 5, colors
    assert [t.text[0] for t in fig.data] == stages
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert len(legend) == len(set(legend)) == len(colors)


def test_target_figure_axis_and_words() -> None:
    """Near-equal needs: an axis over at least a decade, 'about the same', never '1 times'."""
    need = pd.DataFrame(
        {
            "estimator": ["a", "b"],
            "label": ["A", "B"],
            "private": [True, True],
            "budget_needed": [0.124906, 0.125039],
            "note": ["", ""],
        }
    )
    fig, _ = target_figure(need, "budget", 0.5, "l2", {"a": "#000000", "b": "#111111"})
    lo, hi = fig.layout.xaxis.range
    assert hi - lo >= 1
    assert fig.data[0].cliponaxis is False
    words = target_sentence(need, "budget", 0.5, "l2")
    assert "1 times" not in words and "about the same" in words
    floor = need.assign(note=["already at budget = 0.125 (the sweep's smallest)"] * 2)
    assert "≤" in target_sentence(floor, "budget", 0.5, "l2")
    oracle_first = pd.DataFrame(
        {
            "estimator": ["o", "b"],
            "label": ["Oracle", "B"],
            "private": [False, True],
            "budget_needed": [0.1, 0.5],
            "note": ["", ""],
        }
    )
    assert "**B**" in target_sentence(oracle_first, "budget", 0.5, "l2")


def test_binary_headline_against_every_baseline() -> None:
    labels = {
        "pde": "PureDPPDE",
        "naive": "naive Laplace",
        "truncated": "truncated Laplace",
        "empirical": "np",
    }
    text = tv_headline(
        {"pde": 0.039, "naive": 0.090, "truncated": 0.020, "empirical": 0.01}, labels
    )
    assert text.startswith("On this dataset **truncated Laplace**") and "PureDPPDE 0.039" in text
    summary = pd.DataFrame(
        {
            "n": [1, 1, 2, 2],
            "estimator": ["binary_pde", "binary_truncated_laplace"] * 2,
            "tv_mean": [0.5, 0.2, 0.1, 0.3],
        }
    )
    words = sweep_winners(summary, "n")
    assert "at n = 1" in words and "at n = 2" in words


def test_separation_light() -> None:
    target = 16 * np.log(100 * 3 / 0.1)
    assert list(separation_light([target + 1, target - 1, SEPARATION_WARN + 0.1, 2.0], 100, 3)) == [
        "green",
        "amber",
        "amber",
        "red",
    ]
