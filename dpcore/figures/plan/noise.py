"""Zoom on the mean (:func:`noise_figure`: each estimator's noise ellipse), the noise shapes over
all coordinates (:func:`noise_shapes_figure`) and the error split (:func:`error_split_frame`).

References
----------
PLAN (PETS 2024), Algorithm 1 line 7 and Appendix C; docs/estimators/plan.md §8.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.estimate import Estimate
from dpcore.figures.dict_figure import DictFigure, styled
from dpcore.figures.plan.common import COLORS, _coords, _need, _outline
from dpcore.figures.style import figure, log_ticks, merge_layout, rgba, trace
from dpcore.metrics import error_split


def noise_figure(
    entries: Sequence[tuple[str, str, Estimate]],
    coords: Sequence[int],
    *,
    true_mean: np.ndarray,
    empirical_mean: np.ndarray,
    height: int = 480,
    drawn: bool = False,
) -> tuple[Any, pd.DataFrame]:
    """Zoom on the mean: each estimator's noiseless mean, its private mean and its noise ellipse.

    The private mean is the noiseless mean plus Gaussian noise with per-coordinate stds
    ``diagnostics.noise_std`` (independent coordinates), so on two coordinates the noise lives on an
    axis-aligned ellipse with semi-axes one (and two) stds: elongated along the high-variance axis
    for PLAN (``std_i ∝ sigma^_i^(2/(p+2))``), a circle for the isotropic baselines.

    Parameters
    ----------
    entries : sequence of (label, colour, Estimate)
    coords : (i, j) or (i,)
        0-based coordinates; with one, each estimator gets a row and the noise an interval.
    true_mean, empirical_mean : array (d,)
    height : int
        The figure's height in px.
    drawn : bool
        The figure as plotly's dict (a :class:`~dpcore.figures.dict_figure.DictFigure` on the
        house layout kept per process, no validation pass), to draw with
        :func:`~dpcore.figures.style.prepared`; by default a ``go.Figure``.

    Returns
    -------
    (Figure, DataFrame)
        Columns ``estimator``, ``role`` (noiseless mean, private mean, 1 sd / 2 sd ellipse, true mean,
        empirical mean), ``x``, ``y``, ``std_x``, ``std_y``.

    References
    ----------
    PLAN, Algorithm 1 line 7 and Appendix C; docs/estimators/plan.md §8 overlay (ii).
    """
    if not entries:
        raise ValueError("entries must hold at least one (label, colour, Estimate).")
    d = np.asarray(entries[0][2].mean).size
    cs = _coords(coords, d)
    fig: Any = DictFigure() if drawn else figure(styled=True)
    frames = []
    for k, (label, color, est) in enumerate(entries):
        _need(est, "noise_std")
        frames += _estimator_noise(fig, k, label, color, est, cs)
    frames.append(_truth_markers(fig, cs, true_mean, empirical_mean))
    _noise_axes(fig, cs, [e[0] for e in entries])
    styled(fig, height=height)
    merge_layout(
        fig,
        legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0.0),
        margin=dict(t=20, b=40),
    )
    return fig.to_dict() if drawn else fig, pd.concat(frames, ignore_index=True)


def _means_frame(
    label: str, nl: np.ndarray, mean: np.ndarray, ys: list[float], sd: np.ndarray, std_y: float
) -> pd.DataFrame:
    """The frame rows of one estimator's noiseless and private means."""
    return pd.DataFrame(
        {
            "estimator": label,
            "role": ["noiseless mean", "private mean"],
            "x": [nl[0], mean[0]],
            "y": ys,
            "std_x": sd[0],
            "std_y": std_y,
        }
    )


def _estimator_noise(
    fig: go.Figure, k: int, label: str, color: str, est: Estimate, cs: list[int]
) -> list[pd.DataFrame]:
    """One estimator's noise (an interval on row ``-k`` in 1-D, ellipses in 2-D), its noiseless
    mean and its private mean; returns the frames of what it drew."""
    sd = np.asarray(est.diagnostics.noise_std, dtype=float)[cs]
    nl = np.asarray(est.diagnostics.noiseless_mean, dtype=float)[cs]
    mean = np.asarray(est.mean, dtype=float)[cs]
    one_d = len(cs) == 1
    if one_d:
        frames = [_means_frame(label, nl, mean, [float(-k)] * 2, sd, 0.0)]
        _noise_bars(fig, label, color, nl, sd, float(-k))
    else:
        frames = [_means_frame(label, nl, mean, [nl[1], mean[1]], sd, sd[1])]
        frames += _noise_ellipses(fig, label, color, nl, sd)
    for name, at, marker, what in (
        (
            "without noise",
            nl,
            dict(symbol="circle-open", size=10, color=color, line=dict(width=2)),
            "without noise",
        ),
        (
            "private mean",
            mean,
            dict(symbol="x", size=13, color=color, line=dict(width=1, color="#1d2733")),
            "private mean",
        ),
    ):
        fig.add_trace(
            trace(
                go.Scatter,
                x=[at[0]],
                y=[at[1] if not one_d else -k],
                mode="markers",
                legendgroup=label,
                name=f"{label}: {name}",
                showlegend=False,
                marker=marker,
                hovertemplate=f"{label} {what}<br>(%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
            )
        )
    return frames


