"""Plotly figures for the binary product page (pure plotly, no streamlit).

References
----------
docs/estimators/binary-product.md §6 (what the teaching app should show).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from dpcore.estimate import Estimate
from dpcore.estimators.binary_product import BinaryProductDiagnostics
from dpcore.figures.dict_figure import GridDict
from dpcore.figures.style import add_shapes, log_ticks, subplots
from dpcore.registry import get

#: The final round's colour: teal, which no bucket colour (Dark2 after its first, then Set1) uses.
FINAL_COLOR = "#17becf"
NAIVE_COLOR = get("binary_naive_laplace").color  # the registry colour, as everywhere


def group_color(label: str) -> str:
    """Colour of a group: bucket T_r gets a fixed palette colour, the final round green."""
    if label == "final":
        return FINAL_COLOR
    r = int(label[1:])
    palette = qualitative.Dark2[1:] + qualitative.Set1
    return palette[(r - 1) % len(palette)]


def ladder_frame(p: np.ndarray, pde: Estimate, naive: Estimate) -> pd.DataFrame:
    """One row per coordinate, sorted by true p: group, noise std of both estimators, estimates."""
    ex = pde.diagnostics_as(BinaryProductDiagnostics)
    df = pd.DataFrame(
        {
            "coordinate": np.arange(p.size),
            "p": p,
            "group": ex.group_label,
            "flipped": ex.flipped,
            "noise_std_pde": pde.diagnostics.noise_std,
            "noise_std_naive": naive.diagnostics.noise_std,
            "estimate_pde": pde.mean,
            "estimate_naive": naive.mean,
        }
    )
    df = df.sort_values("p", ascending=False, kind="stable").reset_index(drop=True)
    df.insert(0, "rank", np.arange(1, p.size + 1))
    return df


#: How far left (px) each later round's τ label sits: a label's width at projector size (20 px
#: text), so neighbours never stack, also on a phone's 300-px panel (a share of the panel's width
#: was narrower than a label there).
TAU_LABEL_STEP = 28
#: The gap between the two panels, as a share of the plot's height: room for the lower panel's
#: title (two lines on a phone, 16-20 px text on a projector) between the upper panel's lowest
#: dots and the lower panel (at 0.08 the title sat over the upper panel's dots on a phone).
PANEL_GAP = 0.17


def _threshold_shapes(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each round's threshold τ_r as a dotted line across the top panel (``add_hline(row=1,
    col=1)``, batched)."""
    thresholds = {"color": "#999", "dash": "dot", "width": 1}
    return [
        {"line": thresholds, "type": "line", "x0": 0, "x1": 1, "xref": "x domain"}
        | {"y0": row["tau"], "y1": row["tau"], "yref": "y"}
        for row in rounds
    ]


def _threshold_labels(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each dotted line's label, at its right: the thresholds of late rounds sit close together on
    the log axis, so the labels step leftwards one label's width (px) a round. Full-size digits in
    a dark grey: Unicode subscripts (τ₁) drew at about half the chart's text size on a projector."""
    font = {"color": "#555", "size": 11}
    return [
        {"font": font, "showarrow": False, "text": f"τ{r}"}
        | {"x": 1, "xshift": -TAU_LABEL_STEP * (r - 1), "xanchor": "right", "xref": "x domain"}
        | {"y": float(np.log10(row["tau"])), "yanchor": "bottom", "yref": "y"}
        for r, row in enumerate(rounds, start=1)
    ]


def _thresholds(fig: go.Figure, rounds: list[dict[str, Any]]) -> None:
    """The thresholds' lines and labels on ``fig``: one layout assignment each
    (fig.add_annotation re-validates every annotation already there at each call)."""
    add_shapes(fig, _threshold_shapes(rounds))
    fig.layout.annotations = (*fig.layout.annotations, *_threshold_labels(rounds))


def _ladder_grid() -> go.Figure:
    """The two panels, empty."""
    return subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=PANEL_GAP,
        subplot_titles=(
            "True probability pⱼ, coloured by the group the estimator chose",
            "Noise standard deviation each coordinate received",
        ),
    )


def _ladder_axes(fig: go.Figure) -> None:
    """The axes and the layout (no data)."""
    fig.update_yaxes(
        type="log", title_text="pⱼ (log)", dtick=1, exponentformat="power", row=1, col=1
    )
    fig.update_yaxes(
        type="log", title_text="noise std (log)", dtick=1, exponentformat="power", row=2, col=1
    )
    fig.update_xaxes(title_text="coordinate rank (largest pⱼ first)", row=2, col=1)
    fig.update_layout(
        height=620, margin={"t": 40, "b": 40}, legend={"orientation": "h", "y": -0.12}
    )


