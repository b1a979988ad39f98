"""Figure builders for the "PLAN step by step" page (pure plotly, no streamlit).

Every picture is drawn from the diagnostics of ONE run of the estimator on the full
``d``-dimensional data (centre ``mu~``, scale vector ``s``, clip radius ``C``, the clipped-row mask,
the per-coordinate noise std), restricted to two chosen coordinates: it shows exactly what the
estimator did, not a 2-D re-run. The clip ball lives in ``d`` dimensions, so in a 2-D slice a
point inside the drawn circle may still have been clipped (the rest of its distance lies in the
other coordinates); the reverse cannot happen, since a projection never lengthens a vector.

Builders return ``(figure, data_frame)``; the frame holds exactly the data drawn (points, outline
points of the circles and ellipses, the marked means), so it can be downloaded and re-plotted.

* :func:`plan_steps_figure` — the paper's Figure 1, live: (a) raw data and the true mean, (b)
  recentred and scaled, (c) clip ball in scaled space with the clipped rows pulled onto it,
  (d) the rows as they enter the mean, the clip ball mapped back to its ellipse (semi-axes
  ``C / s_i``, i.e. ``C sigma^_i^(2/(p+2))`` for PLAN's scaling), IOME's clip ball for contrast, and the
  private mean.
* :func:`noise_figure` — zoom on the mean: the noise ellipse (stds ``diagnostics.noise_std``) of
  PLAN against the isotropic noise of the baselines.
* :func:`exponent_curve` — expected noise (and total error) against the scaling exponent ``e``
  in ``s = sigma^(-2e)`` (Appendix C), with no scaling, PLAN's ``1/(p+2)`` and the equal split marked.
* :func:`noise_shapes_figure` — per-coordinate noise std of several estimators against the
  sampling std ``sigma_i / sqrt(n)``.
* :func:`error_split_frame` — the rows :func:`dpcore.figures.style.error_split_chart` draws.

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024,
Figure 1, Algorithm 1, Appendix C (Figure 6); docs/estimators/plan.md §2, §6 and §8.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore._validation import check_data
from dpcore.estimate import Estimate
from dpcore.estimators.iome import IomeDiagnostics
from dpcore.estimators.plan import PlanDiagnostics
from dpcore.figures.style import (
    axis_names,
    figure,
    log_ticks,
    merge_layout,
    rgba,
    style,
    subplots,
    trace,
)
from dpcore.metrics import error_split
from dpcore.registry import ERROR_SOURCE_COLORS
from dpcore.theory import plan as theory

#: Colours of the teaching picture (the paper's: blue recentring, orange scaling, yellow star, green cross).
COLORS = {
    "raw": "#4c78a8",
    "recentred": "#9ecae9",
    "scaled": "#f58518",
    "clipped": ERROR_SOURCE_COLORS["clipping"],
    "ball": "#1d2733",
    "truth": "#f2c500",
    "private": "#2ca02c",
    "noiseless": "#1d2733",
    "centre": "#08519c",
    "iome": "#D55E00",  # = the registry colour of IOME (colour-blind-safe palette)
    "noise": ERROR_SOURCE_COLORS["noise"],
    "sampling": ERROR_SOURCE_COLORS["sampling"],
}
PANEL_TITLES = {
    "a": "(a) raw data and the true mean",
    "b": "(b) recentred, then scaled",
    "c": "(c) clipped to the ball of radius C",
    "d": "(d) back in original space: the private mean",
}
_OUTLINE = 181


def wrap_title(text: str) -> str:
    """``text`` on two lines (``<br>`` at the space nearest its middle), for narrow panels."""
    spaces = [k for k, ch in enumerate(text) if ch == " "]
    if len(text) < 18 or not spaces:
        return text
    k = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return text[:k] + "<br>" + text[k + 1 :]  # points on a drawn circle or ellipse


def _outline(
    center: np.ndarray | Sequence[float], semi_axes: np.ndarray | Sequence[float]
) -> np.ndarray:
    """Closed outline ``center + (a cos t, b sin t)`` of an axis-aligned ellipse, shape (181, 2)."""
    t = np.linspace(0.0, 2.0 * math.pi, _OUTLINE)
    return np.column_stack(
        [center[0] + semi_axes[0] * np.cos(t), center[1] + semi_axes[1] * np.sin(t)]
    )


def _coords(coords: Sequence[int], d: int) -> list[int]:
    cs = [int(c) for c in coords]
    if not 1 <= len(cs) <= 2 or any(c < 0 or c >= d for c in cs):
        raise ValueError(
            f"coords must be one or two 0-based coordinate indices in [0, {d - 1}]; got {list(coords)}."
        )
    return cs


def _need(est: Estimate, *names: str) -> None:
    dg = est.diagnostics
    missing = [nm for nm in names if getattr(dg, nm) is None]
    if missing:
        raise ValueError(
            f"the estimate has no diagnostics {missing}: pass a PLAN estimate (dpcore.estimators.plan)."
        )


# ----------------------------------------------------------------------------------------------
# the four steps
# ----------------------------------------------------------------------------------------------


def plan_steps_figure(
    x: np.ndarray,
    estimate: Estimate,
    coords: Sequence[int],
    *,
    true_mean: np.ndarray,
    iome: Estimate | None = None,
    sample: pd.DataFrame | None = None,
    height: int = 860,
) -> tuple[go.Figure, pd.DataFrame]:
    """The paper's Figure 1 from one PLAN run, on two coordinates (or one, with a jitter axis).

    Parameters
    ----------
    x : array (n, d)
        The data the estimator ran on.
    estimate : Estimate
        A PLAN estimate: ``diagnostics.center``, ``scale``, ``clip_radius``, ``clipped`` and
        ``norms`` (:class:`~dpcore.estimators.plan.PlanDiagnostics`: the scaled d-dimensional row
        norms) are used as they are.
    coords : (i, j) or (i,)
        0-based coordinates to draw. With one coordinate the vertical axis has no meaning (the
        sample's ``height``) and the clip ball becomes the interval ``[-C, C]``.
    true_mean : array (d,)
        Population mean (the yellow star).
    iome : Estimate, optional
        An IOME estimate whose clip ball (``ball_center``, ``ball_radius`` of its
        :class:`~dpcore.estimators.iome.IomeDiagnostics`: the
        rotated ball seen in original coordinates) is drawn in panel (d) for contrast.
    sample : DataFrame, optional
        Which rows to draw and their display-only offsets, from
        :func:`dpcore.experiments.studies.display_sample` (the figure draws nothing at random):
        ``row``, ``height`` (1-D vertical axis in [-1, 1]), ``dx``, ``dy`` (display jitter in units
        of each panel's spread; the frame keeps the exact positions, geometry and means are never
        moved). Default: every row, no jitter, evenly spread heights in 1-D.

    Returns
    -------
    (Figure, DataFrame)
        Frame columns: ``panel`` (a–d), ``role``, ``row`` (data row, -1 for geometry), ``x``, ``y``,
        ``clipped``, ``norm_scaled`` (the row's full d-dimensional norm in scaled space, after
        clipping in panel c).

    References
    ----------
    PLAN (PETS 2024), Figure 1 and Algorithm 1 lines 4–8; docs/estimators/plan.md §8.
    """
    X = check_data(x, ndim=2)
    _need(estimate, "center", "scale", "clip_radius", "clipped")
    geo = _steps_geometry(X, estimate, coords, true_mean, sample=sample)
    df, has_iome = _steps_frame(geo, iome)
    plot = _StepsPlot(geo, df)
    plot.point_panels()
    plot.clip_panel()
    plot.outlines_and_means(has_iome)
    plot.axes()
    style(plot.fig, height=height)
    # legend under the panels: on a phone it wraps onto many lines, which on top would cover the titles
    merge_layout(
        plot.fig,
        legend=dict(
            orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0.0, itemsizing="constant"
        ),
        margin=dict(t=50, b=140),
    )
    return plot.fig, df


@dataclass
class _StepsGeometry:
    """What the four panels of :func:`plan_steps_figure` show, for the drawn rows and coordinates."""

    cs: list[int]
    one_d: bool
    rows: np.ndarray
    pts: np.ndarray  # (a) the data
    recentred: np.ndarray  # (b) minus the private centre
    scaled: np.ndarray  # (b) times s
    pulled: np.ndarray  # (c) clipped to the ball
    back: np.ndarray  # (d) mapped back
    c: np.ndarray
    s: np.ndarray
    C: float
    norms: np.ndarray
    clipped: np.ndarray
    factor: np.ndarray
    truth: np.ndarray
    mean: np.ndarray
    heights: np.ndarray | None  # 1-D: the meaningless vertical axis
    offsets: np.ndarray | None  # display jitter

    def height_of(self, ref: np.ndarray) -> float:
        return 0.1 * (float(np.ptp(ref[:, 0])) or 1.0)

    def lift(self, arr: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """1-D mode: add the jitter as a second column, scaled to the panel's width."""
        if not self.one_d:
            return arr
        assert self.heights is not None  # 1-D mode draws every row at a height
        return np.column_stack([arr[:, 0], self.heights * self.height_of(ref)])

    def ball(self, center: np.ndarray, semi: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """Outline of the axis-aligned ellipse (2-D) or the interval's two edges (1-D)."""
        if self.one_d:
            h = self.height_of(ref)
            lo, hi = center[0] - semi[0], center[0] + semi[0]
            return np.array([[lo, -h], [lo, h], [np.nan, np.nan], [hi, -h], [hi, h]])
        return _outline(center, semi)


def _steps_geometry(
    X: np.ndarray,
    estimate: Estimate,
    coords: Sequence[int],
    true_mean: np.ndarray,
    *,
    sample: pd.DataFrame | None,
) -> _StepsGeometry:
    """Recentre, scale, clip and map back the drawn rows (``sample``'s rows, heights and offsets)."""
    n, d = X.shape
    dg = estimate.diagnostics
    cs = _coords(coords, d)
    one_d = len(cs) == 1
    rows = np.arange(n) if sample is None else sample["row"].to_numpy(np.int64)
    c = np.asarray(dg.center, dtype=float)[cs]
    s = np.asarray(dg.scale, dtype=float)[cs]
    C = float(cast(float, dg.clip_radius))
    norms_all = dg.norms if isinstance(dg, PlanDiagnostics | IomeDiagnostics) else None
    if norms_all is None:
        full = (X - np.asarray(dg.center, float)) * np.asarray(dg.scale, float)
        norms_all = np.sqrt(np.einsum("ij,ij->i", full, full))
    norms = np.asarray(norms_all, dtype=float)[rows]
    factor = np.minimum(1.0, C / np.maximum(norms, 1e-300))
    pts = X[np.ix_(rows, np.asarray(cs))]
    recentred = pts - c
    scaled = recentred * s
    pulled = scaled * factor[:, None]
    heights = None
    if one_d:  # given, or evenly spread in [-1, 1) (golden-ratio sequence: no randomness here)
        heights = (
            sample["height"].to_numpy(float)
            if sample is not None
            else 2.0 * ((np.arange(rows.size) * 0.6180339887498949) % 1.0) - 1.0
        )
    offsets = None
    if sample is not None and sample[["dx", "dy"]].to_numpy().any():
        offsets = sample[["dx", "dy"]].to_numpy(float)
    return _StepsGeometry(
        cs,
        one_d,
        rows,
        pts,
        recentred,
        scaled,
        pulled,
        c + pulled / s,
        c,
        s,
        C,
        norms,
        np.asarray(dg.clipped, dtype=bool)[rows],
        factor,
        np.asarray(true_mean, dtype=float)[cs],
        np.asarray(estimate.mean, dtype=float)[cs],
        heights,
        offsets,
    )


#: One part of the steps frame: panel, role, points (m, 2) or (m, 1), data rows (-1: geometry),
#: clipped flags (None: not a data row) and scaled norms.
_StepsPart = tuple[
    str, str, np.ndarray, "np.ndarray | int", "np.ndarray | bool | None", "np.ndarray | float"
]


def _steps_parts(geo: _StepsGeometry, iome: Estimate | None) -> tuple[list[_StepsPart], bool]:
    """Every drawn point set and outline of the steps figure, in the frame's order; also whether an
    IOME ball is among them."""
    parts: list[_StepsPart] = []

    def add(
        panel: str,
        role: str,
        xy: np.ndarray,
        row: np.ndarray | int = -1,
        clip: np.ndarray | bool | None = None,
        norm: np.ndarray | float = np.nan,
    ) -> None:
        parts.append((panel, role, xy, row, clip, norm))

    rows, clipped, norms, factor = geo.rows, geo.clipped, geo.norms, geo.factor
    add("a", "data", geo.lift(geo.pts, geo.pts), rows, clipped, norms)
    add("b", "recentred", geo.lift(geo.recentred, geo.recentred), rows, clipped)
    add("b", "scaled", geo.lift(geo.scaled, geo.scaled), rows, clipped, norms)
    sc, pu = geo.lift(geo.scaled, geo.scaled), geo.lift(geo.pulled, geo.scaled)
    add("c", "kept", sc[~clipped], rows[~clipped], False, norms[~clipped])
    add("c", "clipped: before", sc[clipped], rows[clipped], True, norms[clipped])
    add(
        "c",
        "clipped: pulled onto the ball",
        pu[clipped],
        rows[clipped],
        True,
        norms[clipped] * factor[clipped],
    )
    add(
        "d",
        "as averaged (pulled rows mapped back)",
        geo.lift(geo.back, geo.pts),
        rows,
        clipped,
        norms * factor,
    )
    origin = np.zeros(len(geo.cs))
    ell = geo.ball(geo.c, geo.C / geo.s, geo.pts)
    add("c", "clip ball (scaled space)", geo.ball(origin, np.full(len(geo.cs), geo.C), geo.scaled))
    add("a", "clip ellipse (original space)", ell)
    add("d", "clip ellipse (original space)", ell)
    iome_dg = iome.diagnostics if iome is not None else None
    has_iome = isinstance(iome_dg, IomeDiagnostics)
    if isinstance(iome_dg, IomeDiagnostics):
        bc = np.asarray(iome_dg.ball_center, dtype=np.float64)[geo.cs]
        br = float(iome_dg.ball_radius)
        add("d", "IOME clip ball (original space)", geo.ball(bc, np.full(len(geo.cs), br), geo.pts))
    add("a", "true mean", geo.truth[None, :])
    add("b", "private centre (origin)", origin[None, :])
    add("d", "true mean", geo.truth[None, :])
    add("d", "private mean", geo.mean[None, :])
    return parts, has_iome


def _steps_frame(geo: _StepsGeometry, iome: Estimate | None) -> tuple[pd.DataFrame, bool]:
    """The tidy frame of every drawn point and outline (:func:`_steps_parts`); also whether an IOME
    ball is in it.

    Columns are collected as numpy arrays and made into one frame (one small frame per part and a
    ``concat`` was a sixth of the figure's time); ``clipped`` holds Python bools, and ``None`` for
    outlines and means, as the concatenated frames did (tests/figures/test_figures_fast.py).
    """
    parts, has_iome = _steps_parts(geo, iome)
    cols: dict[str, list[np.ndarray]] = {
        k: [] for k in ("panel", "role", "row", "x", "y", "clipped", "norm_scaled")
    }
    for panel, role, xy, row, clip, norm in parts:
        if geo.one_d and xy.shape[1] == 1:
            xy = np.column_stack([xy[:, 0], np.zeros(len(xy))])
        m = len(xy)
        for key, value, dtype in (
            ("panel", panel, object),
            ("role", role, object),
            ("row", row, np.int64),
            ("x", xy[:, 0], np.float64),
            ("y", xy[:, 1], np.float64),
            ("clipped", clip, object),
            ("norm_scaled", norm, np.float64),
        ):
            arr = np.asarray(value)
            arr = np.full(m, value, dtype=dtype) if arr.ndim == 0 else arr.astype(dtype)
            cols[key].append(arr)
    return pd.DataFrame({k: np.concatenate(v) for k, v in cols.items()}), has_iome


_HOVER = "row %{customdata[0]}<br>(%{x:.3g}, %{y:.3g})<br>scaled norm in d dims %{customdata[1]:.3g}<extra></extra>"
_SMALL = dict(size=4, opacity=0.55)
_WHERE = {"a": (1, 1), "b": (1, 2), "c": (2, 1), "d": (2, 2)}


@dataclass(frozen=True)
class _Part:
    """Some rows of the frame of :func:`_steps_frame` (one panel and role), as numpy columns:
    pandas' filtering and column selection were a third of the figure's time."""

    row: np.ndarray
    x: np.ndarray
    y: np.ndarray
    clipped: np.ndarray
    norm_scaled: np.ndarray

    def __len__(self) -> int:
        return len(self.row)

    def where(self, mask: np.ndarray) -> _Part:
        return _Part(
            self.row[mask], self.x[mask], self.y[mask], self.clipped[mask], self.norm_scaled[mask]
        )

    def customdata(self) -> np.ndarray:
        """``frame[["row", "norm_scaled"]].to_numpy()`` of these rows (floats)."""
        return np.column_stack([self.row, self.norm_scaled])


class _StepsPlot:
    """The 2 x 2 figure of :func:`plan_steps_figure`, built panel by panel from the frame."""

    def __init__(self, geo: _StepsGeometry, df: pd.DataFrame) -> None:
        self.geo, self.df = geo, df
        # two-line panel titles and wider gaps, so titles and axis labels do not overlap on a phone
        # (a 390 px screen gives each panel about 150 px)
        self.fig = subplots(
            styled=True,
            rows=2,
            cols=2,
            subplot_titles=[wrap_title(PANEL_TITLES[k]) for k in "abcd"],
            horizontal_spacing=0.14,
            vertical_spacing=0.2,
        )
        cols = {c: df[c].to_numpy() for c in ("row", "x", "y", "clipped", "norm_scaled")}
        self.parts = {
            key: _Part(**{c: v[idx] for c, v in cols.items()})
            for key, idx in df.groupby(["panel", "role"], sort=False).indices.items()
        }
        self.empty = _Part(**{c: v[:0] for c, v in cols.items()})
        self.shown: set[str] = set()
        self.spans = {
            "a": geo.pts,
            "b": geo.scaled,
            "c": geo.scaled,
            "d": geo.back,
            "r": geo.recentred,
        }

    def part(self, panel: str, role: str) -> _Part:
        """The frame's rows of ``panel`` and ``role``."""
        return self.parts.get((panel, role), self.empty)

    def shown_xy(self, sel: _Part, panel: str) -> tuple[np.ndarray, np.ndarray]:
        """Drawn positions of the rows in ``sel`` (exact unless ``jitter``)."""
        xs, ys = sel.x, sel.y
        if self.geo.offsets is None:
            return xs, ys
        off = self.geo.offsets[np.searchsorted(self.geo.rows, sel.row)]
        span = np.ptp(self.spans[panel], axis=0)
        span = np.where(span > 0, span, 1.0)
        return xs + off[:, 0] * span[0], (ys + off[:, 1] * span[-1]) if not self.geo.one_d else ys

    def trace(self, panel: str, role: str, name: str, **kw: Any) -> None:
        part = self.part(panel, role)
        if not len(part) and role not in ("clipped: before",):
            return
        kw.setdefault("mode", "markers")
        px, py = (
            self.shown_xy(part, panel) if (part.row >= 0).all() and len(part) else (part.x, part.y)
        )
        self.fig.add_trace(
            trace(
                go.Scatter,
                x=px,
                y=py,
                name=name,
                legendgroup=name,
                showlegend=name not in self.shown,
                customdata=part.customdata(),
                **kw,
            ),
            *_WHERE[panel],
        )
        self.shown.add(name)

    def point_panels(self) -> None:
        """(a), (b), (d): the rows, kept and clipped in two colours; (b) also the recentred cloud."""
        for panel, role in (
            ("a", "data"),
            ("b", "scaled"),
            ("d", "as averaged (pulled rows mapped back)"),
        ):
            part = self.part(panel, role)
            for flag, name, color in (
                (False, "row kept as it is", COLORS["scaled"] if panel == "b" else COLORS["raw"]),
                (True, "row clipped (in d dimensions)", COLORS["clipped"]),
            ):
                sel = part.where(part.clipped == flag)
                label = name if not (panel == "b" and not flag) else "recentred and scaled"
                px, py = self.shown_xy(sel, panel)
                self.fig.add_trace(
                    trace(
                        go.Scatter,
                        x=px,
                        y=py,
                        mode="markers",
                        name=label,
                        legendgroup=label,
                        showlegend=label not in self.shown,
                        marker=dict(color=color, **_SMALL),
                        customdata=sel.customdata(),
                        hovertemplate=_HOVER,
                    ),
                    *_WHERE[panel],
                )
                self.shown.add(label)
        # the recentred cloud (before scaling) is off by default: the size of s is arbitrary (C adapts to
        # it), so next to the scaled cloud it mostly shows the units; one click on the legend brings it in
        px, py = self.shown_xy(self.part("b", "recentred"), "r")
        self.fig.add_trace(
            trace(
                go.Scatter,
                x=px,
                y=py,
                mode="markers",
                name="recentred, before scaling (click to show)",
                marker=dict(color=COLORS["recentred"], size=3, opacity=0.35),
                hoverinfo="skip",
                visible="legendonly",
            ),
            1,
            2,
        )
        self.trace(
            "b",
            "private centre (origin)",
            "private centre μ̃",
            marker=dict(symbol="x-thin", size=9, line=dict(width=2, color=COLORS["centre"])),
        )

    def clip_panel(self) -> None:
        """(c): kept rows, clipped rows before (hollow) and after (filled), joined by a segment."""
        self.trace(
            "c",
            "kept",
            "row kept as it is",
            marker=dict(color=COLORS["scaled"], **_SMALL),
            hovertemplate=_HOVER,
        )
        before, after = (
            self.part("c", "clipped: before"),
            self.part("c", "clipped: pulled onto the ball"),
        )
        seg = np.full((3 * len(before), 2), np.nan)
        seg[0::3] = np.column_stack(self.shown_xy(before, "c"))
        seg[1::3] = np.column_stack(self.shown_xy(after, "c"))
        self.fig.add_trace(
            trace(
                go.Scatter,
                x=seg[:, 0],
                y=seg[:, 1],
                mode="lines",
                name="pulled in",
                legendgroup="pulled in",
                line=dict(color=COLORS["clipped"], width=1),
                hoverinfo="skip",
            ),
            2,
            1,
        )
        self.trace(
            "c",
            "clipped: before",
            "clipped row, before",
            marker=dict(color=COLORS["clipped"], size=6, symbol="circle-open"),
            hovertemplate=_HOVER,
        )
        self.trace(
            "c",
            "clipped: pulled onto the ball",
            "clipped row, after",
            marker=dict(color=COLORS["clipped"], size=5),
            hovertemplate=_HOVER,
        )

    def outlines_and_means(self, has_iome: bool) -> None:
        """The clip ball in (c), its ellipse in (a) and (d), IOME's ball, the true and private means."""
        line = dict(mode="lines", hoverinfo="skip")
        self.trace(
            "c",
            "clip ball (scaled space)",
            "clip ball, radius C",
            line=dict(color=COLORS["ball"], width=2),
            **line,
        )
        for panel in ("a", "d"):
            self.trace(
                panel,
                "clip ellipse (original space)",
                "clip ball mapped back (ellipse)",
                line=dict(color=COLORS["ball"], width=2, dash="dash" if panel == "a" else "solid"),
                **line,
            )
        if has_iome:
            self.trace(
                "d",
                "IOME clip ball (original space)",
                "IOME clip ball (after rotation)",
                line=dict(color=COLORS["iome"], width=2, dash="dot"),
                **line,
            )
        star = dict(
            symbol="star", size=18, color=COLORS["truth"], line=dict(width=1, color="#1d2733")
        )
        self.trace("a", "true mean", "true mean", marker=star)
        self.trace("d", "true mean", "true mean", marker=star)
        self.trace(
            "d",
            "private mean",
            "private mean",
            marker=dict(
                symbol="x", size=14, color=COLORS["private"], line=dict(width=1, color="#1d2733")
            ),
        )

    def axes(self) -> None:
        cs = self.geo.cs
        lab = [f"coordinate {k + 1}" for k in cs]
        axes: dict[str, dict[str, Any]] = {}
        for k, panel in enumerate("abcd"):
            xaxis, yaxis = axis_names(self.fig, *_WHERE[panel])
            xname = lab[0] if panel in "ad" else f"(x{cs[0] + 1} − μ̃{cs[0] + 1})·s{cs[0] + 1}"
            axes[xaxis] = {"title": {"text": xname}}
            if self.geo.one_d:
                axes[yaxis] = {"showticklabels": False, "title": {"text": "(jitter, no meaning)"}}
            else:
                yname = lab[1] if panel in "ad" else f"(x{cs[1] + 1} − μ̃{cs[1] + 1})·s{cs[1] + 1}"
                axes[yaxis] = {
                    "title": {"text": yname},
                    "scaleanchor": f"x{k + 1 if k else ''}",
                    "scaleratio": 1,
                }
        merge_layout(self.fig, **axes)


def step_summary(estimate: Estimate, coords: Sequence[int], x: np.ndarray) -> dict[str, Any]:
    """Numbers for the sentences under :func:`plan_steps_figure` (all rows, not the subsample).

    ``clipped`` rows; ``inside_drawn`` of them whose 2-D scaled projection lies inside the drawn
    circle (clipped because of the other coordinates); ``outside_drawn_kept`` (always 0: a
    projection is never longer than the vector); the aspect ratios of the two coordinates' spread
    before (``sigma^_i / sigma^_j`` as data std) and after scaling.
    """
    X = check_data(x, ndim=2)
    dg = estimate.diagnostics
    cs = _coords(coords, X.shape[1])
    y = (X[:, cs] - np.asarray(dg.center, float)[cs]) * np.asarray(dg.scale, float)[cs]
    r2 = np.sqrt(np.einsum("ij,ij->i", y, y))
    clipped = np.asarray(dg.clipped, bool)
    C = float(cast(float, dg.clip_radius))
    sd = X[:, cs].std(axis=0)
    ratio_before = float(sd[0] / sd[-1]) if len(cs) == 2 and sd[-1] > 0 else float("nan")
    sds = y.std(axis=0)
    ratio_after = float(sds[0] / sds[-1]) if len(cs) == 2 and sds[-1] > 0 else float("nan")
    return {
        "n": X.shape[0],
        "d": X.shape[1],
        "C": C,
        "clipped": int(clipped.sum()),
        "inside_drawn": int(np.sum(clipped & (r2 <= C))),
        "outside_drawn_kept": int(np.sum(~clipped & (r2 > C))),
        "ratio_before": ratio_before,
        "ratio_after": ratio_after,
        "semi_axes": (C / np.asarray(dg.scale, float)[cs]).tolist(),
    }


# ----------------------------------------------------------------------------------------------
# zoom on the mean: the noise ellipse
# ----------------------------------------------------------------------------------------------


def noise_figure(
    entries: Sequence[tuple[str, str, Estimate]],
    coords: Sequence[int],
    *,
    true_mean: np.ndarray,
    empirical_mean: np.ndarray,
    height: int = 480,
) -> tuple[go.Figure, pd.DataFrame]:
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
    one_d = len(cs) == 1
    frames = []
    fig = figure(styled=True)
    for k, (label, color, est) in enumerate(entries):
        _need(est, "noise_std")
        sd = np.asarray(est.diagnostics.noise_std, dtype=float)[cs]
        nl = np.asarray(est.diagnostics.noiseless_mean, dtype=float)[cs]
        mean = np.asarray(est.mean, dtype=float)[cs]
        if one_d:
            yk = float(-k)
            frames.append(
                pd.DataFrame(
                    {
                        "estimator": label,
                        "role": ["noiseless mean", "private mean"],
                        "x": [nl[0], mean[0]],
                        "y": [yk, yk],
                        "std_x": sd[0],
                        "std_y": 0.0,
                    }
                )
            )
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
        else:
            frames.append(
                pd.DataFrame(
                    {
                        "estimator": label,
                        "role": ["noiseless mean", "private mean"],
                        "x": [nl[0], mean[0]],
                        "y": [nl[1], mean[1]],
                        "std_x": sd[0],
                        "std_y": sd[1],
                    }
                )
            )
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
                        line=dict(
                            color=color, width=2 if m == 1 else 1, dash="solid" if m == 1 else "dot"
                        ),
                        hoverinfo="skip",
                        showlegend=m == 1,
                    )
                )
        fig.add_trace(
            trace(
                go.Scatter,
                x=[nl[0]],
                y=[nl[1] if not one_d else -k],
                mode="markers",
                legendgroup=label,
                name=f"{label}: without noise",
                showlegend=False,
                marker=dict(symbol="circle-open", size=10, color=color, line=dict(width=2)),
                hovertemplate=f"{label} without noise<br>(%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
            )
        )
        fig.add_trace(
            trace(
                go.Scatter,
                x=[mean[0]],
                y=[mean[1] if not one_d else -k],
                mode="markers",
                legendgroup=label,
                name=f"{label}: private mean",
                showlegend=False,
                marker=dict(symbol="x", size=13, color=color, line=dict(width=1, color="#1d2733")),
                hovertemplate=f"{label} private mean<br>(%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
            )
        )
    truth = np.asarray(true_mean, dtype=float)[cs]
    emp = np.asarray(empirical_mean, dtype=float)[cs]
    ty = [truth[1]] if not one_d else [0.5]
    ey = [emp[1]] if not one_d else [0.5]
    frames.append(
        pd.DataFrame(
            {
                "estimator": "",
                "role": ["true mean", "empirical mean"],
                "x": [truth[0], emp[0]],
                "y": [ty[0], ey[0]],
                "std_x": np.nan,
                "std_y": np.nan,
            }
        )
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[truth[0]],
            y=ty,
            mode="markers",
            name="true mean",
            marker=dict(
                symbol="star", size=18, color=COLORS["truth"], line=dict(width=1, color="#1d2733")
            ),
        )
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=[emp[0]],
            y=ey,
            mode="markers",
            name="empirical mean (not private)",
            marker=dict(symbol="diamond", size=10, color=COLORS["sampling"]),
        )
    )
    merge_layout(fig, xaxis={"title": {"text": f"coordinate {cs[0] + 1}"}})
    if one_d:
        fig.update_yaxes(
            tickvals=[-k for k in range(len(entries))],
            ticktext=[e[0] for e in entries],
            title_text=None,
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
    style(fig, height=height)
    merge_layout(
        fig,
        legend=dict(orientation="h", yanchor="top", y=-0.18, xanchor="left", x=0.0),
        margin=dict(t=20, b=40),
    )
    return fig, pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------------------------
# why 1/(p+2): the scaling exponent
# ----------------------------------------------------------------------------------------------


def _floor(sig: np.ndarray) -> np.ndarray:
    """A constant column (``sigma_i = 0``) would get an infinite scale: floor at ``1e-12 max(sigma)``, as PLAN does."""
    top = float(np.max(sig)) if sig.size else 0.0
    return np.maximum(sig, top * 1e-12 if top > 0 else 1.0)


def exponent_noise_std(
    sigma: np.ndarray,
    n: int,
    rho_noise: float,
    exponent: float,
    *,
    sigma_hat: np.ndarray | None = None,
    margin: float = 1.0,
) -> np.ndarray:
    """Idealised per-coordinate noise std of PLAN's output with scaling ``s = sigma^^(-2e)``.

    The clip radius is ``C = margin * sqrt(sum_i sigma_i^2 s_i^2)`` (the typical scaled norm), the
    sum gets ``N(0, 2C^2/rho_noise)`` per coordinate (sensitivity ``2C``), and coordinate ``i`` of the
    mean carries ``sqrt(2C^2/rho_noise) / (n s_i)``. This is Appendix C's release with sensitivities
    ``Delta = sigma`` and divisor ``sigma^^(2e)``: ``(2 margin / n) *``
    :func:`dpcore.theory.plan.noise_std_per_coordinate`.
    """
    sig = np.asarray(sigma, dtype=float)
    sh = _floor(sig if sigma_hat is None else np.asarray(sigma_hat, dtype=float))
    t = sh ** (2.0 * float(exponent))
    return 2.0 * margin / n * theory.noise_std_per_coordinate(sig, t, rho_noise)


def exponent_curve(
    sigma: np.ndarray,
    n: int,
    rho_noise: float,
    p: float = 2.0,
    *,
    sigma_hat: np.ndarray | None = None,
    current: float | None = None,
    margin: float = 1.0,
    num: int = 101,
    height: int = 380,
) -> tuple[go.Figure, pd.DataFrame]:
    """Expected noise and total error against the scaling exponent ``e`` (``s = sigma^^(-2e)``).

    noise: ``(E ||noise||_p^p)^(1/p) = (2 margin / n) (theory.expected_scaled_noise_pp(sigma,
    sigma^^(2e), rho_noise, p))^(1/p)`` (Appendix C); ``e = 0`` gives the Gaussian mechanism's
    ``d^(1/p) ||sigma||_2`` shape, ``e = 1/(p+2)`` PLAN's minimum ``||sigma||_{2p/(p+2)}``, ``e = 1/2``
    the equal split's ``sqrt(d) ||sigma||_p`` (each times ``margin G_p sqrt(2/rho_noise) / n``).
    sampling: ``theory.sampling_error`` (flat). total: ``(E ||sampling + noise||_p^p)^(1/p)`` for
    independent Gaussian coordinates, ``G_p (sum_i (sigma_i^2/n + noise_i^2)^(p/2))^(1/p)`` (clipping
    bias ignored).

    Returns
    -------
    (Figure, DataFrame)
        Columns ``exponent``, ``noise``, ``sampling``, ``total``, ``point`` (name of a marked
        exponent, else empty).

    References
    ----------
    PLAN, Appendix C and Theorem 4.5; docs/estimators/plan.md §6; :mod:`dpcore.theory.plan`.
    """
    sig = np.asarray(sigma, dtype=float)
    sh = _floor(sig if sigma_hat is None else np.asarray(sigma_hat, dtype=float))
    named = {
        0.0: "no scaling (e = 0)",
        1.0 / (p + 2.0): f"PLAN (e = 1/{p + 2:g})",
        0.5: "equal split (e = 1/2)",
    }
    grid = np.union1d(np.linspace(0.0, 0.5, num), list(named))
    if current is not None:
        grid = np.union1d(grid, [float(current)])
    gp = theory.gaussian_moment_constant(p)
    samp = theory.sampling_error(sig, n, p)
    rows = []
    for e in grid:
        pp = theory.expected_scaled_noise_pp(sig, sh ** (2.0 * e), rho_noise, p)
        noise = 2.0 * margin / n * pp ** (1.0 / p)
        sd = exponent_noise_std(sig, n, rho_noise, e, sigma_hat=sh, margin=margin)
        total = gp * float(np.sum((sig**2 / n + sd**2) ** (p / 2.0))) ** (1.0 / p)
        name = next((v for k, v in named.items() if math.isclose(k, e, abs_tol=1e-12)), "")
        rows.append(
            {"exponent": float(e), "noise": noise, "sampling": samp, "total": total, "point": name}
        )
    df = pd.DataFrame(rows)
    fig = figure(styled=True)
    fig.add_trace(
        trace(
            go.Scatter,
            x=df.exponent,
            y=df.total,
            mode="lines",
            name="total (sampling and noise)",
            line=dict(color="#1d2733", width=2),
        )
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=df.exponent,
            y=df.noise,
            mode="lines",
            name="DP noise",
            line=dict(color=COLORS["noise"], width=3),
        )
    )
    fig.add_trace(
        trace(
            go.Scatter,
            x=df.exponent,
            y=df.sampling,
            mode="lines",
            name="sampling error (floor)",
            line=dict(color=COLORS["sampling"], width=2, dash="dash"),
        )
    )
    pts = df[df.point != ""]
    fig.add_trace(
        trace(
            go.Scatter,
            x=pts.exponent,
            y=pts.noise,
            mode="markers+text",
            text=pts.point,
            name="named exponents",
            textposition=[
                "top right" if e < 0.1 else "top left" if e > 0.4 else "top center"
                for e in pts.exponent
            ],
            marker=dict(size=10, color=COLORS["noise"], line=dict(width=1, color="#1d2733")),
            showlegend=False,
        )
    )
    if current is not None:
        fig.add_vline(
            x=float(current),
            line=dict(color=COLORS["scaled"], width=2, dash="dot"),
            annotation_text="slider",
            annotation_position="bottom right",
        )
    merge_layout(
        fig,
        xaxis={"title": {"text": "scaling exponent e in s = σ^(−2e)"}, "range": [-0.01, 0.51]},
        yaxis={"title": {"text": f"expected ℓ{p:g} error"}, "rangemode": "tozero"},
    )
    return style(fig, title="Why the middle ground wins (idealised, Appendix C)", height=height), df


