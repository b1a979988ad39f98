"""IOME's clip radius stage: a private ``m/n``-quantile of the norms ``||R x_j - c||``, with IOME's
clip rank ``m``.

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §9.8, §10.17.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpcore import mechanisms, quantiles
from dpcore._validation import check_bounds, check_positive
from dpcore.estimators._localise import centred_norms
from dpcore.estimators.iome.options import IomeOptions
from dpcore.estimators.iome.rotate import Rotated
from dpcore.privacy import Ledger


@dataclass(frozen=True)
class Radius:
    """The clip radius stage's outputs: ``C``, the clip rank ``m``, the quantile aimed at, the
    universe ``U``, the norms ``||R x_j - c||`` (data, never released), and the stage's public
    warnings."""

    C: float
    rank: float
    quantile: float
    universe: float
    norms: np.ndarray
    warnings: tuple[str, ...] = ()


def radius(
    rot: Rotated,
    c: np.ndarray,
    spec: IomeOptions,
    budgets: Mapping[str, float],
    ledger: Ledger,
    g: Any,
) -> Radius:
    """The clip radius: a private ``m/n``-quantile of ``||R x_j - c||`` on ``[0, U]``.

    ``U = ||hw||_2 + ||max(|lo_m|, |hi_m|)||_2``
    (the largest ``||xr - c||`` for a row in the box) unless ``radius_upper`` is given.

    Privacy
    -------
    Replace-one: one row changes one norm (rank sensitivity 1); stage "clip radius", ``p1``
    (log-grid exponential mechanism or ``T`` Gaussian halvings).
    """
    n, D = rot.xr.shape
    p1 = budgets["radius"]
    norms = centred_norms(rot.xr, c)  # one pass over the rows: no copy of xr - c
    m = clip_rank(
        n, D, spec.steps, p1, budgets["noise"], spec.offset_factor, spec.radius_step, spec.beta
    )
    q_clip = m / n
    warnings_: tuple[str, ...] = ()
    if q_clip < 0.5:
        warnings_ = (
            f"IOME's clip rank m = {m:.0f} is below n/2 (n = {n} is small for this budget); "
            "clamped to the median norm.",
        )
    q_clip = min(max(q_clip, 0.5), 1.0 - 0.5 / n)
    U = spec.radius_upper
    if U is None:
        mlo, mhi = check_bounds(rot.median_bounds, D)
        U = float(np.linalg.norm(rot.hw)) + float(
            np.linalg.norm(np.maximum(np.abs(mlo), np.abs(mhi)))
        )
    U = check_positive(U, "radius_upper")
    what = f"the {q_clip:.4f}-quantile of ||R x - c||"
    if spec.radius_step == "log_grid":
        how = f"exponential mechanism on a log grid for {what} in [{U * 1e-9:.3g}, {U:.4g}]"
    else:
        how = f"binary search for {what} on [0, {U:.4g}]"
    method: Literal["log_grid", "binary_search"] = (
        "log_grid" if spec.radius_step == "log_grid" else "binary_search"
    )
    with mechanisms.stage(ledger, "clip radius", note=how):
        C = quantiles.norm_quantile(
            norms, q_clip, U, rho=p1, method=method, steps=spec.steps, rng=g
        )
    if method == "binary_search":
        C = max(C, U * 2.0 ** (-spec.steps - 1))
    return Radius(C, m, q_clip, U, norms, warnings_)


def clip_rank(
    n: int,
    D: int,
    steps: int,
    rho_radius: float,
    rho_noise: float,
    offset_factor: float,
    radius_step: str = "binary_search",
    beta: float = 0.1,
) -> float:
    """IOME's clip rank ``m = n - f (2 sqrt(D / (2 p2)) + r)`` (docs/estimators/plan.md §5a).

    ``r`` is the rank error of the radius step: ``sqrt(T / (2 p1))`` for the binary search (IOME's
    own term), ``2 ln(G / beta) / sqrt(8 p1)`` for the log-grid exponential mechanism
    (:func:`dpcore.quantiles.exponential.log_grid_rank_error`).
    """
    if radius_step == "log_grid":
        r = quantiles.log_grid_rank_error(rho_radius, beta)
    else:
        r = math.sqrt(steps / (2.0 * rho_radius))
    return n - offset_factor * (2.0 * math.sqrt(D / (2.0 * rho_noise)) + r)