@functools.lru_cache(maxsize=1)
def _ladder_layout() -> dict[str, Any]:
    """The panels, axes and layout as plotly writes them, laid out once per process (they hold
    no data; :func:`ladder_figure` adds the thresholds to a copy). Never changed."""
    fig = _ladder_grid()
    _ladder_axes(fig)
    return fig.to_dict()["layout"]


def _ladder_traces(df: pd.DataFrame) -> list[tuple[dict[str, Any], int]]:
    """The traces as dicts with their panel's row: two per group (p_j on top, its noise std
    below), then naive Laplace's flat noise level below. NumPy columns: plotly converts a pandas
    Series slowly."""
    order = sorted(
        df["group"].unique(), key=lambda g: (g == "final", int(g[1:]) if g != "final" else 0)
    )
    groups = df["group"].to_numpy()
    rank, p, noise = (df[c].to_numpy() for c in ("rank", "p", "noise_std_pde"))
    traces: list[tuple[dict[str, Any], int]] = []
    for g in order:
        sub = groups == g
        name = "final round (light)" if g == "final" else f"bucket {g}"
        marker = {"color": group_color(g), "size": 6}
        points = {"mode": "markers", "name": name, "legendgroup": g, "marker": marker}
        traces += [
            ({"x": rank[sub], "y": p[sub], **points}, 1),
            ({"x": rank[sub], "y": noise[sub], "showlegend": False, **points}, 2),
        ]
    naive = {"x": df["rank"].to_numpy(), "y": df["noise_std_naive"].to_numpy()}
    line = {"color": NAIVE_COLOR, "dash": "dash", "width": 2}
    traces.append(({**naive, "mode": "lines", "name": "naive Laplace noise", "line": line}, 2))
    return traces


def ladder_figure(df: pd.DataFrame, rounds: list[dict[str, Any]], *, drawn: bool = False) -> Any:
    """Top: true p_j (sorted, log y) coloured by the group the estimator put j in, with the round
    thresholds τ_r. Bottom: the noise std each coordinate received, PDPE by group against the flat
    naive Laplace level.

    ``drawn=True``: the chart as the page draws it, plotly's dict (its log axes' ticks set as
    :func:`~dpcore.figures.style.tidy_log_axes` sets them), built on the layout kept per process
    without a validation pass; else a ``go.Figure`` (notebooks, reports)."""
    traces = _ladder_traces(df)
    if drawn:
        return _ladder_dict(traces, rounds)
    fig = _ladder_grid()
    fig.add_traces(  # one call, not one a trace
        [go.Scatter(**t) for t, _ in traces], rows=[r for _, r in traces], cols=[1] * len(traces)
    )
    _thresholds(fig, rounds)
    _ladder_axes(fig)
    return fig


def _ladder_dict(traces: list[tuple[dict[str, Any], int]], rounds: list[dict[str, Any]]) -> dict:
    """:func:`ladder_figure`'s chart as plotly's dict, log ticks tidied (``drawn=True``)."""
    grid = GridDict(copy.deepcopy(_ladder_layout()), cols=1)
    for t, row in traces:
        grid.add_trace({"type": "scatter", **t}, row, 1)
    layout = grid.layout
    layout["shapes"] = [*layout.get("shapes", []), *_threshold_shapes(rounds)]
    layout["annotations"] = [*layout.get("annotations", []), *_threshold_labels(rounds)]
    for row, axis in ((1, "yaxis"), (2, "yaxis2")):  # as tidy_log_axes does for a figure
        if layout[axis].get("type") == "log" and "tickvals" not in layout[axis]:
            ys = [t["y"] for t, r in traces if r == row]
            layout[axis].update(log_ticks(np.concatenate(ys).astype(float)))
    return grid.to_dict()


def tv_summary(records: list[dict[str, Any]], x: str) -> pd.DataFrame:
    """Mean and sd of TV per estimator and grid point (tidy)."""
    df = pd.DataFrame(records)
    out = df.groupby([x, "estimator"], as_index=False)["tv"].agg(["mean", "std"]).reset_index()
    return out.rename(columns={"mean": "tv_mean", "std": "tv_sd"}).drop(
        columns=["index"], errors="ignore"
    )


def tv_headline(
    tv: Mapping[str, float], labels: Mapping[str, str], *, reference: str = "empirical"
) -> str:
    """The one-draw headline, computed against **every** private estimator in ``tv``.

    ``tv`` maps a key to its TV; ``reference`` (the non-private mean) is reported as the sampling
    cost and never named the winner. The winner is the private estimator with the smallest TV; the
    sentence gives its ratio to each other one and says it is one draw.
    """
    private = {k: v for k, v in tv.items() if k != reference}
    order = sorted(private, key=lambda k: private[k])
    best = order[0]
    rest = "; ".join(
        f"{labels[k]} {private[k]:.3f} ({private[k] / max(private[best], 1e-12):.1f}×)"
        for k in order[1:]
    )
    text = f"On this dataset **{labels[best]}** has the smallest TV, {private[best]:.3f}"
    text += f" (against {rest})" if rest else ""
    if reference in tv:
        text += f"; sampling alone costs {tv[reference]:.3f}"
    return text + ". One draw: the charts below average over seeds."


