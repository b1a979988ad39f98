"""The last visual items of the lecture review, as figure properties a test can read without a
browser (the browser's view of them: tests/e2e/test_visual_polish_browser.py):

- Your data's dots chart names every estimator on its y axis, also in presenter mode: plotly's
  automatic ticks on a category axis skip every other label once the labels are taller than a row
  (projector text on a 720-px screen), so the ticks are listed explicitly.
- Binary product's ladder leaves room between its panels for the lower panel's title (two lines
  on a phone, projector text on a 720-px slide): at a gap of 0.08 of the plot the title sat over
  the upper panel's lowest dots on a phone.
- Its τ labels step leftwards by a label's width in px: as a share of the panel's width (0.045)
  the step was narrower than a label on a phone's 300-px panel and the labels stacked.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from dpcore.figures.binary_product import ladder_figure
from dpcore.figures.phone import for_phone
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


def _ladder() -> dict:
    n = 300
    groups = ["T1"] * 10 + ["T2"] * 20 + ["T3"] * 30 + ["final"] * 240
    df = pd.DataFrame(
        {
            "rank": np.arange(1, n + 1),
            "p": np.geomspace(0.3, 1e-5, n),
            "group": groups,
            "noise_std_pde": np.full(n, 1e-3),
            "noise_std_naive": np.full(n, 2e-3),
        }
    )
    rounds = [{"tau": t} for t in (0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002)]
    return ladder_figure(df, rounds).to_dict()


@pytest.mark.parametrize(
    ("where", "height", "legend_px"),
    [
        ("phone", None, 3 * 29),  # its figure's height; five entries in three rows over the plot
        ("1280x720", 720 - 18 * 16 - 29, 2 * 25),  # the slide's chart block (pages/_present.py)
        ("1920x1080", 1080 - 18 * 16 - 43, 2 * 30),
    ],
)
def test_binary_ladder_leaves_room_for_the_lower_panel_title(where, height, legend_px) -> None:
    fig = _ladder()
    if where == "phone":
        spec = for_phone(fig)
    else:
        spec = for_projector(fig, 1.0 if where == "1280x720" else 1.25)
    layout = spec["layout"]
    margin = layout["margin"]
    plot = (height or layout["height"]) - margin["t"] - margin["b"] - legend_px
    gap = (layout["yaxis"]["domain"][0] - layout["yaxis2"]["domain"][1]) * plot
    lower = min(
        (a for a in layout["annotations"] if a.get("yref") == "paper"), key=lambda a: a["y"]
    )
    lines = lower["text"].count("<br>") + 1
    needed = lines * lower["font"]["size"] * 1.3 + 4  # its lines, and air above the panel
    assert gap >= needed, f"{where}: {gap:.0f} px between the panels, the title needs {needed:.0f}"


def test_binary_tau_labels_step_by_a_label_width() -> None:
    taus = [a for a in _ladder()["layout"]["annotations"] if str(a["text"]).startswith("τ")]
    assert len(taus) == 7
    # where each label's right edge sits, in px left of the panel's right edge, on any width
    steps = sorted(-a.get("xshift", 0) + (1 - a["x"]) * 300 for a in taus)  # a phone's panel
    widest = max(len(a["text"]) for a in taus) * 20 * 0.6  # at projector size (20 px text)
    assert all(b - a >= widest for a, b in itertools.pairwise(steps))


def test_binary_tau_labels_use_full_size_digits() -> None:
    """τ₁'s subscript digits drew at about half the 16-px text in presenter mode: a room could not
    read which round a line was."""
    taus = [a["text"] for a in _ladder()["layout"]["annotations"] if str(a["text"]).startswith("τ")]
    assert taus == [f"τ{r}" for r in range(1, 8)]


def _runs(error: float) -> pd.DataFrame:
    """Ten runs of two estimators on the column ``wage``, each ``error`` from the clipped mean."""
    return pd.DataFrame(
        {
            "estimator": ["A"] * 10 + ["B"] * 10,
            "run": list(range(10)) * 2,
            "column": ["wage"] * 20,
            "error_clipped": [error] * 10 + [2 * error] * 10,
        }
    )


@pytest.mark.parametrize(
    ("shift", "error", "bias", "noise"),
    [(12.34, 0.82, "$12.34", "$0.82"), (520.3, 756.9, "$520", "$757"), (-3.5, 41.0, "$4", "$41")],
)
def test_your_data_box_says_bias_and_noise_in_one_unit_and_rounding(shift, error, bias, noise):
    from dpcore.privacy import Budget
    from dpcore.views.your_data_words import box_words

    text = box_words(_runs(error), "wage", Budget.zcdp(0.5), 1e-6, shift).text
    assert f"moved the mean of wage by {bias} (a bias" in text, text
    assert f"the noise adds about ±{noise}." in text, text
    assert "of the truth (in dollars)" in text, text  # the first sentence's number is in dollars


def test_your_data_box_says_clipping_did_not_move_the_mean():
    from dpcore.privacy import Budget
    from dpcore.views.your_data_words import box_words

    text = box_words(_runs(0.82), "wage", Budget.zcdp(0.5), 1e-6, 0.0).text
    assert "clipping did not move its mean; the noise adds about ±$0.82." in text, text
    assert "by $0 " not in text, text


def _log_table_app() -> None:
    import streamlit as st

    from pages._tables import data_table

    st.session_state["_narrow_window"] = True  # a phone's window (pages/_phone.NARROW)
    rows = [{"time": "t0", "action": "release", "amount": 0.5, "detail": "ρ = 0.5"}]
    data_table(rows, hide_index=True)


def test_a_log_of_records_is_a_table_on_a_phone():
    """Your data's release panel shows the odometer's log (a list of records) with
    pages/_tables.data_table: on a phone that was ``list.style``, an AttributeError over the page."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_log_table_app).run(timeout=60)
    assert not at.exception, at.exception
    assert any("release" in h.body for h in at.get("html")) or any(
        "release" in m.value for m in at.markdown
    )