def _noise_bars(
    fig: go.Figure, label: str, color: str, nl: np.ndarray, sd: np.ndarray, yk: float
) -> None:
    """1-D: the noise as a thin ±2 sd and a thick ±1 sd bar around the noiseless mean."""
    for m in (2, 1):
        fig.add_trace(
            trace(
                go.Scatter,
                x=[nl[0] - m * sd[0], nl[0] + m * sd[0]],
                y=[yk, yk],
                mode="lines",
                line=dict(color=color, width=10 if m == 1 else 3),
                opacity=0.35,
                name=f"{label}: noise ±{m} sd",
                legendgroup=label,
                hoverinfo="skip",
            )
        )


def _noise_ellipses(
    fig: go.Figure, label: str, color: str, nl: np.ndarray, sd: np.ndarray
) -> list[pd.DataFrame]:
    """2-D: the 1 sd (shaded) and 2 sd (dotted) noise ellipses around the noiseless mean."""
    frames = []
    for m in (1, 2):
        ell = _outline(nl, m * sd)
        frames.append(
            pd.DataFrame(
                {
                    "estimator": label,
                    "role": f"noise ellipse, {m} sd",
                    "x": ell[:, 0],
                    "y": ell[:, 1],
                    "std_x": sd[0],
                    "std_y": sd[1],
                }
            )
        )
        fig.add_trace(
            trace(
                go.Scatter,
                x=ell[:, 0],
                y=ell[:, 1],
                mode="lines",
                name=f"{label}: noise, 1 and 2 sd",
                legendgroup=label,
                fill="toself" if m == 1 else None,
                fillcolor=rgba(color, 0.18),
                line=dict(color=color, width=2 if m == 1 else 1, dash="solid" if m == 1 else "dot"),
                hoverinfo="skip",
                showlegend=m == 1,
            )
        )
    return frames


#: The star's label: why it can lie outside every noise ellipse.
TRUTH_NOTE = "true mean: off the ellipses by<br>sampling and clipping, not noise"


def _truth_markers(
    fig: go.Figure, cs: list[int], true_mean: np.ndarray, empirical_mean: np.ndarray
) -> pd.DataFrame:
    """The true mean (star) and the empirical mean (diamond); in 1-D both at height 0.5."""
    truth = np.asarray(true_mean, dtype=float)[cs]
    emp = np.asarray(empirical_mean, dtype=float)[cs]
    ty, ey = (truth[1], emp[1]) if len(cs) == 2 else (0.5, 0.5)
    star = dict(symbol="star", size=18, color=COLORS["truth"], line=dict(width=1, color="#1d2733"))
    fig.add_trace(
        trace(go.Scatter, x=[truth[0]], y=[ty], mode="markers", name="true mean", marker=star)
    )
    # the ellipses sit around each noiseless (clipped) mean, so the star may lie outside them all:
    # the picture says why where the eye is, not only the text under it
    fig.add_annotation(
        x=truth[0],
        y=ty,
        text=TRUTH_NOTE,
        showarrow=True,
        arrowhead=2,
        ax=0,
        ay=-48,
        font={"size": 12, "color": "#1d2733"},
        bgcolor="rgba(255,255,255,0.8)",
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[emp[0]],
            y=[ey],
            mode="markers",
            name="empirical mean (not private)",
            marker=dict(symbol="diamond", size=10, color=COLORS["sampling"]),
        )
    )
    return pd.DataFrame(
        {
            "estimator": "",
            "role": ["true mean", "empirical mean"],
            "x": [truth[0], emp[0]],
            "y": [ty, ey],
            "std_x": np.nan,
            "std_y": np.nan,
        }
    )


def _noise_axes(fig: go.Figure, cs: list[int], labels: list[str]) -> None:
    """Axis titles; in 1-D the vertical axis names the estimators, in 2-D equal aspect."""
    merge_layout(fig, xaxis={"title": {"text": f"coordinate {cs[0] + 1}"}})
    if len(cs) == 1:
        fig.update_yaxes(
            tickvals=[-k for k in range(len(labels))], ticktext=labels, title_text=None
        )
    else:
        merge_layout(
            fig,
            yaxis={
                "title": {"text": f"coordinate {cs[1] + 1}"},
                "scaleanchor": "x",
                "scaleratio": 1,
            },
        )


