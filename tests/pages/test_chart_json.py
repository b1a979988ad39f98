"""Every chart the pages draw is byte for byte the same whether plotly validates the figure objects
as the builders make them (the test suite's ``DPMEAN_VALIDATE_FIGURES=1``) or not (the app's
default, issue 18: validation was about half of a view's figure time).

Each page is run at its default settings twice in one process, with validation on and off
(:data:`dpcore.figures.style.VALIDATE` is read at call time) and every cache cleared in between, and
the JSON each ``st.plotly_chart`` sends is compared as a string. Validation coerces what it accepts
(a bare title string into ``{"text": ...}``, a pandas Series into an array, a tuple into a list) and
rejects a misspelt property, so a builder that relies on either fails here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import streamlit as st

from dpcore.figures import style as style_mod
from tests.pages._apptest import open_page

PAGES = [
    "home",
    "privacy_budget",
    "plan_step_by_step",
    "compare",
    "simplex",
    "winsorized",
    "your_data",
    "side_by_side",
]
QUERY = {"seed": "4242"}  # a seed no other page test uses, so no cache holds its figures


def _charts(page: str, validate: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(style_mod, "VALIDATE", validate)
    st.cache_data.clear()
    st.cache_resource.clear()
    at = open_page(f"pages/{page}.py", QUERY, timeout=240, check=True)
    return [chart.proto.spec for chart in at.get("plotly_chart")]


def _difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ (path and both values), for the failure message."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        diffs = (_difference(a[k], b[k], f"{path}.{k}") for k in a)
        return next((d for d in diffs if d), "")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        diffs = (
            _difference(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True))
        )
        return next((d for d in diffs if d), "")
    return "" if a == b and type(a) is type(b) else f"{path}: {a!r:.200} != {b!r:.200}"


@pytest.mark.parametrize("page", PAGES)
def test_charts_are_the_same_with_and_without_validation(page, monkeypatch):
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    validated = _charts(page, True, monkeypatch)
    as_built = _charts(page, False, monkeypatch)
    assert validated, f"{page} drew no chart"
    assert len(as_built) == len(validated)
    for k, (a, b) in enumerate(zip(as_built, validated, strict=True)):
        where = (
            "" if a == b else _difference(json.loads(a), json.loads(b)) or "key order or spacing"
        )
        assert a == b, f"{page}, chart {k}: unvalidated != validated at {where}"


def test_kept_figures_send_the_same_json_when_drawn_again_without_rebuilding_it(monkeypatch):
    """PLAN step by step keeps its figures (style.keep): drawn again (a rerun, or another student on
    the same link) each sends the JSON it sent the first time, made once (issue 18)."""
    import plotly.graph_objects as go

    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    monkeypatch.setattr(style_mod, "VALIDATE", False)
    st.cache_data.clear()
    st.cache_resource.clear()
    at = open_page("pages/plan_step_by_step.py", QUERY, timeout=240, check=True)
    first = [chart.proto.spec for chart in at.get("plotly_chart")]
    calls: list[int] = []
    to_dict = go.Figure.to_dict

    def counted(self: go.Figure) -> dict:
        calls.append(1)
        return to_dict(self)

    monkeypatch.setattr(go.Figure, "to_dict", counted)
    at.run()
    assert not at.exception, at.exception
    again = [chart.proto.spec for chart in at.get("plotly_chart")]
    assert again == first and len(first) >= 6
    assert calls == [], f"{len(calls)} figures rebuilt their JSON on the second view"


def test_remembered_makes_once_only_for_kept_figures(monkeypatch):
    import plotly.graph_objects as go

    monkeypatch.setattr(style_mod, "VALIDATE", False)
    made: list[str] = []
    kept, plain = style_mod.keep(go.Figure()), go.Figure()
    for _ in range(3):
        style_mod.remembered(kept, "k", lambda: made.append("kept"))
        style_mod.remembered(plain, "k", lambda: made.append("plain"))
    assert made.count("kept") == 1 and made.count("plain") == 3
    style_mod.remembered(kept, "other", lambda: made.append("kept"))
    assert made.count("kept") == 2
    monkeypatch.setattr(style_mod, "VALIDATE", True)  # the tests' default: always made
    style_mod.remembered(kept, "k", lambda: made.append("kept"))
    assert made.count("kept") == 3
