"""Plotly figure builders (and the small simulations behind them) for the winsorized-mean page.

Pure plotly and numpy: no streamlit. Every builder returns ``(figure, DataFrame)`` so the page
can offer the data behind each chart as CSV. Repetitions are vectorised by running R independent
copies as the R columns of one array with ``R`` times the budget (each column then gets exactly
the budget; see tests/estimators/test_winsorized.py).

References
----------
Ramsay & Spicker, arXiv 2501.14095; specs/winsorized.md §8 (teaching visualisation).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore._validation import RngLike, as_generator
from dpcore.estimators.winsorized import winsorized_mean, winsorized_mean_zcdp
from dpcore.estimators.winsorized_baselines import clipped_mean_box_zcdp, clipped_mean_laplace
from dpcore.registry import ERROR_SOURCE_COLORS, Estimate, get
from dpcore.theory_winsorized import trimmed_interval

Notion = Literal["pure", "zcdp"]
Statistic = Literal["mean", "median", "variance (MLE)"]

PMWM_COLOR = get("pmwm").color  # registry colours: each estimator keeps one colour everywhere
CLIPPED_COLOR = get("clipped_laplace").color
NONPRIVATE_COLOR = "#444444"


def _pmwm(notion: Notion) -> object:
    return winsorized_mean if notion == "pure" else winsorized_mean_zcdp


def _budget_kw(notion: Notion, budget: float) -> dict[str, float]:
    return {"epsilon": budget} if notion == "pure" else {"rho": budget}


def contaminate(x: np.ndarray, fraction: float, shift: float, *, rng: RngLike = None) -> np.ndarray:
    """Replace ``floor(fraction n)`` random points of ``x`` by outliers at ``mean + shift sd``
    (with a little jitter): the strong-contamination adversary of spec §1, made visible."""
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).copy()
    k = int(math.floor(fraction * x.size))
    if k:
        rows = g.choice(x.size, size=k, replace=False)
        x[rows] = x.mean() + shift * x.std() + 0.05 * x.std() * g.standard_normal(k)
    return x


def interval_histogram(x: np.ndarray, est: Estimate, *, true_mean: float | None = None) -> tuple[go.Figure, pd.DataFrame]:
    """Histogram of the data with the private interval [L, U] (solid), the non-private quantiles it
    aims at (dashed), the points pulled in (rug, per side counts) and the released mean.

    Returns the figure and a frame with one row per data point (value, pulled to L / U / kept).
    """
    x = np.asarray(x, dtype=float).ravel()
    d = est.diagnostics
    L, U = float(d.clip_interval[0][0]), float(d.clip_interval[1][0])
    tau = float(d.extra["tau"])
    ql, qu = (float(v[0]) for v in trimmed_interval(x, tau))
    fallback = bool(d.extra["fallback"][0])
    status = np.where(x < L, "pulled up to L̂", np.where(x > U, "pulled down to Û", "kept"))
    df = pd.DataFrame({"value": x, "status": status})
    span = np.quantile(x, [0.0, 1.0])
    lo_view = min(span[0], L if np.isfinite(L) else span[0])
    hi_view = max(span[1], U)
    pad = 0.05 * (hi_view - lo_view + 1e-12)
    lo_view, hi_view = lo_view - pad, hi_view + pad
    fig = go.Figure()
    fig.add_trace(go.Histogram(x=x, nbinsx=60, name="data", marker_color="#9ecae1", opacity=0.85))
    fig.add_vrect(x0=lo_view, x1=L, fillcolor=ERROR_SOURCE_COLORS["clipping"], opacity=0.12, line_width=0)
    fig.add_vrect(x0=U, x1=hi_view, fillcolor=ERROR_SOURCE_COLORS["clipping"], opacity=0.12, line_width=0)
    for v, name, dash, color in [(L, "private L̂", "solid", PMWM_COLOR), (U, "private Û", "solid", PMWM_COLOR),
                                 (ql, f"non-private {tau:.3g} quantile", "dash", NONPRIVATE_COLOR),
                                 (qu, f"non-private {1 - tau:.3g} quantile", "dash", NONPRIVATE_COLOR)]:
        fig.add_vline(x=v, line_dash=dash, line_color=color, line_width=2)
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                 line={"dash": dash, "color": color}))
    pulled = df[df.status != "kept"]
    fig.add_trace(go.Scatter(x=pulled.value, y=np.zeros(len(pulled)), mode="markers", name="points pulled in",
                             marker={"symbol": "line-ns-open", "size": 14, "color": ERROR_SOURCE_COLORS["clipping"]},
                             yaxis="y2"))
    n_lo, n_hi = int((x < L).sum()), int((x > U).sum())
    fig.add_annotation(x=L, y=1.0, yref="paper", text=f"{n_lo} pulled up →", showarrow=False, xanchor="right",
                       font={"color": ERROR_SOURCE_COLORS["clipping"]})
    fig.add_annotation(x=U, y=1.0, yref="paper", text=f"← {n_hi} pulled down", showarrow=False, xanchor="left",
                       font={"color": ERROR_SOURCE_COLORS["clipping"]})
    fig.add_vline(x=float(est.mean[0]), line_color="#d62728", line_width=3)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name="private mean", line={"color": "#d62728"}))
    if true_mean is not None:
        fig.add_vline(x=true_mean, line_color="black", line_dash="dot")
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name="true mean",
                                 line={"color": "black", "dash": "dot"}))
    title = "Data, private interval [L̂, Û] and the points pulled in"
    if fallback:
        title = "FALLBACK: the private interval came out inverted, so the prior range is used"
    fig.update_layout(title=title, xaxis_title="value", yaxis_title="count", bargap=0.02,
                      xaxis_range=[lo_view, hi_view], legend={"orientation": "h", "y": -0.2},
                      yaxis2={"overlaying": "y", "range": [0, 1], "visible": False}, height=430,
                      margin={"t": 60, "b": 40})
    return fig, df


def contamination_sweep(x: np.ndarray, fractions: np.ndarray, *, shift: float, notion: Notion, budget: float,
                        bounds: tuple[float, float], eta: float, c: float = 10.0, reps: int = 60,
                        rng: RngLike = None) -> pd.DataFrame:
    """RMSE (against the clean sample's mean) of PMWM at ``eta``, PMWM at eta = 0 and the clipped
    mean with public bounds, as a growing fraction of points is moved ``shift`` sd to the right.

    Each fraction runs ``reps`` repetitions vectorised as columns (fresh outlier rows and noise).
    """
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    target = float(x.mean())
    out_value = x.mean() + shift * x.std()
    clipped_fn = clipped_mean_laplace if notion == "pure" else clipped_mean_box_zcdp
    kw = _budget_kw(notion, budget * reps)
    extra = {} if notion == "pure" else {"mean_noise": "per_coordinate"}
    rows = []
    for f in fractions:  # a handful of contamination levels; repetitions are vectorised
        X = np.repeat(x[:, None], reps, axis=1)
        k = int(math.floor(f * n))
        if k:
            pick = np.argsort(g.random((n, reps)), axis=0)[:k]
            X[pick, np.arange(reps)[None, :]] = out_value + 0.05 * x.std() * g.standard_normal((k, reps))
        results = {
            f"PMWM (η = {eta:g})": _pmwm(notion)(X, bounds=bounds, eta=eta, c=c, rng=g, **kw, **extra),
            "PMWM (η = 0)": _pmwm(notion)(X, bounds=bounds, eta=0.0, c=c, rng=g, **kw, **extra),
            "clipped mean (public bounds)": clipped_fn(X, bounds=bounds, rng=g, **kw),
        }
        for name, est in results.items():
            err = est.mean - target
            rows.append({"contamination": float(f), "estimator": name, "rmse": float(np.sqrt(np.mean(err**2))),
                         "bias": float(np.mean(est.diagnostics.noiseless_mean - target)),
                         "fallbacks": int(est.diagnostics.extra.get("fallback_count", 0)), "runs": reps})
    return pd.DataFrame(rows)


def contamination_figure(df: pd.DataFrame, current: float | None = None) -> go.Figure:
    """Lines of RMSE against the contamination fraction, one per estimator (log y axis)."""
    colors = {name: (CLIPPED_COLOR if name.startswith("clipped") else
                     (PMWM_COLOR if "η = 0)" not in name else "#98df8a")) for name in df.estimator.unique()}
    fig = go.Figure()
    for name, part in df.groupby("estimator", sort=False):
        fig.add_trace(go.Scatter(x=part.contamination, y=part.rmse, mode="lines+markers", name=name,
                                 line={"color": colors[name]}))
    if current is not None:
        fig.add_vline(x=current, line_dash="dot", line_color="black",
                      annotation_text="slider", annotation_position="top")
    fig.update_layout(title="What outliers do: error against the share of contaminated points",
                      xaxis_title="fraction of points replaced by outliers", yaxis_title="RMSE vs clean mean",
                      yaxis_type="log", xaxis_tickformat=".0%", height=380, legend={"orientation": "h", "y": -0.25})
    return fig


# ------------------------------------------------------------------------------------------------
# subsample-and-aggregate


def _stat(blocks: np.ndarray, statistic: Statistic) -> np.ndarray:
    if statistic == "mean":
        return blocks.mean(axis=-1)
    if statistic == "median":
        return np.median(blocks, axis=-1)
    if statistic == "variance (MLE)":
        return blocks.var(axis=-1)
    raise ValueError(f"statistic must be 'mean', 'median' or 'variance (MLE)'; got {statistic!r}.")


def full_statistic(x: np.ndarray, statistic: Statistic) -> float:
    """The non-private statistic on all the data (the S&A target)."""
    return float(_stat(np.asarray(x, dtype=float).ravel(), statistic))


def sa_strip(theta: np.ndarray, est: Estimate, nonprivate: float) -> tuple[go.Figure, pd.DataFrame]:
    """Strip plot of the k group statistics, the aggregator's private interval, the private
    aggregate and the non-private answer."""
    t = np.asarray(theta, dtype=float).ravel()
    L, U = float(est.diagnostics.clip_interval[0][0]), float(est.diagnostics.clip_interval[1][0])
    jitter = np.random.default_rng(0).uniform(-0.3, 0.3, t.size)  # display only
    df = pd.DataFrame({"group": np.arange(t.size), "statistic": t,
                       "winsorized": np.clip(t, L, U), "private_aggregate": float(est.mean[0]),
                       "nonprivate_full_data": nonprivate, "L": L, "U": U})
    fig = go.Figure()
    fig.add_vrect(x0=L, x1=U, fillcolor=PMWM_COLOR, opacity=0.12, line_width=0)
    fig.add_trace(go.Scatter(x=t, y=jitter, mode="markers", name=f"{t.size} group statistics",
                             marker={"color": "#1f77b4", "size": 7, "opacity": 0.7}))
    fig.add_vline(x=float(est.mean[0]), line_color="#d62728", line_width=3)
    fig.add_vline(x=nonprivate, line_color="black", line_dash="dot")
    for name, color, dash in [("private aggregate", "#d62728", "solid"), ("non-private, all data", "black", "dot"),
                              ("private interval [L̂, Û]", PMWM_COLOR, "solid")]:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name, line={"color": color, "dash": dash}))
    fig.update_layout(title="Subsample and aggregate: one point per group", xaxis_title="group statistic",
                      yaxis={"visible": False, "range": [-1, 1]}, height=300, legend={"orientation": "h", "y": -0.3},
                      margin={"t": 50})
    return fig, df


def sa_error_by_group_size(x: np.ndarray, statistic: Statistic, group_sizes: np.ndarray, *, notion: Notion,
                           budget: float, bounds: tuple[float, float], reps: int = 40, c: float = 1.0,
                           rng: RngLike = None) -> pd.DataFrame:
    """RMSE of S&A with the PMWM aggregator against the full-data statistic, per group size.

    For each group size the ``reps`` runs (fresh random partitions and noise) are vectorised: the
    group statistics of all runs form a (k, reps) array aggregated in one call.
    """
    g = as_generator(rng)
    x = np.asarray(x, dtype=float).ravel()
    N = x.size
    target = full_statistic(x, statistic)
    kw = _budget_kw(notion, budget * reps)
    extra = {} if notion == "pure" else {"mean_noise": "per_coordinate"}
    rows = []
    for m in group_sizes:  # a handful of group sizes; repetitions are vectorised
        k = N // int(m)
        if k < 2:
            continue
        perm = np.argsort(g.random((reps, N)), axis=1)[:, : k * int(m)].reshape(reps, k, int(m))
        theta = _stat(x[perm], statistic).T  # (k, reps)
        est = _pmwm(notion)(theta, bounds=bounds, c=c, rng=g, **kw, **extra)
        err = est.mean - target
        rows.append({"group_size": int(m), "groups": k, "rmse": float(np.sqrt(np.mean(err**2))),
                     "bias": float(np.mean(est.mean) - target),
                     "fallbacks": int(est.diagnostics.extra["fallback_count"]), "runs": reps})
    return pd.DataFrame(rows)


def sa_error_figure(df: pd.DataFrame, current: int | None = None) -> go.Figure:
    """RMSE of S&A against the group size (the paper's Table 3 shape: U-shaped for biased T)."""
    fig = go.Figure(go.Scatter(x=df.group_size, y=df.rmse, mode="lines+markers", name="S&A with PMWM",
                               line={"color": PMWM_COLOR},
                               customdata=np.c_[df.groups, df.fallbacks],
                               hovertemplate="group size %{x} (%{customdata[0]} groups)<br>RMSE %{y:.3g}"
                                             "<br>fallbacks %{customdata[1]}<extra></extra>"))
    fb = df[df.fallbacks > 0]
    if len(fb):
        fig.add_trace(go.Scatter(x=fb.group_size, y=fb.rmse, mode="markers", name="fallback fired in some runs",
                                 marker={"symbol": "x", "size": 11, "color": "#d62728"}))
    if current is not None:  # no annotation: plotly places vline annotations wrongly on log axes
        fig.add_vline(x=current, line_dash="dot", line_color="black")
    lo_x = min(float(df.group_size.min()), current or np.inf)
    hi_x = max(float(df.group_size.max()), current or 0)
    fig.update_layout(title="How the error moves with the group size (k = N / size groups; dotted: the slider)",
                      xaxis_type="log", xaxis_range=[np.log10(lo_x) - 0.05, np.log10(hi_x) + 0.05],
                      legend={"orientation": "h", "y": -0.3},
                      xaxis_title="units per group (fewer, larger groups →)", yaxis_title="RMSE vs full-data statistic",
                      yaxis_type="log", height=360)
    return fig


__all__ = ["contaminate", "contamination_figure", "contamination_sweep", "full_statistic", "interval_histogram",
           "sa_error_by_group_size", "sa_error_figure", "sa_strip"]
