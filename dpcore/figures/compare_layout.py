"""The layout of Compare's error chart as a plain dict: its panels, axes and house style.

Plotly validates every trace and every layout update a ``go.Figure`` takes (about 60 ms of the
Compare page's first view for its chart alone). The panels and the house style depend on the
facets' titles and the height only, so they are laid out by plotly once per process
(:func:`grid`, on :func:`~dpcore.figures.style.subplots` and :func:`~dpcore.figures.style.style`);
a chart is that layout with its axes set (:func:`set_axes`) and the traces
(:mod:`dpcore.figures.compare_traces`, already dicts) given their panel's axes: the JSON plotly
would write for the same figure (``tests/figures/test_compare_chart_dict.py``), built without
a validation pass. ``go.Figure(chart)`` validates it where a figure object is wanted.
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import numpy as np
import pandas as pd

from dpcore.figures.compare_text import budget_label
from dpcore.figures.style import axis_names, figure, log_ticks, plain, style, subplots

AXIS_LABEL = {"budget": "privacy budget", "n": "n (rows)", "d": "d (dimension)", "skew": "skew α"}


def x_title(x: str, unit: str) -> str:
    """The x axis's title; on a budget axis, which end is more private.

    >>> x_title("budget", "rho")
    '← more private · ρ (zCDP) · less private →'
    """
    if x == "budget":
        return f"← more private · {budget_label(unit)} · less private →"  # fits a phone
    return AXIS_LABEL[x]


def swept_ticks(values: Any) -> dict[str, list]:
    """Ticks at the swept values themselves (up to eight, written in full), so every point of
    the sweep has its label; more values fall back to 1–2–5 ticks
    (:func:`~dpcore.figures.style.log_ticks`)."""
    v = np.unique(np.asarray(values, dtype=float))
    v = v[np.isfinite(v) & (v > 0)]
    if not 0 < v.size <= 8:
        return log_ticks(v)
    return {"tickvals": v.tolist(), "ticktext": [plain(t) for t in v]}


@functools.lru_cache(maxsize=64)
def _laid_out(titles: tuple[str, ...], height: int) -> tuple[dict, tuple[tuple[str, str], ...]]:
    """The styled layout of ``len(titles)`` panels (up to four per row, titled when there are
    several) and each panel's axis references (``("x2", "y2")``), in the panels' order."""
    ncols = min(len(titles), 4)
    nrows = math.ceil(len(titles) / ncols)
    fig = subplots(
        styled=True,
        rows=nrows,
        cols=ncols,
        subplot_titles=list(titles) if len(titles) > 1 else None,
        shared_yaxes=False,
        horizontal_spacing=0.06,
        vertical_spacing=0.14,
    )
    style(fig, height=height if nrows == 1 else 360 * nrows)
    refs = tuple(
        tuple(name.replace("axis", "") for name in axis_names(fig, i // ncols + 1, i % ncols + 1))
        for i in range(len(titles))
    )
    return fig.to_dict()["layout"], refs  # type: ignore[return-value]


def grid(titles: list[str], height: int) -> tuple[dict, list[tuple[str, str]]]:
    """A new copy of the styled layout of one panel per title (titles shown when there are
    several; ``height`` for one row of panels, 360 per row otherwise) and each panel's
    ``(xaxis, yaxis)`` references for its traces."""
    layout, refs = _laid_out(tuple(titles), int(height))
    return copy.deepcopy(layout), [(str(a), str(b)) for a, b in refs]


@functools.lru_cache(maxsize=64)
def _styled(titled: bool) -> dict:
    """The layout of a figure of one panel with the house style, with a title (its text a
    placeholder) or without (its height, a plain number, is set by :func:`styled_layout`)."""
    return style(figure(styled=True), title="·" if titled else None).to_dict()["layout"]


def styled_layout(title: str | None, height: int) -> dict:
    """A new copy of the house layout (:func:`~dpcore.figures.style.style`) of a one-panel
    figure with ``title`` and ``height``, laid out by plotly once per process (the title's text,
    which may hold a seed's numbers, and the height are set in the copy)."""
    layout = copy.deepcopy(_styled(bool(title)))
    layout["height"] = int(height)
    if title:
        layout["title"]["text"] = title
    return layout


def merge(node: dict, updates: dict) -> None:
    """Merge ``updates`` into ``node``: nested dicts key by key, as ``update_layout`` does."""
    for k, v in updates.items():
        if isinstance(v, dict) and isinstance(node.get(k), dict):
            merge(node[k], v)
        else:
            node[k] = v


def set_axes(layout: dict, s: pd.DataFrame, x: str, unit: str, mlabel: str) -> None:
    """Log axes where they apply (x for budget, n, d; y when every private band is positive: a
    zero line, e.g. the non-private mean measured against itself, is then simply not drawn),
    the x title on every panel and the y title on the first."""
    positive = bool((s.loc[s["private"], "lo"] > 0).all()) if s["private"].any() else False
    logx = x in ("budget", "n", "d")
    xs = {
        "type": "log" if logx else "linear",
        "title": {"text": x_title(x, unit)},
        **(swept_ticks(s[x]) if logx else {}),
    }
    ys = np.r_[s["lo"], s["hi"], s["median"]]
    yupd = {"type": "log" if positive else "linear", **(log_ticks(ys[ys > 0]) if positive else {})}
    for name in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
        merge(layout[name], copy.deepcopy(xs if name.startswith("x") else yupd))
    merge(layout.setdefault("yaxis", {}), {"title": {"text": f"median {mlabel} error"}})


def json_ready(value: Any) -> Any:
    """``value`` with every array, series and NumPy number inside it made a plain list or number,
    as ``json`` and ``pickle`` take it and plotly reads it."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, pd.Series | pd.Index):
        return value.to_numpy().tolist()
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value
