"""Choosing the number of groups k of subsample-and-aggregate from public values: the error bound
of Corollary 5.1 (reconstructed) and the k that minimises it (docs/estimators/winsorized.md §3).
Used by :func:`dpcore.estimators.subsample_aggregate.subsample_and_aggregate` when neither ``k``
nor ``group_size`` is given.

References
----------
Ramsay & Spicker, arXiv 2501.14095 (v1), §5 and Corollary 5.1; docs/estimators/winsorized.md §3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpcore import quantiles
from dpcore._validation import (
    check_probability,
)

# ------------------------------------------------------------------------------------------------
# choosing k (Corollary 5.1, reconstructed)


def sa_error_bound(
    k: np.ndarray | int,
    n_units: int,
    *,
    unit_variance: float = 1.0,
    bias_constant: float = 0.0,
    epsilon: float | None = None,
    rho: float | None = None,
    p: int = 1,
    delta: float = 0.1,
    constant: float = 1.0,
) -> np.ndarray:
    """Corollary 5.1 (reconstructed, C = 1: "up to constants") as a function of the group count k.

    With groups of ``m = N / k`` units, ``sigma_T^2 = v / m`` and bias ``b_m = B / m``,

    ``|theta~ - theta| <= |B|/m + C sigma_T ( sqrt(log(1/delta)/k) + sqrt(log(1/delta)/(eps' k)) )``

    with ``eps' = eps/p`` (zCDP: ``(log(1/delta)/rho')^{1/4}/sqrt(k)``, ``rho' = rho/p``). The
    variance part does not depend on k (``sigma_T / sqrt(k) = sqrt(v/N)``); the bias grows with k.

    References
    ----------
    Ramsay & Spicker (2025) Corollary 5.1; docs/estimators/winsorized.md §3 "Guidance on k".
    """
    if (epsilon is None) == (rho is None):
        raise ValueError("pass exactly one of epsilon (pure) or rho (zCDP).")
    kk = np.asarray(k, dtype=float)
    if np.any(kk < 1) or np.any(kk > n_units):
        raise ValueError(f"k must be between 1 and n_units = {n_units}.")
    log_d = math.log(1.0 / check_probability(delta, "delta"))
    m = np.floor(n_units / kk)
    sd_t = np.sqrt(unit_variance / m)
    if epsilon is not None:
        priv = np.sqrt(log_d / ((epsilon / p) * kk))
    else:
        assert rho is not None  # exactly one of epsilon, rho (checked above)
        priv = (log_d / (rho / p)) ** 0.25 / np.sqrt(kk)
    return np.abs(bias_constant) / m + constant * sd_t * (np.sqrt(log_d / kk) + priv)


@dataclass(frozen=True)
class KGuidance:
    """Advice on the number of groups for S&A (spec §3)."""

    k: int
    group_size: int
    k_min: int
    k_max: int
    reason: str


def choose_k(
    n_units: int,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    p: int = 1,
    bias_constant: float = 0.0,
    bounds_width: float = 100.0,
    c: float = 1.0,
    eta: float = 0.0,
    beta: float = 1.001,
    max_stop_probability: float = 0.05,
) -> KGuidance:
    """Guidance for k from Corollary 5.1 plus the private-quantile requirement.

    * Bias: with ``b_m = B/m`` keep ``|B|/m <= N^{-1/2}``, i.e. ``m >= |B| sqrt(N)`` and
      ``k <= k_max = N / (|B| sqrt(N)) = sqrt(N)/|B|`` (``B = 0``: unbiased, ``k_max = N // 2``,
      groups of at least 2). For the normal-variance MLE ``B = sigma^2`` gives ``k <~ sqrt(N)``.
    * The variance part of the bound does not depend on k, so take k as large as the bias allows.
    * The aggregator's quantile walks must not stop before the data (spec §2.6): ``k_min`` is the
      smallest k whose premature-stop probability (both walks across the whole range
      ``bounds_width``) is below ``max_stop_probability``.

    Returns the largest admissible k (``k_max``), or ``k_min`` with a warning in ``reason`` when
    the two requirements conflict.

    References
    ----------
    docs/estimators/winsorized.md §3 "Guidance on k" and §2.6; Ramsay & Spicker (2025) Corollary
    5.1.
    """
    if (epsilon is None) == (rho is None):
        raise ValueError("pass exactly one of epsilon (pure) or rho (zCDP).")
    N = int(n_units)
    if N < 4:
        raise ValueError(f"n_units must be at least 4 for subsample-and-aggregate; got {N}.")
    steps = quantiles.grid_size((0.0, float(bounds_width)), beta)
    ks = np.arange(2, N // 2 + 1, dtype=float)
    taus = np.minimum(np.maximum(c / ks, eta), max(0.025, eta))  # trim_level, vectorised
    target = (1.0 - taus) * ks
    if epsilon is not None:  # premature_stop_probability, vectorised, for both walks
        tail = np.exp(-(epsilon / (8.0 * p)) * target)
    else:
        assert rho is not None  # exactly one of epsilon, rho (checked above)
        tail = stats.norm.sf(target * math.sqrt(rho / (8.0 * p)))
    p_stop = -2.0 * np.expm1(steps * np.log1p(-np.minimum(tail, 1 - 1e-16)))
    ok = np.flatnonzero(p_stop <= max_stop_probability)
    k_min = int(ks[ok[0]]) if ok.size else N // 2
    k_max = (
        N // 2 if bias_constant == 0 else max(2, int(math.floor(math.sqrt(N) / abs(bias_constant))))
    )
    if k_min <= k_max:
        k = k_max
        reason = (
            f"k = {k}: the largest number of groups whose bias stays below 1/sqrt(N); the private "
            f"quantiles need k >= {k_min}."
        )
    else:
        k = k_min
        reason = (
            f"k = {k}: the private quantiles need at least {k_min} groups, more than the bias allows "
            f"({k_max}); expect some bias, or spend more budget."
        )
    return KGuidance(k=k, group_size=N // k, k_min=k_min, k_max=k_max, reason=reason)
