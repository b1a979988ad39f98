"""What the four panels of the PLAN steps figure show: the drawn rows recentred, scaled, clipped and
mapped back (``_StepsGeometry``), every drawn point set and outline as one tidy frame, and the
numbers for the sentences under the figure (:func:`step_summary`).

References
----------
PLAN (PETS 2024), Figure 1 and Algorithm 1 lines 4–8; docs/estimators/plan.md §8.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from dpcore._validation import check_data
from dpcore.estimate import Estimate
from dpcore.estimators.iome import IomeDiagnostics
from dpcore.estimators.plan import PlanDiagnostics
from dpcore.figures.plan.common import _coords, _outline


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
