"""Plotly and Streamlit: the minor versions the app is tested with, and what it relies on them for.

``pyproject.toml`` pins both to one minor release. A newer minor may change behaviour the app
counts on without a line of the app changing; these tests fail loudly then, and say what to
re-check before the pin is moved:

- the versions installed are the pinned minors;
- the public behaviour relied on still holds (a figure's ``to_dict`` layout, the panel names
  ``get_subplot`` gives, ``st.plotly_chart`` sending a figure's ``to_dict``, ``st.navigation``
  switching off the legacy ``pages/`` mode);
- the few framework internals still used (listed in :data:`PLOTLY_INTERNALS`, with where) are
  still there (Streamlit's are none: tests/core/test_pool_streamlit.py pins the public behaviour
  the worker pool relies on).
"""

from __future__ import annotations

import inspect
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

#: Plotly internals dpcore.figures.style (and slides.split_subplots, ``go.Figure(d, _validate=)``)
#: still use to skip validation, which has no public switch (the validated route costs about 3x
#: the CPU of a Compare figure), and to hand a cached subplot grid to a new figure: (object,
#: attribute).
PLOTLY_INTERNALS = [
    ("go.Figure", "_data_validator"),
    ("go.Figure", "_validate"),
    ("go.Figure", "_grid_ref"),
    ("go.Figure", "_grid_str"),
    ("go.Layout", "_validate"),
]

RECHECK = (
    "Before moving the pin in pyproject.toml, re-check: tests/figures/test_figures*.py and "
    "tests/pages/test_unvalidated_figures.py (figure JSON byte for byte), tests/pages/test_shell.py "
    "(navigation), a shared page link opened first on a fresh server "
    "(REQUIRE_BROWSER=1 pytest tests/e2e/test_state_browser.py), tests/core/test_pool_streamlit.py "
    "(a session-state read stops a run asked to stop) and the internals listed in "
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


@pytest.mark.parametrize(("owner", "attribute"), PLOTLY_INTERNALS)
def test_plotly_internals_still_used_are_there(owner, attribute):
    obj = go.Figure() if owner == "go.Figure" else go.Figure().layout
    assert hasattr(obj, attribute), (
        f"plotly {plotly.__version__}: {owner}.{attribute} is gone. {RECHECK}"
    )
    if attribute == "_data_validator":
        params = inspect.signature(type(obj._data_validator).validate_coerce).parameters
        assert "_validate" in params, f"validate_coerce lost _validate. {RECHECK}"
