"""Plotly builders for the Privacy budget page's lessons: the differencing attack
(:mod:`dpcore.experiments.attack`) and what a budget risks (:mod:`dpcore.theory.risk`). They draw
what those modules computed; they simulate nothing. Each returns ``(figure, DataFrame)`` with
exactly the data drawn. Legends sit below the plot and titles are short, so each fits a phone.

References
----------
docs/lessons.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.audit import AuditResult
from dpcore.audit.bounds import Event
from dpcore.experiments.attack import AttackRun
from dpcore.figures.dict_figure import Builder, styled
from dpcore.figures.style import figure, rgba, trace
from dpcore.theory.risk import (
    Deployment,
    dp_tradeoff,
    gdp_tradeoff,
    posterior_bound,
    posterior_floor,
)

VALUE_COLOR = "#1f77b4"
OTHER_COLOR = "#d62728"
BOUND_COLOR = "#555555"
MEASURED_COLOR = "#ff7f0e"


def _decades(values: list[float]) -> dict[str, list]:
    """Ticks at the powers of ten spanning ``values``, written in full (few enough to stay level
    on a phone); over two decades or less also at 2 and 5 times them, so at least two ticks fall
    between the smallest and the largest value (a span such as 2 to 15 had only "10")."""
    lo = int(np.floor(np.log10(min(values))))
    hi = int(np.ceil(np.log10(max(values))))
    steps = (1.0,) if hi - lo > 2 else (1.0, 2.0, 5.0)
    ticks = [m * 10.0**k for k in range(lo, hi + 1) for m in steps if m * 10.0**k <= 10.0**hi]
    return {"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}


def _your_budget(fig: Any, current: float, span: list, title: str, xs: Any) -> None:
    """A dotted vertical "your budget" line (a legend entry: plotly misplaces a vline's annotation
    on a log axis) and the log x axis with decade ticks spanning ``xs`` and ``current``."""
    fig.add_trace(
        trace(
            go.Scatter,
            x=[current, current],
            y=span,
            mode="lines",
            line=dict(color="#333333", dash="dot"),
            name="your budget",
        )
    )
    fig.update_xaxes(type="log", title=title, **_decades([*xs, current]))


def _below(fig: Any, title: str, height: int = 420) -> Any:
    """House style with the legend under the plot (room for it at the bottom); ``fig`` a
    ``go.Figure`` or a :class:`~dpcore.figures.dict_figure.DictFigure`."""
    styled(fig, title=title, height=height)
    fig.update_layout(
        legend=dict(orientation="h", yanchor="top", y=-0.2, xanchor="left", x=0.0),
        margin=dict(l=60, r=20, t=50, b=110),
    )
    return fig


def guesses_figure(
    run: AttackRun, bins: int = 60, *, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """Histograms of the attacker's reconstruction of the target's value, on the data with her
    real value and on the data with the other candidate, with both candidates marked (the 1% most
    extreme reconstructions are counted in the end bins). ``new``: what it draws on (a
    ``go.Figure`` by default; :func:`~dpcore.figures.dict_figure.chart_dict` gives a dict)."""
    both = np.concatenate([run.guesses_value, run.guesses_alternative])
    lo, hi = np.quantile(both, [0.005, 0.995])
    lo, hi = min(lo, run.value, run.alternative), max(hi, run.value, run.alternative)
    edges = np.linspace(lo, hi, bins + 1)
    centre = 0.5 * (edges[:-1] + edges[1:])
    counts = {  # the rare releases beyond the edges are counted in the end bins
        "her real value": np.histogram(np.clip(run.guesses_value, lo, hi), edges)[0],
        "the other value": np.histogram(np.clip(run.guesses_alternative, lo, hi), edges)[0],
    }
    df = pd.DataFrame({"bin_centre": centre, **{f"count ({k})": v for k, v in counts.items()}})
    fig = new()
    for (label, count), colour in zip(counts.items(), (VALUE_COLOR, OTHER_COLOR), strict=True):
        fig.add_trace(
            trace(
                go.Bar,
                x=centre,
                y=count / run.draws,
                width=float(edges[1] - edges[0]),
                name=f"data with {label}",
                marker=dict(color=rgba(colour, 0.55), line=dict(width=0)),
            )
        )
    marks = ((run.value, VALUE_COLOR, "real"), (run.alternative, OTHER_COLOR, "other"))
    # each label on the outer side of its line: two close candidates (on a phone, a few pixels
    # apart) put their words back to back, never on each other
    sides = ("right", "left") if run.value <= run.alternative else ("left", "right")
    fig.update_layout(  # what add_vline(x, annotation_text=...) adds, without its ~6 ms a line
        shapes=[
            {"line": {"color": colour, "dash": "dash"}, "type": "line", "x0": x, "x1": x}
            | {"xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
            for x, colour, _ in marks
        ],
        annotations=[
            {"showarrow": False, "text": text, "x": x, "xanchor": side, "xref": "x"}
            | {"y": 1, "yanchor": "top", "yref": "y domain"}
            for (x, _, text), side in zip(marks, sides, strict=True)
        ],
        barmode="overlay",
        xaxis_title="attacker's reconstruction of her value",
        yaxis_title="share of releases",
    )
    return _below(fig, "What the attacker reconstructs"), df


def attack_figure(
    curve: pd.DataFrame, current: float, unit_label: str, *, new: Builder = figure
) -> tuple[go.Figure, pd.DataFrame]:
    """The attacker's measured success against the budget, beside the most the budget allows,
    a coin flip and the exact attack without noise; the sidebar's budget marked. ``new`` as in
    :func:`guesses_figure`."""
    x = curve["budget"].tolist()
    ends = [min(x[0], current), max(x[-1], current)]
    fig = new(
        trace(
            go.Scatter,
            x=x,
            y=curve["bound"].tolist(),
            mode="lines",
            name="most the budget allows",
            line=dict(color=BOUND_COLOR, dash="dash"),
        ),
        trace(
            go.Scatter,
            x=x,
            y=curve["success"].tolist(),
            mode="lines+markers",
            name="measured success",
            line=dict(color=MEASURED_COLOR, width=3),
            marker=dict(size=8),
        ),
        trace(
            go.Scatter,
            x=ends,
            y=[1.0, 1.0],
            mode="lines",
            line=dict(color=OTHER_COLOR),
            name="no noise",
        ),
        trace(
            go.Scatter,
            x=ends,
            y=[0.5, 0.5],
            mode="lines",
            line=dict(color="#999999", dash="dot"),
            name="coin flip",
        ),
    )
    _your_budget(fig, current, [0.4, 1.05], f"budget {unit_label} (left: more private)", x)
    fig.update_yaxes(title="attacker right", tickformat=".0%", range=[0.4, 1.05])
    return _below(fig, "Attack success vs budget"), curve.copy()


def posterior_figure(epsilon: float, delta: float = 0.0) -> tuple[go.Figure, pd.DataFrame]:
    """How far one release can move an attacker's belief about one person: from each prior, the
    highest and lowest posterior the budget allows (odds at most ``e^ε`` times higher or lower)."""
    prior = np.linspace(0.0, 1.0, 101)
    df = pd.DataFrame(
        {
            "prior": prior,
            "posterior_max": posterior_bound(prior, epsilon),
            "posterior_min": posterior_floor(prior, epsilon),
        }
    )
    fig = go.Figure()
    fig.add_scatter(
        x=prior, y=df["posterior_min"], mode="lines", line=dict(width=0), showlegend=False
    )
    fig.add_scatter(
        x=prior,
        y=df["posterior_max"],
        mode="lines",
        fill="tonexty",
        fillcolor=rgba(OTHER_COLOR, 0.15),
        line=dict(color=OTHER_COLOR, width=3),
        name=f"where the belief can end (ε = {epsilon:.3g})",
    )
    fig.add_scatter(
        x=[0, 1], y=[0, 1], mode="lines", line=dict(color="#999999", dash="dot"), name="no release"
    )
    slack = f", up to δ = {delta:g}" if delta > 0 else ""
    fig.update_xaxes(title="belief before the release (prior)", tickformat=".0%")
    fig.update_yaxes(title=f"belief after{slack}", tickformat=".0%", range=[0, 1])
    return _below(fig, "What one release can teach"), df


def tradeoff_figure(
    *,
    mu: float | None = None,
    epsilon: float | None = None,
    delta: float = 0.0,
    points: pd.DataFrame | None = None,
    points_label: str = "measured",
    new: Builder = figure,
) -> tuple[go.Figure, pd.DataFrame]:
    """The best attacker's trade-off: the least false-negative rate at each false-positive rate a
    μ-GDP (``mu``) or ``(ε, δ)``-DP release allows, with measured ``(alpha, beta)`` points; every
    test lies on or above the curve. ``new`` as in :func:`guesses_figure`."""
    alpha = np.linspace(0.0, 1.0, 201)
    if mu is not None:
        beta, label = gdp_tradeoff(alpha, mu), f"best possible (μ = {mu:.3g} Gaussian DP)"
    elif epsilon is not None:
        beta, label = dp_tradeoff(alpha, epsilon, delta), f"best possible (ε = {epsilon:.3g})"
    else:
        raise ValueError("give mu= (Gaussian DP) or epsilon= (and delta=) for the curve.")
    df = pd.DataFrame({"alpha": alpha, "beta": beta, "kind": "bound"})
    fig = new(
        trace(
            go.Scatter,
            x=alpha,
            y=beta,
            mode="lines",
            line=dict(color=BOUND_COLOR, width=3),
            name=label,
        ),
        trace(
            go.Scatter,
            x=[0, 1],
            y=[1, 0],
            mode="lines",
            line=dict(color="#999999", dash="dot"),
            name="guessing",
        ),
    )
    if points is not None and len(points):
        fig.add_trace(
            trace(
                go.Scatter,
                x=points["alpha"].tolist(),
                y=points["beta"].tolist(),
                mode="markers",
                marker=dict(color=MEASURED_COLOR, size=9),
                name=points_label,
            )
        )
        df = pd.concat([df, points.assign(kind=points_label)[["alpha", "beta", "kind"]]])
    fig.update_xaxes(title="false positives (α)", range=[0, 1], tickformat=".0%")
    fig.update_yaxes(title="false negatives (β)", range=[0, 1], tickformat=".0%")
    return _below(fig, "Best attacker's errors", height=460), df.reset_index(drop=True)


def audit_points(r: AuditResult, k: int = 15) -> pd.DataFrame:
    """The audit's measured error rates: its chosen event (``kind = "event"``) and the same event
    at ``k`` other thresholds (``"threshold"``), on its evaluation draws. An attacker says "the
    data set on top" when the event happens: ``alpha`` is how often that happens on the other data
    set, ``beta`` how often it fails to on the top one."""
    top, other = (r.t_d, r.t_d_prime) if r.event.numerator == "D" else (r.t_d_prime, r.t_d)
    qs = np.quantile(np.concatenate([top, other]), np.linspace(0.05, 0.95, k))
    events = [r.event] + [Event(r.event.op, float(q), r.event.numerator) for q in qs]
    return pd.DataFrame(
        {
            "threshold": [e.threshold for e in events],
            "alpha": [float(e.hits(other).mean()) for e in events],
            "beta": [1.0 - float(e.hits(top).mean()) for e in events],
            "kind": ["event"] + ["threshold"] * k,
        }
    )


def deployments_figure(
    rows: list[tuple[Deployment, float, float]], current: float, delta: float
) -> tuple[go.Figure, pd.DataFrame]:
    """Published deployments on one ε scale (each read as an odds bound at the δ it states, a ρ
    at the δ its publisher reads it at, else at ``delta``), with the sidebar's budget read at
    ``delta``."""
    df = pd.DataFrame(
        [
            {
                "deployment": f"{d.who}: {d.what}",
                "short": d.short,
                "published": d.label(),
                "model": d.model,
                "per": d.per,
                "epsilon": eps,
                "delta": dl,
            }
            for d, eps, dl in rows
        ]
    )
    fig = go.Figure()
    for model, colour in (("central", VALUE_COLOR), ("local", OTHER_COLOR)):
        part = df[df["model"] == model]
        fig.add_scatter(
            x=part["epsilon"].tolist(),
            y=part["short"].tolist(),
            mode="markers",
            marker=dict(color=colour, size=11),
            name=f"{model} DP",
            customdata=part[["published", "per"]].to_numpy(),
            hovertemplate="%{y}: %{customdata[0]} per %{customdata[1]}<extra></extra>",
        )
    order = df["short"].tolist()
    _your_budget(
        fig,
        current,
        [order[0], order[-1]],
        f"ε (a ρ read at δ = {delta:g} unless its publisher states a δ)",
        df["epsilon"],
    )
    fig.update_yaxes(categoryorder="array", categoryarray=order, autorange="reversed")
    return _below(fig, "Budgets others published", height=440), df
