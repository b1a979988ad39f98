"""Every chart the pages send is plotly's own JSON: each ``st.plotly_chart`` spec of each page at
its default settings is a figure plotly accepts as it is (``go.Figure(spec)`` validates every
property, so a misspelt property or a value plotly would refuse, in a figure or in a kept dict drawn
again, fails here), and a figure kept in a cache sends the same bytes when drawn again, made once.
"""

from __future__ import annotations

import json

import plotly.graph_objects as go
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


@pytest.mark.parametrize("page", PAGES)
def test_every_chart_sent_is_a_figure_plotly_accepts(page, monkeypatch):
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
    st.cache_data.clear()
    st.cache_resource.clear()
    at = open_page(f"pages/{page}.py", QUERY, timeout=240, check=True)
    specs = [chart.proto.spec for chart in at.get("plotly_chart")]
    assert specs, f"{page} drew no chart"
    for k, spec in enumerate(specs):
        sent = json.loads(spec)
        again = json.loads(go.Figure(sent).to_json())  # raises on anything plotly refuses
        assert again["data"] == sent["data"], f"{page}, chart {k}: plotly rewrote its traces"


def test_kept_figures_send_the_same_json_when_drawn_again_without_rebuilding_it(monkeypatch):
    """PLAN step by step keeps its figures (style.keep): drawn again (a rerun, or another student on
    the same link) each sends the JSON it sent the first time, made once."""
    monkeypatch.setenv("DPMEAN_WORKERS", "0")
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


def test_remembered_makes_once_only_for_kept_figures():
    made: list[str] = []
    kept, plain = style_mod.keep(go.Figure()), go.Figure()
    for _ in range(3):
        style_mod.remembered(kept, "k", lambda: made.append("kept"))
        style_mod.remembered(plain, "k", lambda: made.append("plain"))
    assert made.count("kept") == 1 and made.count("plain") == 3
    style_mod.remembered(kept, "other", lambda: made.append("kept"))
    assert made.count("kept") == 2
