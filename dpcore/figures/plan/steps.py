"""The paper's Figure 1, live: the four panels of :func:`plan_steps_figure` from one PLAN run.

References
----------
PLAN (PETS 2024), Figure 1 and Algorithm 1 lines 4–8; docs/estimators/plan.md §8.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore._validation import check_data
from dpcore.estimate import Estimate
from dpcore.figures.dict_figure import GridDict
from dpcore.figures.plan.common import COLORS, PANEL_TITLES, _need, wrap_title
from dpcore.figures.plan.geometry import _steps_frame, _steps_geometry, _StepsGeometry
from dpcore.figures.style import axis_names, merge_layout, style, subplots, trace


def plan_steps_figure(
    x: np.ndarray,
    estimate: Estimate,
    coords: Sequence[int],
    *,
    true_mean: np.ndarray,
    iome: Estimate | None = None,
    sample: pd.DataFrame | None = None,
    height: int = 860,
    drawn: bool = False,
) -> tuple[Any, pd.DataFrame]:
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
    height : int
        The figure's height in px.
    drawn : bool
        The figure as plotly's dict (its ``to_dict()``, arrays as lists): the layout laid out by
        plotly once per process for the coordinates and height, the traces not validated; to draw
        with :func:`~dpcore.figures.style.prepared`. By default a ``go.Figure``.

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
    cs = tuple(int(c) for c in geo.cs)
    fig: Any = (
        GridDict(copy.deepcopy(_steps_layout(cs, geo.one_d, height)), cols=2)
        if drawn
        else _steps_grid()
    )
    plot = _StepsPlot(geo, df, fig)
    plot.point_panels()
    plot.clip_panel()
    plot.outlines_and_means(has_iome)
    if drawn:
        return fig.to_dict(), df
    _steps_style(fig, cs, geo.one_d, height)
    return fig, df


def _steps_grid() -> go.Figure:
    """The empty 2 x 2 grid: two-line panel titles and wider gaps, so titles and axis labels do
    not overlap on a phone (a 390 px screen gives each panel about 150 px)."""
    return subplots(
        styled=True,
        rows=2,
        cols=2,
        subplot_titles=[wrap_title(PANEL_TITLES[k]) for k in "abcd"],
        horizontal_spacing=0.14,
        vertical_spacing=0.2,
    )


def _steps_style(fig: go.Figure, cs: Sequence[int], one_d: bool, height: int) -> None:
    """The panels' axes, the house style and the legend under the panels (on a phone it wraps
    onto many lines, which on top would cover the titles)."""
    _axes(fig, cs, one_d)
    style(fig, height=height)
    merge_layout(
        fig,
        legend=dict(
            orientation="h", yanchor="top", y=-0.08, xanchor="left", x=0.0, itemsizing="constant"
        ),
        margin=dict(t=50, b=140),
    )


@functools.lru_cache(maxsize=32)
def _steps_layout(cs: tuple[int, ...], one_d: bool, height: int) -> dict:
    """The styled layout of :func:`plan_steps_figure` as plotly writes it, laid out once per
    process for its coordinates and height (it holds no data)."""
    fig = _steps_grid()
    _steps_style(fig, cs, one_d, height)
    return fig.to_dict()["layout"]


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

    def __init__(self, geo: _StepsGeometry, df: pd.DataFrame, fig: Any) -> None:
        self.geo, self.df, self.fig = geo, df, fig  # a go.Figure grid or a GridDict
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


def _axes(fig: go.Figure, cs: Sequence[int], one_d: bool) -> None:
    """Each panel's axis titles and equal aspect (none in 1-D: the vertical axis is jitter)."""
    lab = [f"coordinate {k + 1}" for k in cs]
    axes: dict[str, dict[str, Any]] = {}
    for k, panel in enumerate("abcd"):
        xaxis, yaxis = axis_names(fig, *_WHERE[panel])
        xname = lab[0] if panel in "ad" else f"(x{cs[0] + 1} − μ̃{cs[0] + 1})·s{cs[0] + 1}"
        axes[xaxis] = {"title": {"text": xname}, "constrain": "domain"}
        if one_d:
            axes[yaxis] = {"showticklabels": False, "title": {"text": "(jitter, no meaning)"}}
        else:
            yname = lab[1] if panel in "ad" else f"(x{cs[1] + 1} − μ̃{cs[1] + 1})·s{cs[1] + 1}"
            axes[yaxis] = {
                "title": {"text": yname},
                "scaleanchor": f"x{k + 1 if k else ''}",
                "scaleratio": 1,
                # the equal aspect shrinks the drawing area, never widens the axis ranges:
                # wider ranges give longer tick labels, a wider margin, and Plotly redraws
                # again and again ("Too many auto-margin redraws"); it shrinks toward the
                # panel's title (a tall phone screen keeps the blank below the picture)
                "constrain": "domain",
                "constraintoward": "top",
            }
    merge_layout(fig, **axes)
