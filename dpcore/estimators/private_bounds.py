"""A private range, then an estimator (the Your data page's two-stage release).

Moved here: ``PrivateBounds``, ``private_bounds``, ``run_with_private_bounds`` (moved from ``datasets.py``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore._validation import (
    RngLike,
    as_generator,
    check_bounds,
    check_data,
    check_positive,
)
from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.privacy import Budget, Ledger, NativeNotion
from dpcore.quantiles.exponential import exponential_quantile

# ----------------------------------------------------------------------------------------------
# private bounds
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivateBounds:
    """Bounds estimated privately, and what they cost (a ledger in the notion used)."""

    lower: np.ndarray
    upper: np.ndarray
    ledger: Ledger


def private_bounds(
    x: np.ndarray,
    coarse_bounds: Any,
    *,
    rho: float | None = None,
    epsilon: float | None = None,
    quantiles: tuple[float, float] = (0.01, 0.99),
    rng: RngLike = None,
) -> PrivateBounds:
    """Per-column private ``(lower, upper)`` from two exponential-mechanism quantiles.

    Privacy
    -------
    * Mechanism: :func:`dpcore.quantiles.exponential.exponential_quantile` for ``quantiles[0]`` and then for
      ``quantiles[1]``, each over all columns (specs/plan.md §3b).
    * Neighbouring relation: replace-one (``n`` public), and also add/remove: the utility
      ``-|i - q n|`` moves by at most 1 in both (adding or removing a row changes the count ``i``
      below a point by at most 1 and ``q n`` by ``q``, and ``|1 - q|, q <= 1``), so the default
      utility sensitivity 1 is valid for either relation.
    * Budget split: half of the budget to each quantile (the second gets ``total - total/2`` so
      the ledger sums exactly); inside each call every column gets ``1/d`` of it (composition).
      With ``rho`` the mechanism runs at ``eps_col = sqrt(8 rho_col)`` (bounded-range EM, Cesar and
      Rogers 2021), so the whole step is ``rho``-zCDP; with ``epsilon`` it is ``epsilon``-DP.

    ``coarse_bounds`` is a wide public range (e.g. ``(-1e6, 1e6)``); the answer always lies in it.
    If the two quantiles come out crossed or equal (a near-constant column) they are swapped and
    widened by a millionth of the coarse range: post-processing, free of privacy cost.

    References
    ----------
    Kaplan, Schnapp and Stemmer (ICML 2022); specs/plan.md §3b.
    """
    arr = check_data(x, name="x", ndim=2)
    d = arr.shape[1]
    clo, chi = check_bounds(coarse_bounds, d, name="coarse_bounds")
    q_lo, q_hi = quantiles
    if not 0 < q_lo < q_hi < 1:
        raise ValueError(f"quantiles must be two levels 0 < lower < upper < 1; got {quantiles!r}.")
    if (rho is None) == (epsilon is None):
        raise ValueError("pass exactly one of rho (zCDP) or epsilon (pure DP) for the bounds step.")
    notion: NativeNotion = "zcdp" if rho is not None else "pure"
    total = check_positive(
        rho if rho is not None else epsilon, "rho" if rho is not None else "epsilon"
    )
    first = total / 2.0
    second = total - first
    g_lo, g_hi = as_generator(rng).spawn(2)
    key = "rho" if notion == "zcdp" else "epsilon"
    lower = np.asarray(
        exponential_quantile(arr, q_lo, (clo, chi), rng=g_lo, **{key: first}), dtype=float
    )
    upper = np.asarray(
        exponential_quantile(arr, q_hi, (clo, chi), rng=g_hi, **{key: second}), dtype=float
    )
    lo, hi = np.minimum(lower, upper), np.maximum(lower, upper)
    pad = 1e-6 * (chi - clo)
    same = hi - lo < pad
    lo = np.where(same, np.maximum(clo, lo - pad), lo)
    hi = np.where(same, np.minimum(chi, hi + pad), hi)
    ledger = Ledger(notion)
    ledger.charge(
        "bounds: lower quantile",
        first,
        f"exponential-mechanism {q_lo:g}-quantile of each of {d} columns",
    )
    ledger.charge(
        "bounds: upper quantile",
        second,
        f"exponential-mechanism {q_hi:g}-quantile of each of {d} columns",
    )
    return PrivateBounds(lo, hi, ledger)


def run_with_private_bounds(
    spec: EstimatorSpec,
    data: Dataset,
    budget: Budget,
    *,
    share: float,
    coarse_bounds: Any,
    quantiles: tuple[float, float] = (0.01, 0.99),
    rng: RngLike = None,
) -> Estimate:
    """Run ``spec`` on ``data`` after estimating its bounds privately with ``share`` of the budget.

    The budget is converted to the estimator's native notion (``v``); the estimator gets
    ``v (1 - share)`` and the bounds step the rest, ``v - v (1 - share)``, which is exact in
    floating point for ``share <= 1/2`` (Sterbenz), so the returned ledger (bounds stages first,
    then the estimator's stages) sums to ``v`` exactly. Both steps hold under the estimator's
    neighbouring relation (see :func:`private_bounds`), and compose additively.

    The estimator runs on ``data`` with its ``bounds`` replaced by the private ones; a
    non-private reference (notion ``"none"``) runs as it is.
    """
    if not 0 < share <= 0.5:
        raise ValueError(
            f"share (the bounds' part of the budget) must be in (0, 0.5]; got {share!r}."
        )
    if spec.notion == "none":
        return spec.run(data, budget, rng=rng)
    conv = budget.to_native(spec.notion)
    v = conv.value
    est_amount = v * (1.0 - share)
    bounds_amount = v - est_amount
    g_bounds, g_est = as_generator(rng).spawn(2)
    key = "rho" if spec.notion == "zcdp" else "epsilon"
    pb = private_bounds(
        data.x, coarse_bounds, quantiles=quantiles, rng=g_bounds, **{key: bounds_amount}
    )
    native = Budget.zcdp(est_amount) if spec.notion == "zcdp" else Budget.pure(est_amount)
    est = spec.run(dataclasses.replace(data, bounds=(pb.lower, pb.upper)), native, rng=g_est)
    ledger = Ledger(spec.notion)
    for c in pb.ledger.charges + est.ledger.charges:
        ledger.charge(c.stage, c.amount, c.note)
    est.ledger = ledger
    est.conversion = conv
    est.diagnostics.private_bounds = (pb.lower, pb.upper)
    return est
