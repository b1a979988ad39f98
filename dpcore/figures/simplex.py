"""Plotly figures (and the data behind them) for the simplex "free lunch" page. No streamlit here.

Each builder returns ``(figure, data_frame)``: the frame is exactly what is drawn, so the app can
offer it as CSV and a notebook can re-plot it.

References
----------
docs/estimators/simplex.md §4 (plots to offer) and §6 (teaching visualisation).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.estimators.simplex import (
    preprocess,
    simplex_transform,
)
from dpcore.experiments.studies import LABELS
from dpcore.figures.dict_figure import Builder, styled
from dpcore.figures.style import figure, trace
from dpcore.registry import get

#: Plotly's "Viridis" as the [position, colour] list its validation makes of the name.
VIRIDIS = go.scatter.Marker(colorscale="Viridis").to_plotly_json()["colorscale"]

#: Two colours told apart by every common colour-vision deficiency (Okabe and Ito's blue and
#: orange), for the two-group charts: records kept or rescaled, free or paid count.
PAIR = ("#0072B2", "#E69F00")

#: One colour per estimator on this page (same as the registry entries' families).
COLORS = {
    **{
        key: get(name).color
        for key, name in {
            "simplex": "simplex_laplace",
            "simplex_known_n": "simplex_known_n_laplace_replace",
            "plugin": "plugin_laplace",
            "centred": "centred_plugin_laplace",
            "sum_known_n": "sum_known_n_laplace_replace",
            "centred_sum_known_n": "centred_sum_known_n_laplace",
        }.items()
    },
    # not registered estimators (page-only variants): colours no registered estimator uses
    "simplex_extra_count": "#b8e186",
    "plugin_oracle": "#e08214",
}


# --------------------------------------------------------------------------------------------
# geometry


def geometry_d1(
    x: np.ndarray, radius: float, *, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """Each value ``x`` drawn as ``(x, R - x)``: on an edge of the ℓ1 ball, a chord of the ℓ2 ball
    (the first quadrant of both balls is drawn: the records never leave it).

    Points are coloured by ``||y||_2 / R`` in ``[1/sqrt 2, 1]`` (spec §6.1).
    """
    data = preprocess(np.asarray(x, float), (0.0, radius))
    y = simplex_transform(data.z, radius)
    l2 = np.linalg.norm(y, axis=1) / radius
    df = pd.DataFrame(
        {
            "x": data.z[:, 0],
            "y1": y[:, 0],
            "y2": y[:, 1],
            "l1_norm": y.sum(axis=1),
            "l2_norm_over_R": l2,
        }
    )
    R = radius
    fig = new()
    _balls_d1(fig, R)
    fig.add_trace(
        trace(
            go.Scatter,
            x=df.y1,
            y=df.y2,
            mode="markers",
            name="records y = (x, R − x)",
            marker=dict(
                size=9,
                color=df.l2_norm_over_R,
                colorscale=VIRIDIS,
                cmin=1 / math.sqrt(2),
                cmax=1,
                colorbar=dict(title=dict(text="‖y‖₂ / R"), x=1.02),
                line=dict(width=0.5),
            ),
            customdata=df[["x", "l2_norm_over_R"]].to_numpy(),
            hovertemplate="x = %{customdata[0]:.3g}<br>‖y‖₂/R = %{customdata[1]:.3f}<extra></extra>",
        )
    )
    fig.update_xaxes(title="y₁ = x", range=[-0.05 * R, 1.1 * R], zeroline=True)
    fig.update_yaxes(
        title="y₂ = R − x (padding)", range=[-0.05 * R, 1.1 * R], scaleanchor="x", scaleratio=1
    )
    styled(fig, height=460)
    return fig, df


def _balls_d1(fig: Any, R: float) -> None:
    """The first quadrant of the ℓ2 ball (an arc) and of the ℓ1 ball (an edge) of radius ``R``."""
    t = np.linspace(0, math.pi / 2, 61)
    fig.add_trace(
        trace(
            go.Scatter,
            x=R * np.cos(t),
            y=R * np.sin(t),
            mode="lines",
            name="ℓ2 ball of radius R (Gaussian budget)",
            line=dict(color=PAIR[0], dash="dot", width=2),
        )
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[0, R],
            y=[R, 0],
            mode="lines",
            name="y₁ + y₂ = R: the ℓ1 ball's edge (Laplace budget)",
            line=dict(color="#555", width=3),
        )
    )


def triangle_d2(
    z: np.ndarray, radius: float, *, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """Two columns lifted onto the simplex ``y = (z₁, z₂, R − z₁ − z₂)`` (a ternary plot, spec §6.3)."""
    data = preprocess(np.asarray(z, float), (0.0, radius), radius)
    y = simplex_transform(data.z, radius)
    df = pd.DataFrame({"z1": y[:, 0], "z2": y[:, 1], "padding": y[:, 2], "rescaled": data.clipped})
    fig = new(
        trace(
            go.Scatterternary,
            a=df.z1,
            b=df.z2,
            c=df.padding,
            mode="markers",
            name="records",
            marker=dict(
                size=7,
                color=np.where(df.rescaled, PAIR[1], PAIR[0]),
                symbol=np.where(df.rescaled, "x", "circle"),
                opacity=0.85,
            ),
            hovertemplate="z₁ = %{a:.3g}<br>z₂ = %{b:.3g}<br>padding R − z₁ − z₂ = %{c:.3g}<extra></extra>",
        )
    )
    fig.update_layout(
        ternary=dict(
            sum=radius, aaxis=dict(title="z₁"), baxis=dict(title="z₂"), caxis=dict(title="padding")
        )
    )
    styled(fig, height=420)
    fig.update_layout(margin=dict(l=60, r=60, t=40, b=40))
    return fig, df


def _projections(m: np.ndarray, proj: np.ndarray, k: int) -> Any:
    """The first ``k`` releases' projections onto the known count's line, as grey segments."""
    xs, ys = [], []
    for i in range(k):  # a few projections, drawn as segments (k <= 12: not a loop over data rows)
        xs += [m[i, 0], proj[i, 0], None]
        ys += [m[i, 1], proj[i, 1], None]
    return trace(
        go.Scatter,
        x=xs,
        y=ys,
        mode="lines",
        name="known n: project onto the line",
        line=dict(color="#555", width=1),
    )


def release_picture(
    releases: pd.DataFrame, *, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """The releases ``m = s + Z`` in the ``(m₁, m₂)`` plane for ``d = 1`` (spec §6.2), drawn from
    the frame of :func:`dpcore.experiments.studies.simplex_releases` (returned unchanged).

    Known ``n``: the perpendicular projection onto ``m₁ + m₂ = n R`` (S3). Unknown ``n``: the ray
    from the origin through ``m`` crosses ``y₁ + y₂ = R`` at ``(μ̂, R − μ̂)`` scaled by ``n``.
    """
    df = releases
    N, R = df.attrs["n"], df.attrs["radius"]
    s = np.asarray(df.attrs["true_sums"], float)
    m = df[["m1", "m2"]].to_numpy(float)
    proj = df[["known_n_m1", "known_n_m2"]].to_numpy(float)
    reps = len(df)
    fig = new()
    lo = min(m[:, 0].min(), s[0]) - 0.1 * R
    hi = max(m[:, 0].max(), s[0]) + 0.1 * R
    line_x = np.array([lo, hi])
    fig.add_trace(
        trace(
            go.Scatter,
            x=line_x,
            y=N * R - line_x,
            mode="lines",
            name="m₁ + m₂ = n R (the true count n)",
            line=dict(color="#555"),
        )
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=df.m1,
            y=df.m2,
            mode="markers",
            name="noisy releases m",
            marker=dict(size=5, color="#17becf", opacity=0.6),
        )
    )
    fig.add_trace(_projections(m, proj, min(12, reps)))
    fig.add_trace(
        trace(
            go.Scatter,
            x=[s[0]],
            y=[s[1]],
            mode="markers",
            name="true sums s",
            marker=dict(size=14, color="#d62728", symbol="x"),
        )
    )
    fig.update_xaxes(title="m₁ (noisy Σx)")
    fig.update_yaxes(title="m₂ (noisy Σ(R − x))", scaleanchor="x", scaleratio=1)
    styled(fig, height=420)
    return fig, df


# --------------------------------------------------------------------------------------------
# variance against position


def variance_figure(
    theory: pd.DataFrame, sim: pd.DataFrame, *, known_n: bool, new: Builder = figure
) -> go.Figure:
    """Theory lines with simulated points (± 2 SE) on top, log scale.

    Legend names are the frames' ``label`` column (:func:`dpcore.experiments.studies.simplex_label`:
    a known-n estimator under add-remove is named "n as public side information: not DP").
    """
    fig = new()
    th = theory[theory.known_n == known_n]
    # thick simplex lines first, thin (dashed) baselines on top: both stay visible where they
    # coincide (Gaussian B3 at f = 0.5 is the simplex exactly)
    groups = sorted(
        th.groupby("estimator", sort=False), key=lambda kv: not kv[0].startswith("simplex")
    )
    for name, grp in groups:
        dash = {"plugin_oracle": "dot", "centred": "dash"}.get(name, "solid")
        fig.add_trace(
            trace(
                go.Scatter,
                x=grp.p,
                y=grp.mse,
                mode="lines",
                name=_label(grp, name),
                legendgroup=name,
                line=dict(
                    color=COLORS[name], dash=dash, width=5 if name.startswith("simplex") else 2
                ),
            )
        )
    sm = sim[sim.known_n == known_n]
    for name, grp in sm.groupby("estimator", sort=False):
        fig.add_trace(
            trace(
                go.Scatter,
                x=grp.p,
                y=grp.mse,
                mode="markers",
                name=_label(grp, name) + " (simulated)",
                legendgroup=name,
                showlegend=False,
                error_y=dict(type="data", array=2 * grp.se, visible=True),
                marker=dict(color=COLORS[name], size=9, symbol="circle-open", line=dict(width=2)),
            )
        )
    fig.update_xaxes(title="where the data's mean sits in [0, R]: p = μ/R")
    fig.update_yaxes(title="MSE of the mean", type="log")
    styled(fig, height=440)
    fig.update_layout(legend=dict(font=dict(size=11)))
    return fig


def _label(grp: pd.DataFrame, name: str) -> str:
    """The frame's own label for estimator ``name`` (the plain :data:`LABELS` entry without one)."""
    return str(grp["label"].iloc[0]) if "label" in grp and len(grp) else LABELS[name]


