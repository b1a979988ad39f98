"""Plotly figure builders (and the small simulations behind them) for the winsorized-mean page.

Pure plotly and numpy: no streamlit. Every builder returns ``(figure, DataFrame)`` so the page
can offer the data behind each chart as CSV. Each takes ``new=``: a ``go.Figure``
(:func:`~dpcore.figures.style.figure`, the default) or, for the page, plotly's dict without
its validation (:func:`dpcore.figures.dict_figure.plain_figure` through
:func:`~dpcore.figures.dict_figure.chart_dict`; tests/figures/test_winsorized_dict.py).
Repetitions are vectorised by running R independent copies as the R columns of one array with
``R`` times the budget (each column then gets exactly the budget; see tests/estimators/test_winsorized.py).

References
----------
Ramsay & Spicker, arXiv 2501.14095; docs/estimators/winsorized.md §8 (teaching visualisation).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.estimate import Estimate
from dpcore.estimators.winsorized import WinsorizedDiagnostics
from dpcore.figures.dict_figure import Builder, DictFigure, add_shapes
from dpcore.figures.style import figure, legend_entry, trace
from dpcore.registry import ERROR_SOURCE_COLORS, get
from dpcore.theory.winsorized import trimmed_interval

PMWM_COLOR = get("pmwm").color  # registry colours: each estimator keeps one colour everywhere


CLIPPED_COLOR = get("clipped_laplace").color


def _vline(x: float, **line: object) -> dict:
    """``fig.add_vline(x=x, line=line)`` on a one-panel figure, as the shape dict it adds (for
    :func:`~dpcore.figures.style.add_shapes`: one layout assignment for all the lines)."""
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"} | {
        "line": line
    }


def _vrect(x0: float, x1: float, fillcolor: str, opacity: float) -> dict:
    """``fig.add_vrect(x0=x0, x1=x1, fillcolor=..., opacity=..., line_width=0)`` as its dict."""
    return {
        "type": "rect",
        "x0": x0,
        "x1": x1,
        "xref": "x",
        "y0": 0,
        "y1": 1,
        "yref": "y domain",
    } | {
        "fillcolor": fillcolor,
        "opacity": opacity,
        "line": {"width": 0},
    }


NONPRIVATE_COLOR = "#444444"


def _view(x: np.ndarray, L: float, U: float) -> tuple[float, float]:
    """The histogram's x range: the data and the private interval, padded by 5%."""
    lo = min(float(x.min()), L if np.isfinite(L) else float(x.min()))
    hi = max(float(x.max()), U)
    pad = 0.05 * (hi - lo + 1e-12)
    return lo - pad, hi + pad


def _interval_lines(
    fig: go.Figure | DictFigure, x: np.ndarray, est: Estimate, view: tuple[float, float]
) -> list[dict]:
    """The private interval [L̂, Û] (solid), the non-private quantiles it aims at (dashed) and the
    shaded clipping zones outside it, each with its legend entry (the shapes are returned, to
    add in one go)."""
    d = est.diagnostics_as(WinsorizedDiagnostics)
    assert d.clip_interval is not None  # every winsorized estimate records it
    L, U = float(d.clip_interval[0][0]), float(d.clip_interval[1][0])
    tau = float(d.tau)
    ql, qu = (float(v[0]) for v in trimmed_interval(x, tau))
    shapes = [
        _vrect(x0, x1, ERROR_SOURCE_COLORS["clipping"], 0.12)
        for x0, x1 in ((view[0], L), (U, view[1]))
    ]
    for v, name, dash, color in [
        (L, "private L̂", "solid", PMWM_COLOR),
        (U, "private Û", "solid", PMWM_COLOR),
        (ql, f"non-private {tau:.3g} quantile", "dash", NONPRIVATE_COLOR),
        (qu, f"non-private {1 - tau:.3g} quantile", "dash", NONPRIVATE_COLOR),
    ]:
        shapes.append(_vline(v, color=color, dash=dash, width=2))
        fig.add_trace(legend_entry(name, line={"dash": dash, "color": color}))
    return shapes


