"""Figures of the Your data page: the dots chart groups estimators by guarantee and marks the
libraries, the single-column view draws the raw and clipped means apart, and the sentences state
the numbers they are given (and refuse to name a winner when every estimate is far off)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.figures.your_data import (
    clipping_summary,
    dots_chart,
    dots_sentence,
    remeasure_chart,
    remeasure_table,
    share,
)


def _summary() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "estimator": ["A", "B", "C", "Lib"],
            "median": [0.01, 0.02, 0.005, 0.03],
            "low": [0.008, 0.015, 0.004, 0.02],
            "high": [0.012, 0.03, 0.006, 0.04],
            "rank": [0.01, 0.02, 0.005, 0.03],
            "runs": [10, 10, 10, 10],
            "name": ["a", "b", "c", "lib"],
            "color": ["#111111", "#222222", "#333333", "#444444"],
            "guarantee": ["ρ-zCDP, replace-one"] * 2 + ["pure ε-DP, add-remove"] * 2,
            "library": [False, False, False, True],
        }
    )


def test_dots_are_grouped_by_guarantee_and_libraries_are_diamonds() -> None:
    fig = dots_chart(_summary()).to_dict()
    cats = list(fig["layout"]["yaxis"]["categoryarray"])[::-1]
    assert cats == [
        "<b>ρ-zCDP, replace-one</b>",
        "A",
        "B",
        "<b>pure ε-DP, add-remove</b>",
        "C",
        "Lib",
    ]
    dots = [t for t in fig["data"] if t.get("x") is not None and any(v is not None for v in t["x"])]
    symbols = {y: t["marker"]["symbol"] for t in dots for y in t["y"]}
    assert symbols == {"A": "circle", "B": "circle", "C": "circle", "Lib": "diamond"}
    a = next(t for t in dots if "A" in list(t["y"]))
    i = list(a["y"]).index("A")
    assert a["x"][i] == pytest.approx(1.0)  # percent of the range
    assert a["error_x"]["array"][i] == pytest.approx(0.2)
    assert fig["layout"]["xaxis"]["type"] == "log"


def test_one_column_draws_the_raw_and_the_clipped_mean() -> None:
    fig = dots_chart(_summary(), column="income", shift=-30_000.0).to_dict()
    assert sorted(s["x0"] for s in fig["layout"]["shapes"]) == [-30_000.0, 0.0]
    assert "income" in fig["layout"]["xaxis"]["title"]["text"]


def test_sentences_state_their_numbers() -> None:
    s = _summary()
    words = dots_sentence(s, spread=0.5)
    assert "**A** lands closest" in words and "**C** lands closest" in words
    assert "a median 1% of each column's range" in words and "a median 0.5%" in words
    assert "not ranked against each other" in words
    far = dots_sentence(s, spread=0.001)
    assert "bounds are probably wrong" in far and "**A**" not in far
    money = dots_sentence(
        s.assign(rank=[1200.0, 2000.0, 900.0, 3000.0]), column="income", shift=-30614.6, spread=1e6
    )
    assert "a median $1,200 in income" in money and "moved the mean by -$30,615" in money


def test_clipping_summary_names_only_the_columns_clipping_moved() -> None:
    clip = pd.DataFrame(
        {
            "column": ["age", "income"],
            "lower": [0.0, 0.0],
            "upper": [100.0, 250_000.0],
            "clipped_share": [0.0, 0.003],
            "raw_mean": [40.0, 90_000.0],
            "clipped_mean": [40.0, 60_000.0],
            "shift": [0.0, -30_000.0],
        }
    )
    text = clipping_summary(clip)
    assert text.splitlines() == [
        "- 0.3% of income values lie outside [$0, $250,000] and were clipped; this moved the "
        "mean by -$30,000.",
        "- No value of the other column lies outside its bounds.",
    ]
    none = clipping_summary(clip.assign(clipped_share=0.0, shift=0.0))
    assert none.startswith("No value of the 2 columns lies outside their bounds")
    assert share(0.5) == "50%"


def test_remeasure_table_and_chart() -> None:
    rows = [
        ("release 1", np.array([40.2, 61_000.0]), np.array([1.0, 900.0])),
        ("combined", np.array([40.1, 60_500.0]), np.array([0.7, 640.0])),
    ]
    table = remeasure_table(["age", "income"], rows)
    assert table.to_dict("records") == [
        {"release": "release 1", "age": "40.2 ± 1.0", "income": "$61,000 ± $900"},
        {"release": "combined", "age": "40.10 ± 0.70", "income": "$60,500 ± $640"},
    ]
    fig = remeasure_chart(
        "income", ["release 1", "combined"], np.array([1.0, 2.0]), np.array([0.5, 0.3])
    ).to_dict()
    assert list(fig["data"][0]["y"]) == ["release 1", "combined"]
    assert list(fig["data"][0]["error_x"]["array"]) == [0.5, 0.3]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"column": "income", "shift": -30_000.0}, {"column": "age", "shift": 0.0}],
    ids=["range", "units with clipping", "units, no clipping"],
)
def test_dots_chart_as_a_dict_is_plotlys_figure(kwargs) -> None:
    """The page draws the dots chart as plotly's dict (no validation pass): the same JSON as the
    go.Figure the notebook builds, log axis tidied as pages._ui.chart tidies a figure's, and
    plotly takes it as it is."""
    import plotly.graph_objects as go

    from dpcore.figures.dict_figure import chart_dict
    from dpcore.figures.style import tidy_log_axes
    from tests.figures._chart_json import as_numbers

    for summary in (_summary(), _summary().iloc[:3]):  # with and without a library
        fig = dots_chart(summary, **kwargs)
        chart = chart_dict(dots_chart, summary, **kwargs)
        assert isinstance(chart, dict)
        assert as_numbers(chart) == as_numbers(tidy_log_axes(fig).to_dict())
        go.Figure(chart)  # raises on an invalid property
