"""The "Privacy budget" page under streamlit.testing: the differencing-attack lesson (the exact
attack, the attack against a private release, the success against the budget, the link to the
audit), what a budget risks (belief, trade-off, published deployments) and the plain-language box,
whose numbers are the ones dpcore computes for the same settings; bad input is an st.error."""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.data import generate
from dpcore.experiments.attack import attack, differencing
from dpcore.experiments.plain import HEADING, plain_words
from dpcore.privacy import Budget
from dpcore.views.settings import DataSettings
from tests.pages._apptest import open_page

LESSON_CHARTS = {"attack_guesses", "attack_curve", "risk_posterior", "risk_tradeoff"}


def _page(query: dict[str, str] | None = None) -> AppTest:
    return open_page("pages/privacy_budget.py", query, timeout=180)


def _keys(at: AppTest) -> set[str]:
    return {str(c.key).removeprefix("chart-") for c in at.get("plotly_chart")}


def _text(at: AppTest) -> str:
    return "\n".join(md.value for md in at.markdown)


@pytest.mark.parametrize(
    ("query", "budget"),
    [
        ({}, Budget.zcdp(0.5)),
        ({"unit": "eps", "budget_value": "1.0"}, Budget.pure(1.0)),
        ({"unit": "eps_delta", "budget_value": "2.0"}, Budget.approx(2.0, 1e-6)),
    ],
)
def test_lessons_and_box_show_the_numbers_dpcore_computes(query, budget):
    at = _page(query)
    assert not at.exception and not at.error
    assert LESSON_CHARTS | {"risk_deployments"} <= _keys(at)
    streams = DataSettings().streams  # the sidebar's defaults: seed 0
    data = generate("gaussian", 2000, 32, 2.0, rng=streams.rng("data"))
    run = attack(data, budget, draws=2000, delta=1e-6, rng=streams.rng("display:attack"))
    words = plain_words(
        budget,
        np.abs(run.releases - run.truth),
        what="the average of the first column (2,000 people)",
    )
    text = _text(at)
    assert HEADING in text
    assert words.text in text
    exact = differencing(data)
    assert f"**{exact.recovered:.6g}**" in text and f"{exact.value:.6g}" in text
    assert f"{run.bound:.0%}" in text


def test_success_falls_with_the_budget_on_the_page():
    at = _page({"unit": "rho", "budget_value": "0.5"})
    sentence = next(md.value for md in at.markdown if md.value.startswith("Without noise"))
    low = int(re.search(r"\*\*(\d+)%\*\*", sentence).group(1))
    assert low < 56  # the smallest preset budget: about a coin flip


def test_the_audit_is_one_click_away():
    at = _page()
    links = at.get("page_link")
    assert [link.proto.page for link in links] == ["privacy_audit"]


def test_deployments_table_lists_sources():
    at = _page()
    tables = [df.value for df in at.dataframe]
    deployments = next(t for t in tables if "source" in t.columns)
    assert "US Census Bureau" in set(deployments["who"])
    published = deployments[deployments["who"] != "You"]  # the visitor's own row has no source
    assert published["source"].str.contains(r"\(20\d\d\)").all()
