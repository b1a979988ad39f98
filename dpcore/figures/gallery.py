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

import copy
import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.dict_figure import GridDict
from dpcore.figures.style import figure, rgba, style, subplots, times, trace, wrap_label
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
    share = 0.1 if zoom == "noise" else 0.05  # room for the star's and markers' size
    pad = np.maximum((hi - lo) * share, 1e-9 + 1e-6 * np.abs(hi))
    return [float(lo[0] - pad[0]), float(hi[0] + pad[0])], [
        float(lo[1] - pad[1]),
        float(hi[1] + pad[1]),
    ]


def panel_titles(entries: Sequence[GalleryEntry], width: int = 16) -> list[str]:
    """Short panel titles: each label up to its first " (" (``"IOME (PLAN paper's …)"`` ->
    ``"IOME"``), the whole label where two short names would be the same; wrapped at ``width``
    characters, so the titles of narrow panels (a phone) do not run into each other."""
    short = [e.label.split(" (")[0] for e in entries]
    return [
        wrap_label(s if short.count(s) == 1 else e.label, width)
        for s, e in zip(short, entries, strict=True)
    ]


def _add_outline(fig: Any, e: GalleryEntry, k: int, where: dict, legend: bool, part: str) -> None:
    """The clipping region (``part="region"``, lightly filled) or the noise shape (``"noise"``)
    of ``e``: its outline in the estimator's colour and dash; nothing for no region or no noise."""
    shape = e.region if part == "region" else e.noise
    if shape.kind == "none":
        return
    if part == "region":
        name, alpha, width = wrap_label(e.label, 34), 0.08, 2.5
        hover = f"clip region: {e.region.note}"
    else:
        name, alpha, width = f"{wrap_label(e.label, 34)}: {e.noise.prob:.0%} noise", 0.25, 2
        hover = (
            f"{_NOISE_WORD[e.noise.kind]} holding the release with probability {e.noise.prob:.0%}"
        )
    fig.add_trace(
        trace(
            go.Scatter,
            x=shape.outline[:, 0],
            y=shape.outline[:, 1],
            mode="lines",
            fill="toself",
            fillcolor=rgba(e.color, alpha),
            line=dict(color=e.color, width=width, dash=DASHES[k % len(DASHES)]),
            name=name,
            legendgroup=e.name,
            showlegend=legend,
            hovertemplate=f"{e.label}<br>{hover}<extra></extra>",
        ),
        **where,
    )


def _add_region(fig: Any, e: GalleryEntry, k: int, where: dict, legend: bool) -> None:
    """The clipping region's outline, lightly filled (nothing for an estimator that does not clip)."""
    _add_outline(fig, e, k, where, legend, "region")


def _add_release(fig: Any, e: GalleryEntry, k: int, where: dict) -> None:
    """The run's release, a marker in the estimator's colour and symbol."""
    fig.add_trace(
        trace(
            go.Scatter,
            x=[e.release[0]],
            y=[e.release[1]],
            mode="markers",
            name=f"{wrap_label(e.label, 34)}: release",
            legendgroup=e.name,
            showlegend=False,
            marker=dict(
                symbol=SYMBOLS[k % len(SYMBOLS)],
                size=11,
                color=e.color,
                line=dict(color="white", width=1.2),
            ),
            hovertemplate=f"{e.label}<br>release (%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
        ),
        **where,
    )


def _add_noise(fig: Any, e: GalleryEntry, k: int, where: dict, legend: bool) -> None:
    """The noise shape, drawn after the release marker so that the marker never hides it."""
    _add_outline(fig, e, k, where, legend, "noise")


def _add_entry(
    fig: Any,
    e: GalleryEntry,
    k: int,
    *,
    row: int | None = None,
    col: int | None = None,
    legend: bool = True,
    zoom: str = "clip",
) -> None:
    """One estimator in one panel: its region (not when zoomed on the noise), its release, then its
    noise shape on top."""
    where = {"row": row, "col": col} if row is not None else {}
    if zoom != "noise":
        _add_region(fig, e, k, where, legend)
    _add_release(fig, e, k, where)
    _add_noise(fig, e, k, where, legend and zoom == "noise")