def _pulled_marks(fig: go.Figure | DictFigure, df: pd.DataFrame, L: float, U: float) -> None:
    """A rug of the points pulled in to the interval's edges, with the count on each side."""
    pulled = df[df.status != "kept"]
    color = ERROR_SOURCE_COLORS["clipping"]
    fig.add_trace(
        trace(
            go.Scatter,
            x=pulled["value"].to_numpy(),
            y=np.zeros(len(pulled)),
            mode="markers",
            name="points pulled in",
            marker={"symbol": "line-ns-open", "size": 14, "color": color},
            yaxis="y2",
        )
    )
    n_lo, n_hi = int((df.value < L).sum()), int((df.value > U).sum())
    for x, text, anchor in (
        (L, f"{n_lo} pulled up →", "right"),
        (U, f"← {n_hi} pulled down", "left"),
    ):
        fig.add_annotation(
            x=x,
            y=1.0,
            yref="paper",
            yanchor="bottom",  # just above the plot: never over a bar or a tick label
            text=text,
            showarrow=False,
            xanchor=anchor,
            font={"color": color},
        )


def _mean_lines(
    fig: go.Figure | DictFigure, released: float, true_mean: float | None
) -> list[dict]:
    """The released private mean and, when given, the true mean, with their legend entries (the
    lines are returned, to add in one go)."""
    shapes = [_vline(released, color="#d62728", width=3)]
    fig.add_trace(legend_entry("private mean", line={"color": "#d62728"}))
    if true_mean is not None:
        shapes.append(_vline(true_mean, color="black", dash="dot"))
        fig.add_trace(legend_entry("true mean", line={"color": "black", "dash": "dot"}))
    return shapes