def noise_shapes_figure(
    entries: Sequence[tuple[str, str, Estimate]],
    sigma: np.ndarray,
    n: int,
    height: int = 460,
    drawn: bool = False,
) -> tuple[Any, pd.DataFrame]:
    """Per-coordinate noise std of each estimator (bars; lines for ``d > 64``) against ``sigma_i / sqrt(n)``.

    PLAN's noise follows the spread (``std_i ∝ sigma^_i^(2/(p+2))``); IOME and the Gaussian mechanism
    put the same noise on every coordinate. The sampling std ``sigma_i / sqrt(n)`` of each
    coordinate's empirical mean is drawn as the yardstick (same units). ``drawn``: as plotly's
    dict, as in :func:`noise_figure`.

    Returns
    -------
    (Figure, DataFrame)
        Columns ``coordinate`` (1-based), ``estimator``, ``noise_std``, ``sigma``, ``sampling_std``.
    """
    sig = np.asarray(sigma, dtype=float)
    d = sig.size
    coord = np.arange(1, d + 1)
    frames = []
    fig: Any = DictFigure() if drawn else figure(styled=True)
    bars = d <= 64
    for label, color, est in entries:
        _need(est, "noise_std")
        sd = np.broadcast_to(np.asarray(est.diagnostics.noise_std, dtype=float), (d,))
        frames.append(
            pd.DataFrame(
                {
                    "coordinate": coord,
                    "estimator": label,
                    "noise_std": sd,
                    "sigma": sig,
                    "sampling_std": sig / math.sqrt(n),
                }
            )
        )
        fig.add_trace(_shape_trace(label, color, coord, sd, bars))
    fig.add_trace(_sampling_trace(coord, sig / math.sqrt(n), bars))
    fig.update_layout(barmode="group", bargap=0.15)
    merge_layout(
        fig, xaxis={"title": {"text": "coordinate i (σᵢ falls from left to right for skewed data)"}}
    )
    allv = pd.concat(frames).melt(value_vars=["noise_std", "sampling_std"]).value
    allv = allv[allv > 0]
    merge_layout(
        fig,
        yaxis={
            "title": {"text": "standard deviation (log scale)"},
            "type": "log",
            **log_ticks(allv.to_numpy(float)),
        },
    )
    styled(fig, title="Noise shapes: noise std per coordinate", height=height)
    # four long legend entries wrap onto two rows, which the house style's legend-on-top would
    # draw over the title: below the plot instead
    merge_layout(
        fig,
        legend=dict(orientation="h", yanchor="top", y=-0.25, xanchor="left", x=0.0),
        margin=dict(b=120),
    )
    return fig.to_dict() if drawn else fig, pd.concat(frames, ignore_index=True)


def _sampling_trace(coord: np.ndarray, sampling_std: np.ndarray, bars: bool) -> Any:
    """The yardstick: each coordinate's sampling std ``sigma_i / sqrt(n)``, a dashed line."""
    return trace(
        go.Scatter,
        x=coord,
        y=sampling_std,
        mode="lines+markers" if bars else "lines",
        name="sampling std σᵢ/√n",
        line=dict(color=COLORS["sampling"], width=2, dash="dash"),
        marker=dict(size=5),
        hovertemplate="coordinate %{x}: σᵢ/√n = %{y:.3g}<extra></extra>",
    )


def _shape_trace(label: str, color: str, coord: np.ndarray, sd: np.ndarray, bars: bool) -> Any:
    """One estimator's noise std per coordinate: bars (few coordinates) or a line."""
    hover = label + "<br>coordinate %{x}: noise std %{y:.3g}<extra></extra>"
    if bars:
        return trace(
            go.Bar, x=coord, y=sd, name=label, marker=dict(color=color), hovertemplate=hover
        )
    return trace(
        go.Scatter,
        x=coord,
        y=sd,
        mode="lines",
        name=label,
        line=dict(color=color, width=2),
        hovertemplate=hover,
    )


def error_split_frame(
    entries: Sequence[tuple[str, Estimate]], x: np.ndarray, truth: np.ndarray, p: float = 2.0
) -> pd.DataFrame:
    """One row per estimator with :func:`dpcore.metrics.error_split` (sampling, clipping, noise, total),
    ready for :func:`dpcore.figures.style.error_split_chart`."""
    return pd.DataFrame(
        [{"estimator": label, **error_split(est, x, truth, p)} for label, est in entries],
        columns=["estimator", "sampling", "clipping", "noise", "total"],
    )
