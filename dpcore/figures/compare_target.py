"""Compare's "what does each estimator need" chart: the budget (or n) each estimator needs for a
target error, as a dot plot (pure; no streamlit). Its sentence is
:func:`dpcore.figures.compare_text.target_sentence`; :mod:`dpcore.figures.compare` re-exports
both builders.

The chart is built as the dict plotly writes for it (``fig.to_dict()``, NumPy arrays as typed
arrays: :func:`dpcore.figures.dict_figure.plotly_json`) on a
house layout kept per process (:func:`dpcore.figures.compare_layout.styled_layout`), without
plotly's validation pass; :func:`target_figure` wraps it in a ``go.Figure``
(tests/figures/test_compare_chart_dict.py compares the two).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.experiments.summaries import needed_for_target
from dpcore.figures.compare_layout import merge, styled_layout
from dpcore.figures.compare_text import METRIC_LABEL, _fmt, budget_label, target_sentence
from dpcore.figures.dict_figure import figure_of, plotly_json
from dpcore.figures.style import log_ticks, trace


def target_chart(
    needed: pd.DataFrame,
    by: str,
    target: float,
    metric: str,
    colors: Mapping[str, str],
    unit: str = "rho",
) -> tuple[dict, pd.DataFrame]:
    """:func:`target_figure` as a plain dict (what ``st.plotly_chart`` sends), and its data."""
    col = f"{by}_needed"
    d = needed.copy()
    ok = d[d[col].notna()]
    text = [
        ("≤ " if str(note).startswith("already") else "") + _fmt(v)
        for v, note in zip(ok[col], ok["note"], strict=True)
    ]
    vals = ok[col].to_numpy(float)
    dots = trace(
        go.Scatter,
        x=vals,
        y=ok["label"],
        mode="markers+text",
        marker=dict(size=16, color=[colors.get(e, "#888") for e in ok["estimator"]]),
        text=text,
        textposition="middle right",
        cliponaxis=False,
        hovertemplate="%{y}: %{x:.4g}<extra></extra>",
    )
    axis: dict[str, Any] = {}
    if vals.size:
        lo, hi = float(vals.min()), float(vals.max())
        lo_e, hi_e = math.floor(math.log10(lo) - 0.3), math.ceil(math.log10(hi) + 0.5)
        if hi_e - lo_e < 1:
            hi_e = lo_e + 1
        axis = {"range": [lo_e, hi_e], **log_ticks(np.r_[10.0**lo_e, vals, 10.0**hi_e])}
    title = (
        f"What each estimator needs for a median {METRIC_LABEL.get(metric, metric)} error of "
        f"{_fmt(target)}"
    )
    layout = styled_layout(title, 140 + 40 * max(len(ok), 1))
    merge(
        layout,
        {
            "xaxis": {
                "type": "log",
                "title": {"text": f"{budget_label(unit)} needed" if by == "budget" else "n needed"},
                **axis,
            },
            "yaxis": {"autorange": "reversed", "automargin": True, "showgrid": True},
            "margin": {"r": 80},
        },
    )
    return plotly_json([dots], layout), d


def target_figure(
    needed: pd.DataFrame,
    by: str,
    target: float,
    metric: str,
    colors: Mapping[str, str],
    unit: str = "rho",
) -> tuple[go.Figure, pd.DataFrame]:
    """Accuracy first: a dot plot of the ``by`` value each estimator needs for ``target``, one row
    per estimator (dots, not bars: a bar's length on a log axis starts at an arbitrary edge).

    The log axis spans at least a factor 10 around the dots (so near-equal needs do not turn into an
    axis from 0.124906 to 0.125039) and the value labels are never clipped.
    """
    chart, d = target_chart(needed, by, target, metric, colors, unit)
    return figure_of(chart), d


def target_views(
    frame: pd.DataFrame,
    summary: pd.DataFrame,
    x: str,
    target: float,
    metric: str,
    unit: str = "rho",
) -> tuple[dict, pd.DataFrame, str]:
    """The Compare page's "what does each estimator need" view of one sweep: the chart (as
    ``st.plotly_chart`` sends it, :func:`~dpcore.figures.style.drawn_dict`), its data and the
    sentence, with a warning when ``target`` lies near the sampling floor of a budget sweep.

    ``summary`` is :func:`summarise` of ``frame`` for ``metric``. A pure function of picklable
    values, so the page runs it in a worker of the shared pool and keeps it for every session on
    the same link. Raises ``ValueError`` as :func:`needed_for_target` does.
    """
    need = needed_for_target(frame, float(target), by=x, metric=metric, summary=summary)
    colors = dict(zip(frame["estimator"], frame["color"], strict=False))
    chart, data = target_chart(need, x, float(target), metric, colors, unit)
    words = target_sentence(need, x, float(target), metric, unit)
    floor = float(np.nanmedian(frame[f"sampling_{metric}"])) if x == "budget" else np.nan
    if (
        x == "budget" and target < 1.5 * floor
    ):  # flat curves: a small error gap is a large budget gap
        words += (
            f" This target is within 1.5× of the sampling floor ({floor:.3g}), where the error hardly "
            "falls as the budget grows: there a small gap in error becomes a large gap in budget."
        )
    return chart, data, words
