"""The last visual items of the lecture review, as figure properties a test can read without a
browser (the browser's view of them: tests/e2e/test_visual_polish_browser.py):

- Your data's dots chart names every estimator on its y axis, also in presenter mode: plotly's
  automatic ticks on a category axis skip every other label once the labels are taller than a row
  (projector text on a 720-px screen), so the ticks are listed explicitly.
"""

from __future__ import annotations

import pandas as pd

from dpcore.figures.style import for_projector
from dpcore.figures.your_data import dots_chart


def _summary(rows: int = 12) -> pd.DataFrame:
    half = rows // 2
    return pd.DataFrame(
        {
            "estimator": [f"Estimator number {k} (ρ)" for k in range(rows)],
            "median": [0.01] * rows,
            "low": [0.008] * rows,
            "high": [0.012] * rows,
            "rank": [0.01] * rows,
            "runs": [10] * rows,
            "name": [f"e{k}" for k in range(rows)],
            "color": ["#111111"] * rows,
            "guarantee": ["ρ-zCDP, replace-one"] * half + ["pure ε-DP, add-remove"] * (rows - half),
            "library": [False] * rows,
        }
    )


def test_your_data_dots_name_every_row_in_presenter_mode() -> None:
    for column in (None, "income"):
        fig = dots_chart(_summary(), column=column).to_dict()
        for spec in (fig, for_projector(fig, 1.0), for_projector(fig, 1.25)):
            axis = spec["layout"]["yaxis"]
            cats = list(axis["categoryarray"])
            assert axis["tickmode"] == "array"
            assert sorted(axis["tickvals"]) == sorted(cats)  # every estimator and header named
            assert list(axis["ticktext"]) == list(axis["tickvals"])
