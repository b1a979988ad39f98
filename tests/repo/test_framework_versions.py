"""Plotly and Streamlit: the minor versions the app is tested with, and what it relies on them for.

``pyproject.toml`` pins both to one minor release. A newer minor may change behaviour the app
counts on without a line of the app changing; these tests fail loudly then, and say what to
re-check before the pin is moved:

- the versions installed are the pinned minors;
- the public behaviour relied on still holds (a figure's ``to_dict`` layout, the panel names
  ``get_subplot`` gives, ``st.plotly_chart`` sending a figure's ``to_dict``, ``st.navigation``
  switching off the legacy ``pages/`` mode);
- no framework internals are used: no private Plotly name appears in dpcore/, pages/ or app.py,
  and the public behaviour dpcore.figures.style builds on still holds (a trace as a dict, a
  subplot grid copied with ``go.Figure(fig)``, ``make_subplots(figure=...)``); Streamlit's
  internals are none either (tests/core/test_pool_streamlit.py pins the public behaviour the
  worker pool relies on).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import numpy as np
import plotly
import plotly.graph_objects as go
import pytest
import streamlit as st
from packaging.requirements import Requirement
from packaging.version import Version
from plotly.subplots import make_subplots

ROOT = Path(__file__).resolve().parents[2]

RECHECK = (
    "Before moving the pin in pyproject.toml, re-check: tests/figures/test_figures*.py and "
    "tests/pages/test_chart_json.py (the JSON every page sends), tests/pages/test_shell.py "
    "(navigation), a shared page link opened first on a fresh server "
    "(REQUIRE_BROWSER=1 pytest tests/e2e/test_state_browser.py), tests/core/test_pool_streamlit.py "
    "(a session-state read stops a run asked to stop) and the behaviour pinned in "
    "tests/repo/test_framework_versions.py."
)


def _pin(name: str) -> Requirement:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return next(r for r in map(Requirement, deps) if r.name == name)


@pytest.mark.parametrize(("name", "module"), [("plotly", plotly), ("streamlit", st)])
def test_installed_versions_are_the_pinned_minors(name, module):
    installed = Version(module.__version__)
    pin = _pin(name)
    assert pin.specifier.contains(installed), (
        f"{name} {installed} is installed; pyproject.toml pins {pin}. {RECHECK}"
    )
    lows = [Version(s.version) for s in pin.specifier if s.operator == ">="]
    highs = [Version(s.version) for s in pin.specifier if s.operator == "<"]
    assert lows and highs, f"{name}: pin it to one minor (>=X.Y,<X.Y+1), not {pin}"
    assert highs[0].release[:2] == (lows[0].major, lows[0].minor + 1), (
        f"{name}: the pin {pin} spans more than one minor release"
    )


def test_figure_dict_has_the_layout_the_app_sends():
    """``to_dict`` is what ``st.plotly_chart`` sends and what the caches keep: data and layout,
    numpy arrays as typed arrays (``dtype`` + ``bdata``, which
    :func:`dpcore.figures.style.in_plotly_order` leaves in their order)."""
    fig = go.Figure(go.Scatter(x=np.arange(3.0), y=[1, 2, 3], line=dict(width=2, color="red")))
    spec = fig.to_dict()
    assert set(spec) == {"data", "layout"}, f"to_dict keys changed: {sorted(spec)}. {RECHECK}"
    assert set(spec["data"][0]["x"]) >= {"dtype", "bdata"}, f"typed arrays changed. {RECHECK}"
    assert list(spec["data"][0]["line"]) == ["color", "width"], f"key order changed. {RECHECK}"


def test_get_subplot_names_the_axes_of_a_panel():
    fig = make_subplots(rows=2, cols=2)
    panel = fig.get_subplot(2, 2)
    assert (panel.xaxis.plotly_name, panel.yaxis.plotly_name) == ("xaxis4", "yaxis4"), RECHECK


def test_plotly_chart_sends_a_figures_to_dict():
    """:class:`dpcore.figures.style.PreparedFigure` hands ``st.plotly_chart`` a kept dict through
    ``to_dict``; if Streamlit stops asking for it, the kept JSON is no longer what is sent."""
    from dpcore.figures.style import PreparedFigure

    asked: list[int] = []

    class Counting(PreparedFigure):
        def to_dict(self) -> dict:
            asked.append(1)
            return super().to_dict()

    st.plotly_chart(Counting(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])).to_dict()))
    assert asked, f"st.plotly_chart no longer calls the figure's to_dict. {RECHECK}"


def test_navigation_still_switches_off_the_pages_folder():
    """pages._ui relies on it: a page run alone (legacy ``pages/`` mode) calls ``st.navigation``
    and reruns into app.py."""
    doc = " ".join((st.navigation.__doc__ or "").split())
    assert "your app will ignore the ``pages/`` directory" in doc, (
        f"st.navigation's documented effect on the pages/ folder changed. {RECHECK}"
    )
    assert callable(st.runtime.exists) and callable(st.rerun)


#: Plotly's private names (``_validate`` switches validation off, ``_grid_ref``/``_grid_str`` and
#: ``_data_validator`` are a figure's internals): none may appear in the app's code.
PLOTLY_PRIVATE = re.compile(r"\b_(validate|grid_ref|grid_str|data_validator|props)\b")


def test_no_private_plotly_names_in_the_code():
    files = [
        ROOT / "app.py",
        *sorted((ROOT / "dpcore").rglob("*.py")),
        *(ROOT / "pages").glob("*.py"),
    ]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PLOTLY_PRIVATE.search(line)
    ]
    assert not found, f"private plotly names in {found}: use plotly's public API"


def test_a_trace_may_be_a_dict_with_its_type():
    """dpcore.figures.style.trace hands plotly dicts: the same JSON as the trace object."""
    props = dict(x=np.arange(3.0), y=[1, 2, 3], mode="lines", line=dict(width=2, color="red"))
    from_dict = go.Figure().add_trace({"type": "scatter", **props})
    from_object = go.Figure().add_trace(go.Scatter(**props))
    assert from_dict.to_json() == from_object.to_json(), RECHECK


def test_a_copied_subplot_figure_keeps_its_grid():
    """dpcore.figures.style.subplots builds a grid once (``make_subplots(figure=...)``) and copies
    it with ``go.Figure(grid)``: the copy must know its panels (``add_trace(row=, col=)``) and be
    make_subplots' figure."""
    kwargs = dict(rows=1, cols=2, subplot_titles=["a", "b"])
    grid = make_subplots(figure=go.Figure(layout={"template": {}}), **kwargs)
    copy = go.Figure(grid)
    copy.add_trace(go.Scatter(x=[1], y=[2]), row=1, col=2)
    assert copy.data[0].xaxis == "x2", f"go.Figure(fig) no longer carries the grid. {RECHECK}"
    ref = make_subplots(**kwargs)
    ref.layout.template = copy.layout.template
    ref.add_trace(go.Scatter(x=[1], y=[2]), row=1, col=2)
    assert json.loads(copy.to_json()) == json.loads(ref.to_json()), RECHECK


def test_every_download_button_leaves_the_page_alone():
    """A download button built on click (a callable) that also reruns the page races its own
    rerun: the rerun registers a new callable and the clicked one can be dropped before it runs,
    so on a busy server the click downloads nothing. Every download button in the app therefore
    says ``on_click="ignore"`` (a download changes nothing the page shows)."""
    import ast

    missing = []
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "download_button"
            ):
                kw = {k.arg: k.value for k in node.keywords}
                val = kw.get("on_click")
                if not (isinstance(val, ast.Constant) and val.value == "ignore"):
                    missing.append(f"{path.name}:{node.lineno}")
    assert not missing, f"download buttons without on_click='ignore': {missing}"
