"""Plotly builders for the "Side by side" page: every estimator's clipping region and noise shape in
two coordinates, at one shared scale (no streamlit here; these draw, they do not simulate).

Each builder returns ``(figure, data_frame)``; the frame is exactly what is drawn (outline vertices,
releases, the true mean), so the page can offer it as a CSV.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Figure 1 (the four steps); docs/estimators/plan.md
§2, §5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.style import figure, rgba, style, subplots, trace, wrap_label
from dpcore.theory.gallery import GalleryEntry

#: Line dashes and marker symbols cycled over estimators, so no estimator is told apart by colour only.
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = (
    "circle",
    "square",
    "diamond",
    "triangle-up",
    "cross",
    "triangle-down",
    "pentagon",
    "hexagon",
)
DATA_COLOR = "rgba(127, 127, 127, 0.35)"
TRUTH_COLOR = "#1d2733"
_NOISE_WORD = {"gaussian": "Gaussian ellipse", "laplace": "Laplace diamond", "none": "no noise"}


def _short(label: str, width: int = 34) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def gallery_frame(entries: Sequence[GalleryEntry], true_mean: Sequence[float]) -> pd.DataFrame:
    """Tidy frame of everything drawn: outline vertices of regions and noise shapes, releases, truth."""
    rows: list[dict] = []
    for e in entries:
        for part, kind, pts in (
            ("clip region", e.region.kind, e.region.outline),
            ("noise shape", e.noise.kind, e.noise.outline),
        ):
            rows += [
                {
                    "estimator": e.name,
                    "label": e.label,
                    "shape": part,
                    "kind": kind,
                    "x": float(px),
                    "y": float(py),
                }
                for px, py in pts
            ]
        rows.append(
            {
                "estimator": e.name,
                "label": e.label,
                "shape": "release",
                "kind": "point",
                "x": float(e.release[0]),
                "y": float(e.release[1]),
            }
        )
    rows.append(
        {
            "estimator": "truth",
            "label": "true mean",
            "shape": "true mean",
            "kind": "point",
            "x": float(true_mean[0]),
            "y": float(true_mean[1]),
        }
    )
    return pd.DataFrame(rows, columns=["estimator", "label", "shape", "kind", "x", "y"])


def _extent(
    entries: Sequence[GalleryEntry], points: np.ndarray, true_mean: Sequence[float], zoom: str
) -> tuple[list[float], list[float]]:
    """One shared range for every panel, padded by 5%: the data and the releases (``zoom="data"``;
    larger regions run off the frame), the data and every whole region (``zoom="clip"``) or every
    noise shape and release (``zoom="noise"``)."""
    parts = [np.asarray(true_mean, float).reshape(1, 2)]
    for e in entries:
        parts.append(e.release.reshape(1, 2))
        if zoom == "clip":
            parts.append(e.region.outline)
        elif zoom == "noise":
            parts.append(e.noise.outline)
            parts.append(e.noiseless.reshape(1, 2))
    if zoom != "noise" and points.size:
        parts.append(points)
    allp = np.vstack([p for p in parts if p.size])
    allp = allp[np.all(np.isfinite(allp), axis=1)]
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    pad = np.maximum((hi - lo) * 0.05, 1e-9 + 1e-6 * np.abs(hi))
    return [float(lo[0] - pad[0]), float(hi[0] + pad[0])], [
        float(lo[1] - pad[1]),
        float(hi[1] + pad[1]),
    ]


def _add_entry(
    fig: go.Figure,
    e: GalleryEntry,
    k: int,
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
    zoom: str = "clip",
) -> None:
    dash, symbol = DASHES[k % len(DASHES)], SYMBOLS[k % len(SYMBOLS)]
    where = {"row": row, "col": col} if row is not None else {}
    group = e.name
    if zoom != "noise" and e.region.kind != "none":
        fig.add_trace(
            trace(
                go.Scatter,
                x=e.region.outline[:, 0],
                y=e.region.outline[:, 1],
                mode="lines",
                fill="toself",
                fillcolor=rgba(e.color, 0.08),
                line=dict(color=e.color, width=2.5, dash=dash),
                name=wrap_label(e.label, 34),
                legendgroup=group,
                showlegend=legend,
                hovertemplate=f"{e.label}<br>clip region: {e.region.note}<extra></extra>",
            ),
            **where,
        )
    if e.noise.kind != "none":
        fig.add_trace(
            trace(
                go.Scatter,
                x=e.noise.outline[:, 0],
                y=e.noise.outline[:, 1],
                mode="lines",
                fill="toself",
                fillcolor=rgba(e.color, 0.18),
                line=dict(color=e.color, width=1.5, dash=dash),
                name=f"{wrap_label(e.label, 34)}: {e.noise.prob:.0%} noise",
                legendgroup=group,
                showlegend=legend and zoom == "noise",
                hovertemplate=(
                    f"{e.label}<br>{_NOISE_WORD[e.noise.kind]} holding the release with probability "
                    f"{e.noise.prob:.0%}<extra></extra>"
                ),
            ),
            **where,
        )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[e.release[0]],
            y=[e.release[1]],
            mode="markers",
            name=f"{wrap_label(e.label, 34)}: release",
            legendgroup=group,
            showlegend=False,
            marker=dict(symbol=symbol, size=11, color=e.color, line=dict(color="white", width=1.2)),
            hovertemplate=f"{e.label}<br>release (%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
        ),
        **where,
    )


def _add_common(
    fig: go.Figure,
    points: np.ndarray,
    true_mean: Sequence[float],
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
) -> None:
    where = {"row": row, "col": col} if row is not None else {}
    if points.size:
        fig.add_trace(
            trace(
                go.Scatter,
                x=points[:, 0],
                y=points[:, 1],
                mode="markers",
                name="data (sample of rows)",
                marker=dict(size=3, color=DATA_COLOR),
                legendgroup="data",
                showlegend=legend,
                hoverinfo="skip",
            ),
            **where,
        )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[true_mean[0]],
            y=[true_mean[1]],
            mode="markers",
            name="true mean",
            legendgroup="truth",
            showlegend=legend,
            marker=dict(
                symbol="star", size=15, color=TRUTH_COLOR, line=dict(color="white", width=1)
            ),
            hovertemplate="true mean (%{x:.4g}, %{y:.4g})<extra></extra>",
        ),
        **where,
    )


def gallery_figure(
    entries: Sequence[GalleryEntry],
    points: np.ndarray,
    true_mean: Sequence[float],
    coords: Sequence[int],
    *,
    view: str = "small",
    zoom: str = "data",
    columns: int = 3,
    height: int | None = None,
) -> tuple[go.Figure, pd.DataFrame]:
    """Clipping regions and noise shapes of ``entries`` at one shared scale.

    Parameters
    ----------
    entries : sequence of GalleryEntry
        One run per estimator (:func:`dpcore.experiments.studies.run_gallery`).
    points : array (m, 2)
        Rows of the data in the two coordinates (a subsample), drawn in grey.
    true_mean : (2,)
        The true mean in the two coordinates.
    coords : (i, j)
        0-based coordinates, for the axis titles.
    view : {"small", "overlay"}
        Small multiples (one panel per estimator, shared axes) or one overlaid panel.
    zoom : {"data", "clip", "noise"}
        Frame the data (regions larger than the data run off the frame), the data and every whole
        clipping region, or zoom on the noise shapes and releases.
    columns : int
        Panels per row in the small-multiples view.
    """
    if view not in ("small", "overlay"):
        raise ValueError(f"view must be 'small' or 'overlay'; got {view!r}.")
    if zoom not in ("data", "clip", "noise"):
        raise ValueError(f"zoom must be 'data', 'clip' or 'noise'; got {zoom!r}.")
    pts = np.asarray(points, float).reshape(-1, 2)
    draw_pts = pts if zoom != "noise" else np.empty((0, 2))
    xr, yr = _extent(entries, pts, true_mean, zoom)
    i, j = (int(c) for c in coords)
    what = "noise shapes (zoomed)" if zoom == "noise" else "clipping regions and noise shapes"
    if view == "overlay" or not entries:
        fig = figure()
        _add_common(fig, draw_pts, true_mean)
        for k, e in enumerate(entries):
            _add_entry(fig, e, k, zoom=zoom, legend=True)
            if zoom != "noise" and e.region.kind != "none":
                top = e.region.outline[np.argmax(e.region.outline[:, 1])]
                fig.add_annotation(
                    x=top[0],
                    y=top[1],
                    text=wrap_label(e.label, 22),
                    showarrow=False,
                    yanchor="bottom",
                    yshift=4,
                    font=dict(color=e.color, size=11),
                )
        fig.update_xaxes(range=xr, title=f"coordinate {i + 1}")
        fig.update_yaxes(range=yr, title=f"coordinate {j + 1}")
        style(fig, title=f"All {what}, one scale", height=height or 560)
        fig.update_layout(legend=dict(font=dict(size=11)))
        return fig, gallery_frame(entries, true_mean)
    cols = max(1, min(int(columns), len(entries)))
    rows = math.ceil(len(entries) / cols)
    fig = subplots(
        rows=rows,
        cols=cols,
        shared_xaxes="all",
        shared_yaxes="all",
        subplot_titles=[wrap_label(e.label, 30) for e in entries],  # whole, on 1-2 lines
        horizontal_spacing=0.04,
        vertical_spacing=0.12 if rows > 1 else 0.08,
    )
    for k, e in enumerate(entries):
        r, c = divmod(k, cols)
        _add_common(fig, draw_pts, true_mean, row=r + 1, col=c + 1, legend=k == 0)
        _add_entry(fig, e, k, row=r + 1, col=c + 1, legend=True, zoom=zoom)
    fig.update_xaxes(range=xr)
    fig.update_yaxes(range=yr)
    for c in range(cols):
        fig.update_xaxes(title=f"coordinate {i + 1}", row=rows, col=c + 1)
    for r in range(rows):
        fig.update_yaxes(title=f"coordinate {j + 1}", row=r + 1, col=1)
    for ann in fig.layout.annotations:
        ann.font = dict(size=12)
    two_lines = any("<br>" in (a.text or "") for a in fig.layout.annotations)
    style(fig, title=f"Each estimator's {what}, one scale", height=height or 300 * rows + 110)
    if two_lines:  # the panel titles take two lines: the figure title above them, not across
        fig.update_layout(
            margin=dict(t=96), title=dict(y=1.0, yref="container", yanchor="top", pad=dict(t=8))
        )
    fig.update_layout(showlegend=False)
    return fig, gallery_frame(entries, true_mean)


def releases_figure(
    draws: np.ndarray,
    e: GalleryEntry,
    true_mean: Sequence[float],
    coords: Sequence[int],
) -> tuple[go.Figure, pd.DataFrame]:
    """Where ``draws`` (reps, 2) releases of one estimator land (hypothetical outcomes), with the
    noise shape of the first run and the true mean."""
    dr = np.asarray(draws, float).reshape(-1, 2)
    i, j = (int(c) for c in coords)
    inside = _inside(dr, e)
    fig = figure()
    fig.add_trace(
        trace(
            go.Scatter,
            x=dr[:, 0],
            y=dr[:, 1],
            mode="markers",
            name=f"{len(dr)} releases",
            marker=dict(
                size=7,
                color=rgba(e.color, 0.55),
                symbol="circle",
                line=dict(color=e.color, width=0.8),
            ),
            hovertemplate="release (%{x:.4g}, %{y:.4g})<extra></extra>",
        )
    )
    if e.noise.kind != "none":
        fig.add_trace(
            trace(
                go.Scatter,
                x=e.noise.outline[:, 0],
                y=e.noise.outline[:, 1],
                mode="lines",
                line=dict(color=e.color, width=2, dash="dash"),
                name=f"{_NOISE_WORD[e.noise.kind]} of one run ({e.noise.prob:.0%})",
            )
        )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[true_mean[0]],
            y=[true_mean[1]],
            mode="markers",
            name="true mean",
            marker=dict(
                symbol="star", size=16, color=TRUTH_COLOR, line=dict(color="white", width=1)
            ),
        )
    )
    fig.update_xaxes(title=f"coordinate {i + 1}")
    fig.update_yaxes(title=f"coordinate {j + 1}", scaleanchor="x", scaleratio=1)
    style(fig, title=f"{len(dr)} releases of {e.label} on the same data", height=520)
    df = pd.DataFrame(
        {"release": np.arange(len(dr)), "x": dr[:, 0], "y": dr[:, 1], "inside_shape": inside}
    )
    return fig, df


def _inside(dr: np.ndarray, e: GalleryEntry) -> np.ndarray:
    """Which releases lie inside the run's noise shape (for the sentence)."""
    if e.noise.kind == "none":
        return np.zeros(len(dr), dtype=bool)
    u = (dr - e.noise.center) / np.where(e.noise.scale > 0, e.noise.scale, np.inf)
    stat = (
        np.sqrt(np.sum(u * u, axis=1)) if e.noise.kind == "gaussian" else np.sum(np.abs(u), axis=1)
    )
    return stat <= e.noise.radius


