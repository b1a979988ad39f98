"""Plotly builders for the Privacy audit page: the two output distributions and the likelihood
ratio against the ``e^ε`` band. They draw an :class:`dpcore.audit.AuditResult`; they simulate
nothing. Each returns ``(figure, DataFrame)`` with exactly the data drawn.

References
----------
dpcore.audit.bounds (the statistics and the claims).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore import registry
from dpcore.audit import AuditResult, likelihood_ratio
from dpcore.figures.style import rgba, style

D_COLOR = "#1f77b4"
D_PRIME_COLOR = "#d62728"
BAND_COLOR = "#2ca02c"


def _frame(r: AuditResult, bins: int) -> pd.DataFrame:
    lr = likelihood_ratio(r.t_d, r.t_d_prime, bins=bins)
    return pd.DataFrame(
        {
            "bin_left": lr["left"],
            "bin_right": lr["right"],
            "bin_centre": lr["centre"],
            "count_D": lr["count_d"],
            "count_D_prime": lr["count_d_prime"],
            "log_ratio": lr["log_ratio"],
            "se": lr["se"],
        }
    )


def clearly_outside(df: pd.DataFrame, epsilon: float) -> pd.Series:
    """Bins whose log ratio is beyond ``±epsilon`` by more than two standard errors."""
    return (df["log_ratio"].abs() - 2.0 * df["se"]) > epsilon


def distributions_figure(r: AuditResult, bins: int = 40) -> tuple[go.Figure, pd.DataFrame]:
    """Histograms of the 1-D statistic ``T`` on ``D`` and ``D′`` with the chosen threshold."""
    df = _frame(r, bins)
    width = df["bin_right"] - df["bin_left"]
    fig = go.Figure()
    for col, name, colour in (("count_D", "D", D_COLOR), ("count_D_prime", "D′", D_PRIME_COLOR)):
        fig.add_bar(
            x=df["bin_centre"],
            y=df[col] / r.draws,
            width=width,
            name=f"T on {name}",
            marker_color=rgba(colour, 0.55),
            marker_line_width=0,
        )
    fig.add_vline(
        x=r.event.threshold,
        line_dash="dash",
        line_color="#333333",
        annotation_text=f"event T {r.event.op} {r.event.threshold:.3g}",
        annotation_position="top",
    )
    fig.update_layout(
        barmode="overlay",
        xaxis_title=f"T = {r.event.statistic} of the release",
        yaxis_title="share of draws",
    )
    label = {e.name: e.label for e in registry.all_estimators()}.get(r.estimator, r.estimator)
    style(fig, title=f"{label}: the release on D and on its neighbour D′")
    fig.update_layout(margin=dict(t=100), legend=dict(y=1.08))
    return fig, df


def ratio_figure(r: AuditResult, bins: int = 40) -> tuple[go.Figure, pd.DataFrame]:
    """Per-bin ``ln(p_D/p_D′)`` against the band ``±ε`` the claim allows (pure DP; for an
    ``(ε, δ)`` claim the band is where the ratio must stay up to the ``δ`` slack). For ``ε``
    claims only: a ``μ``-GDP claim has no such band."""
    df = _frame(r, bins)
    eps = r.claim.epsilon
    fig = go.Figure()
    lo, hi = float(df["bin_left"].min()), float(df["bin_right"].max())
    fig.add_trace(
        go.Scatter(
            x=[lo, hi, hi, lo],
            y=[-eps, -eps, eps, eps],
            fill="toself",
            mode="lines",
            line_width=0,
            fillcolor=rgba(BAND_COLOR, 0.15),
            name=f"allowed: |ln ratio| ≤ ε = {eps:.3g}",
            hoverinfo="skip",
        )
    )
    ok = np.isfinite(df["log_ratio"])
    outside = ok & clearly_outside(df, eps)
    for mask, colour, symbol, label in (
        (ok & ~outside, "#333333", "circle", "ln(p_D / p_D′) per bin, ± 2 SE"),
        (outside, D_PRIME_COLOR, "x", "clearly outside the band (> 2 SE)"),
    ):
        fig.add_scatter(
            x=df["bin_centre"][mask],
            y=df["log_ratio"][mask],
            mode="markers",
            name=label,
            marker=dict(color=colour, size=8, symbol=symbol),
            error_y=dict(type="data", array=2.0 * df["se"][mask], color=rgba(colour, 0.5)),
        )
    fig.add_hline(
        y=r.epsilon_lower if r.event.numerator == "D" else -r.epsilon_lower,
        line_dash="dot",
        line_color=D_PRIME_COLOR if r.violated else "#555555",
        annotation_text=f"audited lower bound ε̂ = {r.epsilon_lower:.3g}",
        annotation_position="bottom right",
    )
    fig.update_layout(
        xaxis_title=f"T = {r.event.statistic} of the release", yaxis_title="ln likelihood ratio"
    )
    style(fig, title="Likelihood ratio against the eᵋ band (bins with ≥ 5 draws on both sides)")
    fig.update_layout(margin=dict(t=100), legend=dict(y=1.08))
    return fig, df
