"""Compare's "What each estimator needs": a dot plot on its log axis, never bars (a bar's length on a
log axis starts at an arbitrary edge, e.g. 0.01)."""

from __future__ import annotations

import pandas as pd

from dpcore.figures.compare import target_figure


def test_needs_are_dots_with_their_values_beside_them() -> None:
    need = pd.DataFrame(
        {
            "estimator": ["a", "b", "c"],
            "label": ["A", "B", "C"],
            "private": [True, True, True],
            "budget_needed": [0.05, 0.3, None],
            "note": ["", "", "never within the sweep"],
        }
    )
    fig, _ = target_figure(need, "budget", 0.5, "l2", {"a": "#000000", "b": "#111111"})
    assert [t.type for t in fig.data] == ["scatter"], [t.type for t in fig.data]
    dots = fig.data[0]
    assert dots.mode == "markers+text" and list(dots.y) == ["A", "B"]
    assert list(dots.marker.color) == ["#000000", "#111111"]
    assert fig.layout.xaxis.type == "log"
