"""Tables with the current row highlighted (pages/_tables.py): the style sits on exactly the chosen
row, the marker says so in words, the visitor's setting lands on the right row of the Privacy
budget page's tables, and the page draws them so (AppTest)."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from dpcore.privacy import Budget
from dpcore.theory.risk import deployments_on_scale, odds_epsilon
from pages._tables import (
    CONVERSION_RHOS,
    HIGHLIGHT,
    MARK,
    YOURS,
    conversion_table,
    deployments_table,
    highlight_row,
    sig3,
)
from tests.pages._apptest import open_page


def _styled_rows(css: str) -> set[int]:
    """The rows a Styler's CSS gives the highlight (``#T_<uuid>_row<i>_col<j> {...}`` blocks)."""
    rows = set()
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", css.split("</style>")[0]):
        if "background-color" in body and "font-weight: bold" in body:
            rows |= {int(r) for r in re.findall(r"_row(\d+)_col\d+", selectors)}
    return rows


@pytest.mark.parametrize("chosen", [[2], [0], [4], [1, 3], []])
def test_the_style_and_the_marker_are_on_exactly_the_chosen_rows(chosen):
    df = pd.DataFrame({"rho": [0.01, 0.1, 0.5, 1.0, 2.0], "eps": [0.7, 2.3, 5.2, 7.8, 11.7]})
    mask = np.isin(np.arange(len(df)), chosen)
    styler = highlight_row(df, mask, "this run")
    assert _styled_rows(styler.to_html()) == set(chosen)
    data = styler.data
    assert list(data.columns) == [MARK, "rho", "eps"]
    assert set(np.flatnonzero(data[MARK] == "this run")) == set(chosen)
    assert (data.loc[~mask, MARK] == "").all()
    # every cell of the chosen row, the marker included, carries the style
    css = styler.to_html().split("</style>")[0]
    ctx = re.findall(r"_row(\d+)_col(\d+)", css)
    for r in chosen:
        assert {int(c) for rr, c in ctx if int(rr) == r} == set(range(data.shape[1]))
    assert (HIGHLIGHT.split(";")[0].split(": ")[1] in css) == bool(chosen)


def test_a_wrong_mask_is_refused_and_numbers_are_readable():
    df = pd.DataFrame({"error": [0.918765, 12345.6]})
    with pytest.raises(ValueError, match="one bool per row"):
        highlight_row(df, [True])
    html = highlight_row(df, [False, True]).to_html()
    assert "0.919" in html and "12,346" in html and "0.918765" not in html
    assert sig3(6.54e-5) == "0.0000654" and sig3(-2.5) == "-2.5"


@pytest.mark.parametrize(
    ("budget", "rho"),
    [
        (Budget.zcdp(0.5), 0.5),  # on the grid: that row, nothing added
        (Budget.zcdp(0.3), 0.3),  # off the grid: a row of its own, in order
        (Budget.pure(1.0), 0.5),  # ε-DP implies ε²/2-zCDP
        (Budget.pure(0.2), 0.02),
    ],
)
def test_conversion_table_marks_the_visitors_rho(budget, rho):
    table, mine = conversion_table(budget, 1e-6)
    assert mine.sum() == 1
    assert table["rho"][mine].item() == pytest.approx(rho)
    assert table["rho"].is_monotonic_increasing
    assert len(table) == len(CONVERSION_RHOS) + (0 if rho in CONVERSION_RHOS else 1)
    assert table["eps_pure"][mine].item() == pytest.approx(math.sqrt(2 * rho))


def test_an_eps_delta_budget_sits_on_the_row_that_converts_back_to_it():
    table, mine = conversion_table(Budget.approx(2.0, 1e-5), 1e-5)
    assert table["eps_cks"][mine].item() == pytest.approx(2.0, rel=1e-6)