def _add_common(
    fig: Any,
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


def _equal_aspect(fig: Any, panels: int, ranges: Sequence[tuple[list, list]]) -> None:
    """Panel ``k`` (1-based axis suffix) gets ``ranges[k]`` and one unit the same length on both
    axes, so a circle looks round (a panel wider than its data shrinks toward its title)."""
    for k in range(panels):
        xr, yr = ranges[k]
        sx = "" if k == 0 else str(k + 1)
        fig.layout[f"xaxis{sx}"].update(range=xr)
        fig.layout[f"yaxis{sx}"].update(
            range=yr, scaleanchor=f"x{sx}", scaleratio=1, constrain="domain", constraintoward="top"
        )


def _both_grid(titles: Sequence[str]) -> go.Figure:
    """The two rows' empty grid, one column per title."""
    cols = len(titles)
    return subplots(
        rows=2,
        cols=cols,
        subplot_titles=[*titles, *[""] * cols],
        horizontal_spacing=0.03,
        vertical_spacing=0.16,
    )


def _both_style(fig: go.Figure, cols: int, coords: Sequence[int], height: int | None) -> None:
    """The two rows' axes (one scale per row: its ticks once, in the first column), titles and
    house style."""
    i, j = (int(c) + 1 for c in coords)
    for c in range(1, cols):
        for r in (1, 2):
            fig.update_xaxes(showticklabels=False, row=r, col=c + 1)
            fig.update_yaxes(showticklabels=False, row=r, col=c + 1)
    fig.update_xaxes(title=f"coord. {i}", row=2, col=1)
    fig.update_yaxes(title=f"clip · coord. {j}", row=1, col=1)
    fig.update_yaxes(title=f"noise · coord. {j}", row=2, col=1)
    for ann in fig.layout.annotations:
        ann.font = dict(size=12)
    fig.update_xaxes(nticks=4)
    fig.update_yaxes(nticks=5)
    style(fig, title="Clipping (top) and noise (bottom, zoomed in)", height=height or 640)
    fig.update_layout(showlegend=False, margin=dict(t=96))


@functools.lru_cache(maxsize=32)
def _both_layout(titles: tuple[str, ...], coords: tuple[int, int], height: int | None) -> dict:
    """The two rows' styled layout as plotly writes it, laid out once per process for its panel
    titles, coordinates and height (the ranges, which depend on the data, are set in a copy)."""
    fig = _both_grid(titles)
    _equal_aspect(fig, 2 * len(titles), [([0, 1], [0, 1])] * (2 * len(titles)))
    _both_style(fig, len(titles), coords, height)
    return fig.to_dict()["layout"]


def _both_rows(
    entries: Sequence[GalleryEntry],
    pts: np.ndarray,
    true_mean: Sequence[float],
    coords: Sequence[int],
    height: int | None,
    drawn: bool = False,
) -> Any:
    """Two rows, one column per estimator: where each clips (the data and every whole region, one
    scale) above where its noise puts the release (zoomed in, one scale of its own). ``drawn``: as
    plotly's dict (the layout kept per process), else a ``go.Figure``."""
    cols = len(entries)
    titles = tuple(panel_titles(entries))
    fig: Any = (
        GridDict(
            copy.deepcopy(_both_layout(titles, (int(coords[0]), int(coords[1])), height)), cols
        )
        if drawn
        else _both_grid(titles)
    )
    for k, e in enumerate(entries):
        _add_common(fig, pts, true_mean, row=1, col=k + 1, legend=k == 0)
        _add_region(fig, e, k, {"row": 1, "col": k + 1}, legend=False)
        _add_release(fig, e, k, {"row": 1, "col": k + 1})
        _add_common(fig, np.empty((0, 2)), true_mean, row=2, col=k + 1, legend=False)
        _add_release(fig, e, k, {"row": 2, "col": k + 1})
        _add_noise(fig, e, k, {"row": 2, "col": k + 1}, legend=False)
    top = _extent(entries, pts, true_mean, "clip")
    bottom = _extent(entries, pts, true_mean, "noise")
    _equal_aspect(fig, 2 * cols, [top] * cols + [bottom] * cols)
    if drawn:
        return fig.to_dict()
    _both_style(fig, cols, coords, height)
    return fig


def _small_multiples(
    entries: Sequence[GalleryEntry],
    pts: np.ndarray,
    true_mean: Sequence[float],
    coords: Sequence[int],
    zoom: str,
    columns: int,
    height: int | None,
) -> go.Figure:
    """One panel per estimator, every panel at one scale and with equal aspect."""
    cols = max(1, min(int(columns), len(entries)))
    rows = math.ceil(len(entries) / cols)
    fig = subplots(
        rows=rows,
        cols=cols,
        subplot_titles=panel_titles(entries),
        horizontal_spacing=0.04,
        vertical_spacing=0.12 if rows > 1 else 0.08,
    )
    draw_pts = pts if zoom != "noise" else np.empty((0, 2))
    for k, e in enumerate(entries):
        r, c = divmod(k, cols)
        _add_common(fig, draw_pts, true_mean, row=r + 1, col=c + 1, legend=k == 0)
        _add_entry(fig, e, k, row=r + 1, col=c + 1, legend=True, zoom=zoom)
    _equal_aspect(fig, rows * cols, [_extent(entries, pts, true_mean, zoom)] * (rows * cols))
    i, j = (int(c) for c in coords)
    for c in range(cols):
        fig.update_xaxes(title=f"coordinate {i + 1}", row=rows, col=c + 1)
    for r in range(rows):
        fig.update_yaxes(title=f"coordinate {j + 1}", row=r + 1, col=1)
    for ann in fig.layout.annotations:
        ann.font = dict(size=12)
    what = "noise shapes (zoomed)" if zoom == "noise" else "clipping regions and noise shapes"
    style(fig, title=f"Each estimator's {what}, one scale", height=height or 300 * rows + 110)
    if any("<br>" in (a.text or "") for a in fig.layout.annotations):
        fig.update_layout(  # two-line panel titles: the figure title above them, not across
            margin=dict(t=96), title=dict(y=1.0, yref="container", yanchor="top", pad=dict(t=8))
        )
    fig.update_layout(showlegend=False)
    return fig


def _overlay(
    entries: Sequence[GalleryEntry],
    pts: np.ndarray,
    true_mean: Sequence[float],
    coords: Sequence[int],
    zoom: str,
    height: int | None,
) -> go.Figure:
    """Every estimator in one panel, each region labelled at its top in the estimator's colour."""
    fig = figure()
    _add_common(fig, pts if zoom != "noise" else np.empty((0, 2)), true_mean)
    for k, e in enumerate(entries):
        _add_entry(fig, e, k, zoom=zoom, legend=True)
        if zoom != "noise" and e.region.kind != "none":
            top = e.region.outline[np.argmax(e.region.outline[:, 1])]
            fig.add_annotation(
                x=top[0],
                y=top[1],
                text=panel_titles([e])[0],
                showarrow=False,
                yanchor="bottom",
                yshift=4,
                font=dict(color=e.color, size=11),
            )
    _equal_aspect(fig, 1, [_extent(entries, pts, true_mean, zoom)])
    i, j = (int(c) for c in coords)
    fig.update_xaxes(title=f"coordinate {i + 1}")
    fig.update_yaxes(title=f"coordinate {j + 1}")
    what = "noise shapes (zoomed)" if zoom == "noise" else "clipping regions and noise shapes"
    style(fig, title=f"All {what}, one scale", height=height or 560)
    fig.update_layout(legend=dict(font=dict(size=11)))
    return fig


#: The frames of :func:`gallery_figure`: what each one shows.
ZOOMS = ("both", "data", "clip", "noise")


def gallery_figure(
    entries: Sequence[GalleryEntry],
    points: np.ndarray,
    true_mean: Sequence[float],
    coords: Sequence[int],
    *,
    view: str = "small",
    zoom: str = "both",
    columns: int = 3,
    height: int | None = None,
    drawn: bool = False,
) -> tuple[Any, pd.DataFrame]:
    """Clipping regions and noise shapes of ``entries`` at one shared scale, with equal aspect (one
    unit is as long across as up, so a disk looks round and areas compare by eye).

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
        Small multiples (one panel per estimator) or one overlaid panel.
    zoom : {"both", "data", "clip", "noise"}
        ``"both"``: two rows, every whole clipping region at one scale above every noise shape at
        a zoomed-in scale of its own (the noise is usually a hundred times smaller than the
        region); ``"data"``: frame the data (larger regions run off the frame); ``"clip"``: the
        data and every whole clipping region; ``"noise"``: the noise shapes and releases. The
        noise shape is drawn over the release marker.
    columns : int
        Panels per row in the small-multiples view (not for ``"both"``: one column per estimator).
    drawn : bool
        With ``zoom="both"`` in the small view (the page's default), the figure as plotly's dict
        (its ``to_dict()``, arrays as lists: the layout laid out by plotly once per process, the
        traces not validated), to draw with :func:`~dpcore.figures.style.prepared`; a
        ``go.Figure`` otherwise (notebooks, the other views).

    Returns
    -------
    (Figure, DataFrame)
        The figure and :func:`gallery_frame`, exactly what is drawn.

    Examples
    --------
    >>> from dpcore.data import generate
    >>> from dpcore.experiments.studies import run_gallery
    >>> from dpcore.privacy import Budget
    >>> ds = generate("gaussian", 500, 4, 2.0, rng=0)
    >>> entries, _ = run_gallery(ds, Budget.zcdp(0.5), ["plan", "gaussian_private"], (0, 1))
    >>> fig, frame = gallery_figure(entries, ds.x[:, :2], ds.true_mean[:2], (0, 1))
    >>> sorted(set(frame["shape"]))
    ['clip region', 'noise shape', 'release', 'true mean']
    """
    if view not in ("small", "overlay"):
        raise ValueError(f"view must be 'small' or 'overlay'; got {view!r}.")
    if zoom not in ZOOMS:
        raise ValueError(f"zoom must be one of {', '.join(map(repr, ZOOMS))}; got {zoom!r}.")
    pts = np.asarray(points, float).reshape(-1, 2)
    if view == "overlay" or not entries:
        fig = _overlay(entries, pts, true_mean, coords, "clip" if zoom == "both" else zoom, height)
    elif zoom == "both":
        fig = _both_rows(entries, pts, true_mean, coords, height, drawn)
    else:
        fig = _small_multiples(entries, pts, true_mean, coords, zoom, columns, height)
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


def _area(outline: np.ndarray) -> float:
    """Area inside a closed outline (shoelace formula; 0 for no outline)."""
    if outline.size == 0:
        return 0.0
    x, y = outline[:, 0], outline[:, 1]
    return float(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2)


def shapes_headline(entries: Sequence[GalleryEntry], coords: Sequence[int]) -> str:
    """The sentence under the gallery, about shapes (one run cannot rank accuracy): the largest and
    smallest clipping region and noise shape in the two coordinates, as area ratios.

    Examples
    --------
    >>> from dpcore.data import generate
    >>> from dpcore.experiments.studies import run_gallery
    >>> from dpcore.privacy import Budget
    >>> ds = generate("gaussian", 500, 4, 2.0, rng=0)
    >>> entries, _ = run_gallery(ds, Budget.zcdp(0.5), ["plan", "gaussian_private"], (0, 1))
    >>> "the area of" in shapes_headline(entries, (0, 1))
    True
    """
    i, j = (int(c) + 1 for c in coords)
    out = f"In coordinates {i} and {j}:"
    for what, part, row in (("clip region", "region", "top"), ("noise shape", "noise", "bottom")):
        sized = [(e, _area(getattr(e, part).outline)) for e in entries]
        sized = [(e, a) for e, a in sized if a > 0]
        if len(sized) < 2:
            continue
        big = max(sized, key=lambda ea: ea[1])
        small = min(sized, key=lambda ea: ea[1])
        if big[0] is small[0]:
            continue
        prob = f"{entries[0].noise.prob:.0%} " if part == "noise" else ""
        out += (
            f" the {prob}{what} of **{big[0].label}** covers {times(big[1] / small[1])} the area "
            f"of **{small[0].label}**'s ({row} row);"
        )
    return out.rstrip(";:") + (
        ". One run cannot rank accuracy: *Draw 100 releases* below shows the spread, Compare "
        "the errors over many runs."
    )
