"""IOME's first stage: shift by the public box centre ``m0`` and rotate, ``xr = R (x - m0)``.

The rotation, ``m0`` and the rotated search range are public (data independent).

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §9.8, §10.17.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore._validation import check_bounds
from dpcore.estimators.iome.options import IomeOptions
from dpcore.rotation import RandomizedHadamard


class IdentityRotation:
    """Stand-in for :class:`~dpcore.rotation.RandomizedHadamard` that does nothing (``rotate=False``)."""

    def __init__(self, d: int) -> None:
        self.d = self.dim = int(d)
        self.rounds = 0
        self.signs = np.ones((0, self.dim))

    def forward(self, x: np.ndarray, *, center: np.ndarray | None = None) -> np.ndarray:
        X = np.asarray(x, dtype=float)
        return np.array(X if center is None else X - center, dtype=float)

    def forward_columns(self, x: np.ndarray, *, center: np.ndarray | None = None) -> np.ndarray:
        return np.ascontiguousarray(self.forward(x, center=center).T)

    def inverse(self, y: np.ndarray, *, keep_padding: bool = False) -> np.ndarray:
        return np.array(y, dtype=float)


@dataclass(frozen=True)
class Rotated:
    """The rotated rows and what the rotation needs to go back.

    ``xr[j]`` is ``R (x_j - m0)``: one C-contiguous row of ``D`` values per person, the layout in
    which the compiled CoinPress steps, norms and clipped sum read a row at a time
    (:mod:`dpcore._kernels`; docs/speed.md, "IOME, round 4").
    """

    R: RandomizedHadamard | IdentityRotation
    m0: np.ndarray
    hw: np.ndarray
    xr: np.ndarray
    median_bounds: tuple[Any, Any]

    @property
    def dim(self) -> int:
        return int(self.R.dim)


def rotate(X: np.ndarray, lo: np.ndarray, hi: np.ndarray, spec: IomeOptions, g: Any) -> Rotated:
    """Shift by the box centre ``m0`` and rotate: ``xr = R (x - m0)`` (public, data independent).

    The rotated median range is ``[-h, h]``, ``h = ||hw||_2 sqrt(2 ln(2 D n / beta) / D)`` (the
    IOME paper's bound on a rotated coordinate), or the box's half widths without rotation.
    """
    n, d = X.shape
    m0, hw = (lo + hi) / 2.0, (hi - lo) / 2.0
    R: RandomizedHadamard | IdentityRotation = (
        RandomizedHadamard(d, rng=g) if spec.rotate else IdentityRotation(d)
    )
    D = R.dim
    bounds = spec.median_bounds
    if bounds is not None:
        check_bounds(bounds, D, name="median_bounds")
    xr = R.forward(X, center=m0)  # (n, D)
    if bounds is None and spec.rotate:
        h = float(np.linalg.norm(hw)) * math.sqrt(2.0 * math.log(2.0 * D * n / spec.beta) / D)
        bounds = (-h, h)
    elif bounds is None:
        bounds = (-hw, hw)
    return Rotated(R, m0, hw, xr, bounds)
