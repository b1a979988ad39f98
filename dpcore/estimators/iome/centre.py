"""IOME's centre stage: the private centre ``c`` in rotated space, by CoinPress or by ``D``
coordinate medians (binary searches or coarse to fine).

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §9.8, §10.17.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore import mechanisms, quantiles
from dpcore.estimators._localise import coinpress_center, private_spread
from dpcore.estimators.iome.options import IomeOptions
from dpcore.estimators.iome.rotate import Rotated
from dpcore.privacy import Ledger


def centre(rot: Rotated, spec: IomeOptions, rho_med: float, ledger: Ledger, g: Any) -> np.ndarray:
    """The private centre ``c`` in rotated space (``rho_med``-zCDP): CoinPress or ``D`` medians."""
    if spec.center_step == "coinpress":
        return _coinpress_centre(
            rot.xr, rot.hw, rho_med, spec.spread, spec.spread_share, spec.beta, ledger, g
        )
    return _median_centre(
        rot.xr, rot.median_bounds, rho_med, spec.center_step, spec.steps, ledger, g
    )


def _coinpress_centre(
    xr: np.ndarray,
    hw: np.ndarray,
    rho_med: float,
    spread: float | None,
    spread_share: float,
    beta: float,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """IOME's centre by CoinPress in rotated space (``rho_med``-zCDP in all).

    Privacy
    -------
    Replace-one, ``n`` public. Stage "centre: l2 spread" (only when ``spread`` is not given): the
    log-grid exponential-mechanism median of ``n // 2`` disjoint pair distances (one person in one
    pair, sensitivity 1), ``spread_share rho_med``. Stage "centre (CoinPress)": ``T`` noisy
    clipped means in public balls of radius ``R_t`` (l2 sensitivity ``2 R_t / n``), the rest of
    ``rho_med`` split equally.
    """
    n, D = xr.shape
    r0 = float(np.linalg.norm(hw))
    if spread is None:
        rho_sp = rho_med - (rho_med - rho_med * spread_share)  # the two parts sum to rho_med
        note = f"exponential mechanism on a log grid for the median of {n // 2} pair distances"
        with mechanisms.stage(ledger, "centre: l2 spread", note=note):
            gamma = private_spread(xr, 2.0 * r0, rho=rho_sp, beta=beta, rng=g)
    else:
        rho_sp, gamma = 0.0, spread
    note = "CoinPress: noisy clipped means in shrinking public balls"
    with mechanisms.stage(ledger, "centre (CoinPress)", note=note):
        c, _ = coinpress_center(xr, np.zeros(D), r0, gamma, rho=rho_med - rho_sp, beta=beta, rng=g)
    return c


def _median_centre(
    xr: np.ndarray,
    median_bounds: tuple[Any, Any],
    rho_med: float,
    center_step: str,
    steps: int,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """IOME's centre as ``D`` private coordinate medians in rotated space (``rho_med``-zCDP).

    Privacy
    -------
    Replace-one, ``n`` public: ``rho_med / D`` per rotated coordinate, stage "centre (rotated
    coordinate medians)". ``"binary_search"``: ``steps`` Gaussian counts of sensitivity 1 per
    coordinate; ``"coarse_to_fine"``: :func:`dpcore.quantiles.coarse_to_fine_median` (noisy
    histograms of l2 sensitivity ``sqrt(2 D)``, then exponential-mechanism medians).
    """
    D = xr.shape[1]
    if center_step == "coarse_to_fine":
        note = (
            f"{D} coarse-to-fine medians (noisy histograms, then the exponential mechanism), "
            f"rho/D = {rho_med / D:.4g} each"
        )
    else:
        note = f"{D} binary searches with {steps} noisy counts, rho/D = {rho_med / D:.4g} each"
    with mechanisms.stage(ledger, "centre (rotated coordinate medians)", note=note):
        if center_step == "coarse_to_fine":
            c, _ = quantiles.coarse_to_fine_median(xr, median_bounds, rho=rho_med, rng=g)
            return c
        return np.asarray(
            quantiles.binary_search_quantile(
                xr, 0.5, median_bounds, rho=rho_med, steps=steps, rng=g
            ),
            dtype=float,
        )
