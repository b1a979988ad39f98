"""What every PLAN picture shares: the colours, the panel titles, outlines of ellipses and the
checks of coordinates and diagnostics."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from dpcore.estimate import Estimate
from dpcore.registry import ERROR_SOURCE_COLORS

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
