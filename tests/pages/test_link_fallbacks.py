"""A link value that a budget or a setting refuses falls back to its default with a visible note,
on every page (the settings record, :func:`pages._sidebar.read_query`, and the link parser,
:func:`pages._url.url_state`); no page shows a traceback for it."""

from __future__ import annotations

import pytest

from pages._sidebar import DEFAULTS
from tests.pages._apptest import open_page

SMALL = {"n": "200", "d": "2"}


def _notes(at) -> str:  # noqa: ANN001
    return " ".join(w.value for w in at.warning)


@pytest.mark.parametrize(
    ("page", "value"),
    [
        ("pages/home.py", "0"),
        ("pages/home.py", "-0"),
        ("pages/plan_step_by_step.py", "0.0"),
        ("pages/plan_step_by_step.py", "-0"),
    ],
)
def test_delta_zero_in_a_link_falls_back_to_the_default_with_a_note(page, value):
    # audit 2026-11b F2: ?delta=0, -0 or 0.0 was an uncaught ValueError on every page
    at = open_page(page, {**SMALL, "delta": value}, timeout=180)
    assert not at.exception, at.exception
    assert at.session_state["delta"] == DEFAULTS.delta
    assert f"The link's delta = '{value}' was not used" in _notes(at)
    assert "strictly between 0 and 1" in _notes(at)


def test_a_refused_budget_in_a_link_runs_the_page_at_the_default_with_a_note():
    at = open_page("pages/simplex.py", {**SMALL, "unit": "eps", "budget_value": "1e-300"})
    assert not at.exception, at.exception
    assert at.session_state["budget_value"] == DEFAULTS.budget_value
    assert "epsilon must be between" in _notes(at) and not at.error
    # the visitor's own budget ends the note
    at.number_input(key="budget_value").set_value(1.0).run()
    assert "budget_value" not in _notes(at)


def test_a_refused_page_value_in_a_link_falls_back_with_a_note():
    at = open_page("pages/winsorized.py", {**SMALL, "wins_eta": "1e400"}, timeout=180)
    assert not at.exception, at.exception
    assert "The link's wins_eta = '1e400' was not used" in _notes(at)


def test_a_link_with_ten_thousand_parameters_opens_the_page_at_the_defaults():
    # Streamlit itself ignores a query string of more than 1,000 parameters (it logs it)
    query = {f"k{i}": str(i) for i in range(10_000)} | {**SMALL, "delta": "-0"}
    at = open_page("pages/home.py", query, timeout=180)
    assert not at.exception, at.exception
    assert at.session_state["n"] == DEFAULTS.n and at.session_state["delta"] == DEFAULTS.delta