# ----------------------------------------------------------------------------------------------
# noise shapes and the error split
# ----------------------------------------------------------------------------------------------


def noise_shapes_figure(
    entries: Sequence[tuple[str, str, Estimate]], sigma: np.ndarray, n: int, height: int = 460
) -> tuple[go.Figure, pd.DataFrame]:
    """Per-coordinate noise std of each estimator (bars; lines for ``d > 64``) against ``sigma_i / sqrt(n)``.

    PLAN's noise follows the spread (``std_i ∝ sigma^_i^(2/(p+2))``); IOME and the Gaussian mechanism
    put the same noise on every coordinate. The sampling std ``sigma_i / sqrt(n)`` of each
    coordinate's empirical mean is drawn as the yardstick (same units).

    Returns
    -------
    (Figure, DataFrame)
        Columns ``coordinate`` (1-based), ``estimator``, ``noise_std``, ``sigma``, ``sampling_std``.
    """
    sig = np.asarray(sigma, dtype=float)
    d = sig.size
    coord = np.arange(1, d + 1)
    frames = []
    fig = figure(styled=True)
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
        hover = label + "<br>coordinate %{x}: noise std %{y:.3g}<extra></extra>"
        if bars:
            fig.add_trace(
                trace(go.Bar, x=coord, y=sd, name=label, marker_color=color, hovertemplate=hover)
            )
        else:
            fig.add_trace(
                trace(
                    go.Scatter,
                    x=coord,
                    y=sd,
                    mode="lines",
                    name=label,
                    line=dict(color=color, width=2),
                    hovertemplate=hover,
                )
            )
    fig.add_trace(
        trace(
            go.Scatter,
            x=coord,
            y=sig / math.sqrt(n),
            mode="lines+markers" if bars else "lines",
            name="sampling std σᵢ/√n",
            line=dict(color=COLORS["sampling"], width=2, dash="dash"),
            marker=dict(size=5),
            hovertemplate="coordinate %{x}: σᵢ/√n = %{y:.3g}<extra></extra>",
        )
    )
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
    style(fig, title="Noise shapes: noise std per coordinate", height=height)
    # four long legend entries wrap onto two rows, which the house style's legend-on-top would
    # draw over the title: below the plot instead
    merge_layout(
        fig,
        legend=dict(orientation="h", yanchor="top", y=-0.25, xanchor="left", x=0.0),
        margin=dict(b=120),
    )
    return fig, pd.concat(frames, ignore_index=True)


def error_split_frame(
    entries: Sequence[tuple[str, Estimate]], x: np.ndarray, truth: np.ndarray, p: float = 2.0
) -> pd.DataFrame:
    """One row per estimator with :func:`dpcore.metrics.error_split` (sampling, clipping, noise, total),
    ready for :func:`dpcore.figures.style.error_split_chart`."""
    return pd.DataFrame(
        [{"estimator": label, **error_split(est, x, truth, p)} for label, est in entries],
        columns=["estimator", "sampling", "clipping", "noise", "total"],
    )


__all__ = [
    "COLORS",
    "error_split_frame",
    "exponent_curve",
    "exponent_noise_std",
    "noise_figure",
    "noise_shapes_figure",
    "plan_steps_figure",
    "step_summary",
]
