"""Compare's words and numbers (dpcore.figures.compare): chances in words, round targets, the
heavy-tails note and the far-off table a class reads."""

from __future__ import annotations

import pandas as pd
import pytest

from dpcore.experiments import ExperimentConfig
from dpcore.figures.compare import (
    FLOOR_NAME,
    OUTLIER_FLOOR_NAME,
    chance,
    far_off_view,
    floor_name,
    in_words,
    outliers_note,
    round_target,
)


@pytest.mark.parametrize(
    ("p", "words"),
    [
        (1e-6, "1 in a million"),
        (1e-9, "1 in a billion"),
        (1e-5, "1 in 100,000"),
        (5e-7, "1 in 2 million"),
        (0.001, "1 in 1,000"),
    ],
)
def test_chance_in_words(p: float, words: str) -> None:
    assert chance(p) == words


def test_scientific_notation_is_said_in_words() -> None:
    text = "(ε, δ) = (1, 1e-06) ⇒ ρ = 0.0244; δ = 1e-9"
    assert in_words(text) == "(ε, δ) = (1, 1 in a million) ⇒ ρ = 0.0244; δ = 1 in a billion"
    assert "e-" not in in_words(text)


@pytest.mark.parametrize(
    ("medians", "target"),
    [([0.7, 1.0, 1.6], 1.0), ([0.9, 1.028, 1.2], 1.0), ([0.03, 0.04], 0.05), ([180, 260], 200)],
)
def test_the_default_target_is_round(medians: list[float], target: float) -> None:
    assert round_target(medians) == target
    assert round_target([float("nan"), -1.0]) == 1.0


def test_heavy_tails_note_and_floor_name() -> None:
    dirty = ExperimentConfig(
        distribution="contaminated", n=500, d=4, budget=0.25, estimators=["plan"]
    )
    clean = ExperimentConfig(distribution="gaussian", n=500, d=4, budget=0.25, estimators=["plan"])
    data = pd.DataFrame(
        {"kind": ["floor", "floor"], "budget": [0.125, 0.25], "median": [3.0, 4.017]}
    )
    note = outliers_note(dirty, data)
    assert note is not None and "5% of the rows are outliers 20σ away" in note
    assert "(4.02 here)" in note and "no floor here" in note
    assert outliers_note(clean, data) is None
    assert (floor_name(dirty), floor_name(clean)) == (OUTLIER_FLOOR_NAME, FLOOR_NAME)


def test_far_off_view_is_readable() -> None:
    tails = pd.DataFrame(
        {
            "estimator": ["a", "b"],
            "label": ["A", "B"],
            "median": [0.91882, 12345.6],
            "failure_rate": [0.1234, 0.0],
            "worst_ratio": [5.9488, 1.0],
            "runs": [1200, 50],
        }
    )
    view = far_off_view(tails)
    assert list(view.columns) == [
        "estimator", "typical median error", "far-off runs", "worst run ÷ its median", "runs"
    ]  # fmt: skip
    assert view.iloc[0].tolist() == ["A", "0.919", "12%", "5.95×", "1,200"]
    assert view.iloc[1].tolist() == ["B", "12,300", "0%", "1×", "50"]


def test_budget_axis_labels_every_swept_point_and_both_ends() -> None:
    from dpcore.figures.compare import swept_ticks, x_title

    ticks = swept_ticks([0.0625, 0.125, 0.25, 0.5, 1.0, 0.25])
    assert ticks == {
        "tickvals": [0.0625, 0.125, 0.25, 0.5, 1.0],
        "ticktext": ["0.0625", "0.125", "0.25", "0.5", "1"],
    }
    assert swept_ticks(range(1, 20))["tickvals"] == [1, 2, 5, 10, 20]  # many values: 1-2-5 ticks
    title = x_title("budget", "eps")
    assert title.startswith("← more private") and title.endswith("less private →")