def why_plan_figures(errors: pd.DataFrame, noise: pd.DataFrame) -> tuple[go.Figure, go.Figure]:
    """The Home picture, as two figures (so a phone can stack them): each estimator's noise standard
    deviation per coordinate in one run (log scale, direct labels), and every run's ℓ2 error.

    ``errors`` and ``noise`` are :class:`dpcore.experiments.studies.Evidence` frames.
    """
    left = figure()
    names = list(dict.fromkeys(noise["estimator"]))
    for k, name in enumerate(names):
        part = noise[noise["estimator"] == name]
        color, label = part["color"].iloc[0], part["label"].iloc[0]
        left.add_trace(
            trace(
                go.Scatter,
                x=part["coordinate"],
                y=part["noise_std"],
                mode="lines+markers",
                name=_short(label, 28),
                line=dict(color=color, width=3, dash=DASHES[k % len(DASHES)]),
                marker=dict(symbol=SYMBOLS[k % len(SYMBOLS)], size=6, color=color, maxdisplayed=16),
                hovertemplate=f"{label}<br>coordinate %{{x}}: noise std %{{y:.3g}}<extra></extra>",
            )
        )
        left.add_annotation(
            x=float(part["coordinate"].iloc[-1]),
            y=float(np.log10(part["noise_std"].iloc[-1])),
            text=_short(label.split(" (")[0], 20),
            showarrow=False,
            xanchor="right",
            yshift=10,
            font=dict(color=color, size=12),
        )
    left.update_xaxes(title="coordinate (1 = most spread, last = least)")
    left.update_yaxes(type="log", title="noise std added to the mean")
    style(left, title="PLAN puts its noise where the data vary", height=380)
    left.update_layout(showlegend=False)
    right = figure()
    order = list(dict.fromkeys(errors["estimator"]))
    for k, name in enumerate(order):
        part = errors[errors["estimator"] == name]
        color, label = part["color"].iloc[0], part["label"].iloc[0]
        right.add_trace(
            trace(
                go.Box,
                y=part["error"],
                name=_short(label.split(" (")[0], 20),
                marker=dict(color=color, symbol=SYMBOLS[k % len(SYMBOLS)]),
                line=dict(color=color),
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                fillcolor=rgba(color, 0.15),
                hovertemplate=f"{label}<br>error %{{y:.3g}}<extra></extra>",
            )
        )
    right.update_yaxes(title="ℓ2 error of the private mean (log scale)", type="log")
    style(right, title=f"…so its error is smaller ({errors['seed'].nunique()} runs)", height=380)
    right.update_layout(showlegend=False)
    return left, right
