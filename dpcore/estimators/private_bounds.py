"""A private range, then an estimator (the Your data page's two-stage release).

:func:`private_bounds` draws two exponential-mechanism quantiles per column through
:mod:`dpcore.mechanisms` (stages "bounds: lower quantile" and "bounds: upper quantile");
:func:`run_with_private_bounds` runs an estimator inside the private range and appends both
ledgers (:meth:`dpcore.privacy.Ledger.absorb`), so the ledger is what the mechanisms charged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import (
    RngLike,
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
      ``quantiles[1]``, each over all columns (docs/estimators/plan.md §3b).
    * Neighbouring relation: replace-one (``n`` public), and also add/remove: the utility
      ``-|i - q n|`` moves by at most 1 in both (adding or removing a row changes the count ``i``
      below a point by at most 1 and ``q n`` by ``q``, and ``|1 - q|, q <= 1``), so the default
      utility sensitivity 1 is valid for either relation.
    * Budget split: half of the budget to each quantile (the second gets ``total - total/2``);
      inside each call every column gets ``1/d`` of it (composition). With ``rho`` the mechanism
      runs at ``eps_col = sqrt(8 rho_col)`` (bounded-range EM, Cesar and Rogers 2021), so the whole
      step is ``rho``-zCDP (charged by :func:`dpcore.mechanisms.exponential` as
      ``d eps_col² / 8``, equal to ``rho`` up to rounding); with ``epsilon`` it is ``epsilon``-DP.
    * Each quantile is one stage of the returned ledger, written by the mechanism that drew it.

    ``coarse_bounds`` is a wide public range (e.g. ``(-1e6, 1e6)``); the answer always lies in it.
    If the two quantiles come out crossed or equal (a near-constant column) they are swapped and
    widened by a millionth of the coarse range: post-processing, free of privacy cost.

    Raises
    ------
    ValueError
        Before anything is drawn or charged, for non-finite or inverted ``coarse_bounds``, a range
        whose width overflows, quantile levels that are not ``0 < lower < upper < 1``, or not
        exactly one positive finite budget.

    References
    ----------
    Kaplan, Schnapp and Stemmer (ICML 2022); docs/estimators/plan.md §3b.
    """
    arr = check_data(x, name="x", ndim=2)
    d = arr.shape[1]
    clo, chi = check_bounds(coarse_bounds, d, name="coarse_bounds")
    if not np.all(np.isfinite(chi - clo)):
        raise ValueError("coarse_bounds are too wide: their width overflows to infinity.")
    try:
        q_lo, q_hi = (float(q) for q in quantiles)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"quantiles must be two levels 0 < lower < upper < 1; got {quantiles!r}."
        ) from err
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
    g_lo, g_hi = _two_streams(rng)
    key = "rho" if notion == "zcdp" else "epsilon"
    ledger = Ledger(notion)
    found = []
    for stage, q, g, amount in (("lower", q_lo, g_lo, first), ("upper", q_hi, g_hi, second)):
        with mechanisms.stage(
            ledger,
            f"bounds: {stage} quantile",
            f"exponential-mechanism {q:g}-quantile of each of {d} columns",
        ):
            found.append(
                np.asarray(
                    exponential_quantile(arr, q, (clo, chi), rng=g, **{key: amount}), dtype=float
                )
            )
    lower, upper = found
    lo, hi = np.minimum(lower, upper), np.maximum(lower, upper)
    pad = 1e-6 * (chi - clo)
    same = hi - lo < pad
    lo = np.where(same, np.maximum(clo, lo - pad), lo)
    hi = np.where(same, np.minimum(chi, hi + pad), hi)
    return PrivateBounds(lo, hi, ledger)


def _two_streams(rng: RngLike | Any) -> tuple[Any, Any]:
    """Two independent child generators of ``rng`` (a release backend is used as it is)."""
    g = mechanisms.generator(rng)
    if getattr(g, "is_release_backend", False):
        return g, g
    lo, hi = g.spawn(2)
    return lo, hi


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
    floating point for ``share <= 1/2`` (Sterbenz). The returned ledger holds the bounds stages
    first, then the estimator's, as their mechanisms wrote them (:meth:`Ledger.absorb`): it sums
    to ``v`` (up to the rounding of a zCDP exponential-mechanism charge). Both steps hold under the
    estimator's neighbouring relation (see :func:`private_bounds`), and compose additively.

    The estimator runs on ``data`` with its ``bounds`` replaced by the private ones; a
    non-private reference (notion ``"none"``) runs as it is.

    Raises
    ------
    ValueError
        Before anything is charged, for ``share`` outside ``(0, 1/2]`` (or not a number) and for
        the bad inputs :func:`private_bounds` refuses.
    """
    if not isinstance(share, int | float | np.floating | np.integer) or not 0 < share <= 0.5:
        raise ValueError(
            f"share (the bounds' part of the budget) must be in (0, 0.5]; got {share!r}."
        )
    if spec.notion == "none":
        return spec.run(data, budget, rng=rng)
    conv = budget.to_native(spec.notion)
    v = conv.value
    est_amount = v * (1.0 - share)
    bounds_amount = v - est_amount
    g_bounds, g_est = _two_streams(rng)
    key = "rho" if spec.notion == "zcdp" else "epsilon"
    pb = private_bounds(
        data.x, coarse_bounds, quantiles=quantiles, rng=g_bounds, **{key: bounds_amount}
    )
    native = Budget.zcdp(est_amount) if spec.notion == "zcdp" else Budget.pure(est_amount)
    est = spec.run(dataclasses.replace(data, bounds=(pb.lower, pb.upper)), native, rng=g_est)
    ledger = Ledger(spec.notion)
    ledger.absorb(pb.ledger)
    ledger.absorb(est.ledger)
    est.ledger = ledger
    est.conversion = conv
    est.diagnostics.private_bounds = (pb.lower, pb.upper)
    return est