@pytest.mark.parametrize("budget", [Budget.pure(0.1), Budget.zcdp(0.5), Budget.pure(50.0)])
def test_deployments_table_puts_your_budget_at_its_place(budget):
    rows = deployments_on_scale(1e-6)
    eps = odds_epsilon(budget, 1e-6).epsilon
    table, mine = deployments_table(rows, budget, eps)
    assert len(table) == len(rows) + 1 and mine.sum() == 1
    assert table["who"][mine].item() == "You"
    assert table["epsilon"].is_monotonic_increasing
    assert int(np.flatnonzero(mine)[0]) == sum(e < eps for _, e, _ in rows)


def _row_styles(df_element) -> set[int]:
    return _styled_rows(df_element.proto.arrow_data.styler.styles)


@pytest.mark.parametrize(
    ("query", "rho"),
    [({}, 0.5), ({"unit": "rho", "budget_value": "0.3"}, 0.3), ({"unit": "eps"}, None)],
)
def test_privacy_budget_page_marks_the_visitors_rows(query, rho):
    at = open_page("pages/privacy_budget.py", query, timeout=300)
    assert not at.exception and not at.error
    conv = next(d for d in at.dataframe if "eps_cks" in d.value.columns)
    marked = np.flatnonzero(conv.value[MARK] == YOURS)
    assert len(marked) == 1
    if rho is None:  # the sidebar's ε read as the ρ it implies
        eps = float(at.session_state["budget_value"])
        rho = eps**2 / 2
    assert conv.value["rho"].iloc[marked[0]] == pytest.approx(rho)
    assert _row_styles(conv) == {int(marked[0])}
    deps = next(d for d in at.dataframe if "source" in d.value.columns)
    mine = np.flatnonzero(deps.value[MARK] == YOURS)
    assert list(deps.value["who"].iloc[mine]) == ["You"]
    assert _row_styles(deps) == {int(mine[0])}


def test_your_data_remeasure_table_marks_the_combination_the_box_states():
    at = open_page(
        "pages/your_data.py",
        {"yd_run_mode": "release", "unit": "eps", "budget_value": "0.25"},
        timeout=300,
    )
    at.checkbox(key="yd_n_public").check().run()  # the default estimator is replace-one
    for _ in range(2):
        at.button(key="yd_release_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = next(d for d in at.dataframe if "release" in d.value.columns)
    combined = np.flatnonzero(table.value["release"] == "combined (inverse variance)")
    assert list(combined) == [2]
    assert _row_styles(table) == {2}


def test_mark_in_a_column_keeps_the_table_as_wide_and_the_data_as_it_is():
    df = pd.DataFrame({"label": ["A", "B", "C"], "regret": [1.0, 1.234567, 2.0]})
    styler = highlight_row(df, [False, True, False], "◀ here", mark_in="label")
    assert list(styler.data.columns) == ["label", "regret"]
    assert list(styler.data["label"]) == ["A", "B", "C"]
    html = styler.to_html()
    assert _styled_rows(html) == {1}
    assert "B  ◀ here" in html and html.count("◀ here") == 1 and "1.23" in html


def test_compare_ranking_highlights_the_estimator_the_box_names():
    at = open_page("pages/compare.py", timeout=300)
    assert not at.exception
    values = [m.value for m in at.markdown]
    text = values[values.index("**What this means for your organisation**") + 1]
    closest = re.match(r"With this budget, (.+?) came closest", text).group(1)
    ranking = at.dataframe[0]
    rows = set(np.flatnonzero(ranking.value["label"] == closest))
    assert len(rows) == 1 and _row_styles(ranking) == rows


def test_your_data_error_table_marks_the_estimator_the_box_names():
    at = open_page("pages/your_data.py", timeout=300)
    assert not at.exception and not at.error
    at.session_state["yd_error_table"] = True  # the table's expander opened
    at.run()
    assert not at.exception and not at.error
    values = [m.value for m in at.markdown]
    text = values[values.index("**What this means for your organisation**") + 1]
    closest = re.match(r"With this budget, (.+?) came closest", text).group(1)
    table = next(d for d in at.dataframe if "median" in d.value.columns)
    rows = set(np.flatnonzero(table.value["estimator"] == closest))
    assert len(rows) == 1 and _row_styles(table) == rows