def sweep_winners(summary: pd.DataFrame, x: str) -> str:
    """Which estimator has the smallest mean TV at each grid point of a :func:`tv_summary`, in words."""
    piv = summary[summary["estimator"] != "empirical"].pivot(
        index=x, columns="estimator", values="tv_mean"
    )
    best = piv.idxmin(axis=1)
    parts = []
    for name, pts in best.groupby(best, sort=False):
        label = _label(str(name))[0]
        where = ", ".join(f"{v:,}" for v in pts.index) if len(pts) < len(piv) else "every point"
        parts.append(
            f"**{label}** at {x} = {where}"
            if where != "every point"
            else f"**{label}** at every {x}"
        )
    return "Smallest mean TV: " + "; ".join(parts) + "."


def _label(name: str) -> tuple[str, str]:
    if name == "empirical":
        return "non-private mean", "#444444"
    spec = get(name)
    return spec.label, spec.color


def _shade_naive_wins(fig: go.Figure, summary: pd.DataFrame, x: str) -> None:
    """Shade the grid points where naive Laplace has a smaller mean TV than PureDPPDE, each from
    the geometric midpoint to its neighbours (no gaps between neighbouring shaded points)."""
    piv = summary.pivot(index=x, columns="estimator", values="tv_mean")
    if not {"binary_pde", "binary_naive_laplace"} <= set(piv.columns):
        return
    xs = piv.index.to_numpy(float)
    wins = piv["binary_naive_laplace"].to_numpy() < piv["binary_pde"].to_numpy()
    mids = np.sqrt(xs[1:] * xs[:-1])
    lows = np.concatenate([[xs[0] / (xs[1] / xs[0]) ** 0.5 if len(xs) > 1 else xs[0] * 0.8], mids])
    highs = np.concatenate(
        [mids, [xs[-1] * (xs[-1] / xs[-2]) ** 0.5 if len(xs) > 1 else xs[0] * 1.2]]
    )
    shade = {"fillcolor": NAIVE_COLOR, "line": {"width": 0}, "opacity": 0.1, "type": "rect"}
    add_shapes(  # fig.add_vrect(x0, x1, ...) per point where naive Laplace wins, batched
        fig,
        [
            {**shade, "x0": lo, "x1": hi, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
            for lo, hi, w in zip(lows, highs, wins, strict=True)
            if w
        ],
    )
    if wins.any():
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name="shaded: naive Laplace beats PureDPPDE",
                marker={"symbol": "square", "size": 12, "color": NAIVE_COLOR, "opacity": 0.25},
            )
        )


def tv_figure(
    summary: pd.DataFrame,
    x: str,
    curves: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
    title: str = "",
) -> go.Figure:
    """TV against ``x`` (log-log), mean ± sd over seeds, with reference curves (dotted, cut at 1)
    and shaded where naive Laplace, the paper's baseline, beats PureDPPDE. TV lies in [0, 1], so
    the axis ends at 1."""
    fig = go.Figure()
    for name, sub in summary.groupby("estimator", sort=False):
        label, color = _label(str(name))
        fig.add_trace(
            go.Scatter(
                x=sub[x],
                y=sub["tv_mean"],
                name=label,
                mode="lines+markers",
                line={"color": color},
                error_y={"type": "data", "array": sub["tv_sd"].fillna(0), "visible": True},
            )
        )
    for label, (xs, ys) in (curves or {}).items():
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=np.minimum(ys, 1.0),  # a bound above 1 says nothing about a TV
                name=label,
                mode="lines",
                line={"dash": "dot", "width": 1.5},
            )
        )
    _shade_naive_wins(fig, summary, x)
    grid = np.sort(summary[x].unique())
    fig.update_xaxes(type="log", title_text=x, tickvals=grid, ticktext=[f"{v:,.0f}" for v in grid])
    low = float(np.nanmin(summary["tv_mean"].to_numpy(float), initial=1.0))
    fig.update_yaxes(
        type="log",
        title_text="total variation to the true distribution",
        range=[np.log10(max(low, 1e-6)) - 0.25, 0.0],
        dtick=1,
        exponentformat="power",
    )
    fig.update_layout(  # the legend below the chart: on a phone a side legend covers the lines
        title=title,
        height=520,
        margin={"t": 50, "b": 40},
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0},
    )
    return fig
