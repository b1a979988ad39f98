"""Every page's "This view as a notebook" reproduces the page: the notebook (dpcore.notebook) built
from the charts the page drew is executed by nbclient in a fresh Python kernel, and each figure it
draws has the same data, trace by trace, as the chart on the page at the same settings and seed.

One AppTest and one kernel per page take minutes on a loaded machine: ``make test`` runs the
pages in QUICK, ``make notebooks`` (``DPMEAN_NOTEBOOKS=1``) every page."""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import nbformat
import numpy as np
import plotly.io as pio
import pytest
from nbclient import NotebookClient

from dpcore.audit.low_bits import SAMPLERS
from dpcore.notebook import view_notebook
from pages._notebook import SHOWN
from pages._spec import PAGES
from pages._ui import Settings

pytestmark = pytest.mark.slow

PLOTLY_JSON = "application/vnd.plotly.v1+json"
#: the parts of a trace that carry its numbers
DATA_KEYS = ("x", "y", "z")
#: pages whose charts need an upload or a click first (checked by their own page tests)
NO_CHARTS_AT_DEFAULTS: set[str] = set()
#: pages checked by ``make test``: three quick ones (a plain chart, one with animations, and Home,
#: whose notebook calls the cached evidence's function at a fixed setting: a few seconds)
QUICK = {"pages/simplex.py", "pages/side_by_side.py", "pages/home.py"}
ALL_PAGES = os.environ.get("DPMEAN_NOTEBOOKS") == "1"
#: points drawn by the OS CSPRNG (a release's sampler), which no seed reproduces: chart name ->
#: the x value whose y is left out of the comparison (its x and every other point are compared)
UNSEEDED = {"float_lesson": SAMPLERS["safe"]}


def _decoded(value: Any) -> Any:
    """A plotly JSON value with its typed arrays (``{"dtype", "bdata"}``) as numpy arrays."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return out.reshape(value["shape"]) if "shape" in value else out
    return np.asarray(value, dtype=object) if isinstance(value, list) else value


def _traces(fig_json: dict, unseeded: str | None = None) -> list[dict]:
    """Each trace's x, y and z; with ``unseeded``, y at that x value is left out."""
    out = []
    for t in fig_json.get("data", []):
        trace = {k: _decoded(t[k]) for k in DATA_KEYS if k in t}
        if unseeded is not None and "x" in trace and "y" in trace:
            keep = np.asarray(trace["x"]).astype(str) != unseeded
            assert not keep.all(), f"no point at x = {unseeded!r}: update UNSEEDED"
            trace["y"] = np.asarray(trace["y"])[keep]
        out.append(trace)
    return out


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    try:
        return bool(
            np.allclose(a.astype(float), b.astype(float), rtol=1e-9, atol=0, equal_nan=True)
        )
    except (TypeError, ValueError):
        return bool(np.all(a.astype(str) == b.astype(str)))


def _figures_of(nb: Any) -> list[dict]:
    """The plotly figures the executed notebook drew, in order (one per chart cell)."""
    return [
        out["data"][PLOTLY_JSON]
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if PLOTLY_JSON in out.get("data", {})
    ]


def _run_notebook(text: str) -> Any:
    nb = nbformat.reads(text, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3").execute()
    return nb


def test_traces_leave_out_only_the_unseeded_points():
    fig = {"data": [{"x": ["a", "b"], "y": [1.0, 2.0]}, {"x": ["a", "b"], "y": [3.0, 4.0]}]}
    assert [list(t["y"]) for t in _traces(fig, "b")] == [[1.0], [3.0]]
    assert [list(t["y"]) for t in _traces(fig)] == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(AssertionError, match="no point"):
        _traces(fig, "c")
    assert not _same([1.0, 2.0], [1.0, 2.0 + 1e-6])


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param(
            p,
            marks=pytest.mark.skipif(
                not ALL_PAGES and p.path not in QUICK, reason="run by `make notebooks`"
            ),
        )
        for p in PAGES
    ],
    ids=lambda p: p.url_path or "home",
)
def test_the_notebook_of_every_page_reproduces_its_charts(open_page, spec):
    at = open_page(spec.path, {"seed": "3"}, timeout=300, check=True)
    charts = at.session_state[SHOWN]
    if spec.path in NO_CHARTS_AT_DEFAULTS:
        assert not charts
        return
    assert charts, f"{spec.title} drew no chart with code"
    drawn = at.session_state["_ui_charts"]
    settings = Settings(seed=3)
    nb = _run_notebook(view_notebook(spec.title, vars(settings), charts))
    figures = _figures_of(nb)
    assert len(figures) == len(charts), "every chart's cell ends by drawing its figure"
    for (name, _, _), got in zip(charts, figures, strict=True):
        want = json.loads(pio.to_json(drawn[name][0], validate=False))
        mine, theirs = _traces(got, UNSEEDED.get(name)), _traces(want, UNSEEDED.get(name))
        assert len(mine) == len(theirs), f"{name}: {len(mine)} traces, the page has {len(theirs)}"
        for i, (m, t) in enumerate(zip(mine, theirs, strict=True)):
            assert m.keys() == t.keys(), f"{name} trace {i}: {sorted(m)} vs {sorted(t)}"
            for key in m:
                assert _same(m[key], t[key]), f"{name} trace {i} {key} differs from the page"