#: The count histogram's y axis reaches this multiple of its tallest bar (room for the label).
HEADROOM = 1.25


def count_figure(df: pd.DataFrame, n: int, *, new: Builder = figure) -> go.Figure:
    """Histograms of the free count against the plug-in's paid count (the frame of
    :func:`dpcore.experiments.studies.count_draws`), with the true ``n`` marked."""
    fig = new()
    # shared, explicit bins, so the tallest bar is known and the "true n" label gets room above it
    edges = np.histogram_bin_edges(df["count"].to_numpy(float), bins=60)
    tallest = 1
    for src, color, pattern in zip(df.source.unique(), PAIR, ("", "/"), strict=True):
        counts = df[df.source == src]["count"].to_numpy(float)
        tallest = max(tallest, int(np.histogram(counts, bins=edges)[0].max(initial=0)))
        fig.add_trace(
            trace(
                go.Histogram,
                x=counts,
                name=src,
                opacity=0.6,
                marker=dict(color=color, pattern=dict(shape=pattern)),
                xbins=dict(
                    start=float(edges[0]), end=float(edges[-1]), size=float(edges[1] - edges[0])
                ),
            )
        )
    fig.add_vline(x=n, line=dict(color="#333", dash="dash"))
    fig.add_annotation(  # in the headroom above the bars, right of the line: never on a bar
        x=n,
        y=1,
        yref="paper",
        yanchor="top",
        xanchor="left",
        xshift=4,
        text=f"true n = {n:,}",
        showarrow=False,
    )
    fig.update_yaxes(range=[0, HEADROOM * tallest])
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(title="released count")
    fig.update_yaxes(title="releases")
    styled(fig, height=380)
    return fig