def interval_histogram(
    x: np.ndarray, est: Estimate, *, true_mean: float | None = None, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """Histogram of the data with the private interval [L, U] (solid), the non-private quantiles it
    aims at (dashed), the points pulled in (rug, per side counts) and the released mean.

    Returns the figure and a frame with one row per data point (value, pulled to L / U / kept).
    """
    x = np.asarray(x, dtype=float).ravel()
    d = est.diagnostics_as(WinsorizedDiagnostics)
    assert d.clip_interval is not None  # every winsorized estimate records it
    L, U = float(d.clip_interval[0][0]), float(d.clip_interval[1][0])
    status = np.where(x < L, "pulled up to L̂", np.where(x > U, "pulled down to Û", "kept"))
    df = pd.DataFrame({"value": x, "status": status})
    view = _view(x, L, U)
    fig = new()
    fig.add_trace(
        trace(go.Histogram, x=x, nbinsx=60, name="data", marker={"color": "#9ecae1"}, opacity=0.85)
    )
    shapes = _interval_lines(fig, x, est, view)
    _pulled_marks(fig, df, L, U)
    add_shapes(fig, shapes + _mean_lines(fig, float(est.mean[0]), true_mean))
    title = "Data, private interval [L̂, Û] and the points pulled in"
    if bool(d.fallback[0]):
        title = "FALLBACK: the private interval came out inverted, so the prior range is used"
    fig.update_layout(
        title=title,
        xaxis_title="value",
        yaxis_title="count",
        bargap=0.02,
        xaxis_range=list(view),
        legend={"orientation": "h", "y": -0.2},
        yaxis2={"overlaying": "y", "range": [0, 1], "visible": False},
        height=430,
        margin={"t": 60, "b": 40},
    )
    return fig, df


def contamination_figure(
    df: pd.DataFrame, current: float | None = None, *, new: Builder = figure
) -> go.Figure:
    """Lines of RMSE against the contamination fraction, one per estimator (log y axis)."""
    colors = {
        name: (
            CLIPPED_COLOR
            if name.startswith("clipped")
            else (PMWM_COLOR if "η = 0)" not in name else "#98df8a")
        )
        for name in df.estimator.unique()
    }
    fig = new()
    for name, part in df.groupby("estimator", sort=False):
        fig.add_trace(
            trace(
                go.Scatter,
                x=part["contamination"].to_numpy(),
                y=part["rmse"].to_numpy(),
                mode="lines+markers",
                name=name,
                line={"color": colors[name]},
            )
        )
    if current is not None:
        add_shapes(fig, [_vline(current, color="black", dash="dot")])
        # fig.add_vline(..., annotation_text=, annotation_position="top")
        note = {"showarrow": False, "text": "slider", "x": current, "xanchor": "center"} | {
            "xref": "x",
            "y": 1,
            "yanchor": "bottom",
            "yref": "y domain",
        }
        if isinstance(fig, DictFigure):
            fig.add_annotation(**note)
        else:
            fig.layout.annotations = (*fig.layout.annotations, note)
    fig.update_layout(
        title="What outliers do: error against the share of contaminated points",
        xaxis_title="fraction of points replaced by outliers",
        yaxis_title="RMSE vs clean mean",
        yaxis_type="log",
        xaxis_tickformat=".0%",
        height=380,
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def sa_strip(
    theta: np.ndarray, est: Estimate, nonprivate: float, *, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """Strip plot of the k group statistics, the aggregator's private interval, the private
    aggregate and the non-private answer."""
    t = np.asarray(theta, dtype=float).ravel()
    interval = est.diagnostics.clip_interval
    assert interval is not None  # every winsorized estimate records it
    L, U = float(interval[0][0]), float(interval[1][0])
    # display only: spread the points over [-0.3, 0.3) evenly (golden-ratio sequence, no randomness)
    jitter = 0.6 * ((np.arange(t.size) * 0.6180339887498949) % 1.0) - 0.3
    df = pd.DataFrame(
        {
            "group": np.arange(t.size),
            "statistic": t,
            "winsorized": np.clip(t, L, U),
            "private_aggregate": float(est.mean[0]),
            "nonprivate_full_data": nonprivate,
            "L": L,
            "U": U,
        }
    )
    fig = new()
    fig.add_trace(
        trace(
            go.Scatter,
            x=t,
            y=jitter,
            mode="markers",
            name=f"{t.size} group statistics",
            marker={"color": "#1f77b4", "size": 7, "opacity": 0.7},
        )
    )
    add_shapes(
        fig,
        [
            _vrect(L, U, PMWM_COLOR, 0.12),
            _vline(float(est.mean[0]), color="#d62728", width=3),
            _vline(nonprivate, color="black", dash="dot"),
        ],
    )
    for name, color, dash in [
        ("private aggregate", "#d62728", "solid"),
        ("non-private, all data", "black", "dot"),
        ("private interval [L̂, Û]", PMWM_COLOR, "solid"),
    ]:
        fig.add_trace(
            legend_entry(
                name,
                line={"color": color, "dash": dash},
            )
        )
    fig.update_layout(
        title="Subsample and aggregate: one point per group",
        xaxis_title="group statistic",
        yaxis={"visible": False, "range": [-1, 1]},
        height=300,
        legend={"orientation": "h", "y": -0.3},
        margin={"t": 50},
    )
    return fig, df


def sa_error_figure(
    df: pd.DataFrame, current: int | None = None, *, new: Builder = figure
) -> go.Figure:
    """RMSE of S&A against the group size (the paper's Table 3 shape: U-shaped for biased T)."""
    fig = new(
        trace(
            go.Scatter,
            x=df["group_size"].to_numpy(),
            y=df["rmse"].to_numpy(),
            mode="lines+markers",
            name="S&A with PMWM",
            line={"color": PMWM_COLOR},
            customdata=np.c_[df["groups"].to_numpy(), df["fallbacks"].to_numpy()],
            hovertemplate="group size %{x} (%{customdata[0]} groups)<br>RMSE %{y:.3g}"
            "<br>fallbacks %{customdata[1]}<extra></extra>",
        )
    )
    fb = df[df.fallbacks > 0]
    if len(fb):
        fig.add_trace(
            trace(
                go.Scatter,
                x=fb["group_size"].to_numpy(),
                y=fb["rmse"].to_numpy(),
                mode="markers",
                name="fallback fired in some runs",
                marker={"symbol": "x", "size": 11, "color": "#d62728"},
            )
        )
    if current is not None:  # no annotation: plotly places vline annotations wrongly on log axes
        add_shapes(fig, [_vline(current, color="black", dash="dot")])
    lo_x = min(float(df.group_size.min()), current or np.inf)
    hi_x = max(float(df.group_size.max()), current or 0)
    fig.update_layout(
        title="How the error moves with the group size (k = N / size groups; dotted: the slider)",
        xaxis_type="log",
        xaxis_range=[np.log10(lo_x) - 0.05, np.log10(hi_x) + 0.05],
        legend={"orientation": "h", "y": -0.3},
        xaxis_title="units per group (fewer, larger groups →)",
        yaxis_title="RMSE vs full-data statistic",
        yaxis_type="log",
        height=360,
    )
    return fig
