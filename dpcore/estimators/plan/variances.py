"""PLAN's variance stage (:func:`estimate_variances`) and its estimates: Algorithm 2 (real data),
the private cap on every variance, the binary instantiation's ``q~ (1 - q~)``; the regulariser
``sigma^ + ||sigma^||_1 / d``.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 2 (App. D.1), Lemma 5.3;
docs/estimators/plan.md §4a–§4c, §10.1–10.2.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from dpcore import _kernels, _kernels_quantile, mechanisms, quantiles
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_data,
    check_positive,
    check_probability,
)
from dpcore.estimators._localise import pair_distance_median
from dpcore.estimators.plan.budget import STAGE_LABELS
from dpcore.estimators.plan.frequencies import Frequencies
from dpcore.estimators.plan.options import PlanOptions
from dpcore.privacy import Ledger
from dpcore.quantiles.coordinate import QuantileMethod, private_quantile


def chi_square_median_factor(k: int) -> float:
    """Wilson–Hilferty median of ``chi^2_k`` divided by ``k``: ``(1 - 2/(9k))^3`` (``(7/9)^3`` for k=1).

    Algorithm 2's group statistic is ``sigma^2 chi^2_k`` for Gaussian data, so the private median
    is divided by ``k * (1 - 2/(9k))^3`` (docs/estimators/plan.md §4c, §10.1 — the paper's §7.1
    prints the reciprocal).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"pairs_per_group must be a positive integer; got {k!r}.")
    return (1.0 - 2.0 / (9.0 * k)) ** 3


def variance_estimate(
    x: np.ndarray,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    pairs_per_group: int = 1,
    method: QuantileMethod = "exponential",
    steps: int = 20,
    scale: Literal["log", "linear"] = "log",
    floor_ratio: float = 1e-30,
    max_variance: float | None = None,
    rng: RngLike = None,
) -> np.ndarray:
    """Algorithm 2 (VarianceEstimate, App. D.1) on every coordinate: private ``sigma^2``.

    Shuffle the rows, cut them into ``n' = floor(n / (2k))`` groups of ``k`` disjoint pairs, per
    coordinate ``y_g = sum_pairs (x_a - x_b)^2 / 2``, take the private median of ``y_1..y_n'`` on
    ``[0, k (hi - lo)^2 / 2]`` with ``rho / d`` per coordinate, and divide by ``k (1 - 2/(9k))^3``
    (the chi-square median correction, §10.1). Privacy: the shuffle is data independent and every
    row lands in one group, so replacing a row changes one group value per column: a replace-one
    neighbour of the group data, and the private median costs ``rho / d`` per column.

    ``scale="log"`` (default, [ours]) takes the private median of ``log y`` on
    ``[log(floor_ratio * top), log(top)]`` and exponentiates it. The median commutes with the
    monotone map, each person still holds one value per column, and the search range is public,
    so privacy is unchanged. The floor sits far below any real spread (``1e-30 top``): values
    clamped to a floor near the data would tie, and tied values leave only zero-length intervals,
    which the mechanism never picks (with ``1e-12`` the Gaussian C preset at ``d = 1024`` lost
    its low-variance coordinates this way). Why: on the linear range ``[0, top]`` with ``top = k (hi - lo)^2 / 2``
    the empty interval above the data is ~``top`` long, and with a small per-coordinate budget the
    exponential mechanism picks it for low-variance coordinates (e.g. Gaussian B, ``n = 4000``,
    ``d = 128``, ``rho = 0.125``: over 10% of coordinates get ``sigma^ / sigma`` of about 10^4).
    In log space that interval is only ``log(top / max y)`` long. ``scale="linear"`` is the
    spec's literal ``[0, 2M^2]`` version. (The authors' code masks the problem with a "spreading"
    trick that triples every point, which is a privacy bug: docs/estimators/plan.md §10.10.)

    ``max_variance`` (public, or the output of an earlier private step such as
    :func:`variance_cap`) lowers the top of every search range to
    ``min(k (hi - lo)^2 / 2, k (1 - 2/(9k))^3 max_variance)``, so no ``sigma^2`` exceeds it; the
    range stays independent of this step's data, so the privacy argument is unchanged.

    Returns
    -------
    ndarray (d,)
        ``sigma^2`` (biased low by about 3% for Gaussian data with ``k = 1``: ``median(chi^2_1) =
        0.4549 < (7/9)^3 = 0.4705``, so ``sigma^2 -> 0.967 sigma^2``; §9.16).

    Privacy
    -------
    Replace-one, ``n`` public: one group value per person and column, so the ``d`` private medians
    (sensitivity 1) cost ``rho / d`` each, ``rho``-zCDP in all, charged by the mechanisms to the
    caller's open stage. The shuffle and the search ranges are data independent.

    References
    ----------
    PLAN, Algorithm 2 and Lemma D.1; docs/estimators/plan.md §4a.2, §4c, §10.1–10.2.
    """
    X = check_data(x, ndim=2)
    return _variance_estimate(
        X,
        bounds,
        rho=rho,
        pairs_per_group=pairs_per_group,
        method=method,
        steps=steps,
        scale=scale,
        floor_ratio=floor_ratio,
        max_variance=max_variance,
        rng=rng,
    )


def _variance_estimate(
    X: np.ndarray,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    pairs_per_group: int,
    method: QuantileMethod,
    steps: int,
    scale: Literal["log", "linear"],
    floor_ratio: float,
    max_variance: float | None,
    rng: RngLike,
) -> np.ndarray:
    """:func:`variance_estimate` on rows ``X`` that :func:`~dpcore._validation.check_data` has
    passed (PLAN's run checks its data once, not once per stage)."""
    n, d = X.shape
    k = int(pairs_per_group)
    factor = chi_square_median_factor(k)
    groups = n // (2 * k)
    if groups < 1:
        raise ValueError(
            f"variance estimation needs at least 2*pairs_per_group = {2 * k} rows; got n = {n}."
        )
    lo, hi = check_bounds(bounds, d)
    g = mechanisms.generator(rng)
    perm = g.permutation(n)[: 2 * k * groups]
    first, second = perm[0::2], perm[1::2]
    top = k * (hi - lo) ** 2 / 2.0
    if max_variance is not None:
        top = np.minimum(top, k * factor * check_positive(max_variance, "max_variance"))
    if scale == "log" and k == 1 and method == "exponential" and _kernels.use_kernels(X):
        floor_k = check_positive(floor_ratio, "floor_ratio") * top
        return np.exp(_log_medians(X, first, second, floor_k, top, rho, g)) / factor
    a = _half_squared_differences(X, first, second)
    if k > 1:
        a = a.reshape(groups, k, d).sum(axis=1)
    if scale == "log":
        check_positive(floor_ratio, "floor_ratio")
        floor = floor_ratio * top
        log_a = np.log(np.maximum(a, floor, out=a), out=a)  # in place: a is not used again
        log_med = private_quantile(
            log_a, 0.5, (np.log(floor), np.log(top)), rho=rho, method=method, steps=steps, rng=g
        )
        med = np.exp(np.asarray(log_med, dtype=float))
    elif scale == "linear":
        med = np.asarray(
            private_quantile(
                a, 0.5, (np.zeros(d), top), rho=rho, method=method, steps=steps, rng=g
            ),
            dtype=float,
        )
    else:
        raise ValueError(f"scale must be 'log' or 'linear'; got {scale!r}.")
    return np.asarray(med, dtype=float) / (k * factor)


def _log_medians(
    X: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    floor: np.ndarray,
    top: np.ndarray,
    rho: float,
    g: Any,
) -> np.ndarray:
    """The private medians of ``log max((X[first] - X[second])^2 / 2, floor)`` on
    ``[log floor, log top]`` (one pair per group): :func:`_variance_estimate`'s numbers, with the
    statistics formed by one compiled pass straight into the ``(d, m)`` layout the per-column
    mechanism works on (:func:`dpcore._kernels_quantile.half_squared_columns`) instead of
    ``(m, d)`` values copied out column by column. ``X`` holds checked rows
    (``|x| <= limits.MAX_ABS_VALUE``), so every square is finite."""
    V = np.empty((X.shape[1], first.size))  # numpy's allocation: huge pages for a large array
    _kernels_quantile.half_squared_columns(X, first, second, floor, V)
    return quantiles.exponential_quantile_columns(
        np.log(V, out=V), 0.5, (np.log(floor), np.log(top)), rho=rho, rng=g
    )


def _half_squared_differences(X: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``(X[first] - X[second])^2 / 2`` (one row per pair): one compiled pass on large arrays
    (:func:`dpcore._kernels.half_squared_pair_diffs`), else gathered and subtracted in blocks of
    rows (no second ``(n/2, d)`` temporary)."""
    if _kernels.use_kernels(X):
        return _kernels.half_squared_pair_diffs(X, first, second)
    a = X[first]
    for j in range(0, first.size, 256):
        a[j : j + 256] -= X[second[j : j + 256]]
    np.square(a, out=a)
    a *= 0.5
    return a


#: Share of the variance budget that :func:`plan` spends on :func:`variance_cap`.
VARIANCE_CAP_SHARE = 0.1


def variance_cap(
    x: np.ndarray,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    beta: float = 0.1,
    rng: RngLike = None,
) -> float:
    """A private upper bound on every coordinate variance ``sigma_i^2`` (``rho``-zCDP, replace-one).

    The rows are cut into ``m = n // 2`` disjoint public pairs (consecutive rows) and ``D_j`` is
    the l2 distance within pair ``j``. ``r`` = the private median of the ``D_j`` by the exponential
    mechanism over the log grid below the public diameter ``||hi - lo||_2``
    (:func:`dpcore.estimators._localise.pair_distance_median`; one person sits in one pair, so one
    ``D_j`` changes: rank utility with sensitivity 1, ``eps = sqrt(8 rho)``, ``rho``-zCDP). With
    probability ``1 - beta`` at least ``m/2 - e`` distances lie at or below ``r``, ``e`` =
    :func:`dpcore.quantiles.log_grid_rank_error`, so ``r`` is at least the ``q``-quantile of ``D``
    with ``q = 1/2 - e/m``. Every coordinate's share ``D_j^2 >= (x_ai - x_bi)^2 = 2 sigma_i^2 Z^2``
    (Gaussian data), so that quantile is at least ``sigma_i sqrt(2 chi2_1^{-1}(q))`` and
    ``sigma_i^2 <= r^2 / (2 chi2_1^{-1}(q))`` for every ``i`` (``q`` floored at 0.01).

    Why: Algorithm 2's per-coordinate medians get ``rho_variance / d`` each; on the paper's wide
    ranges (Gaussian C, ``d = 1024``, ``rho = 1/16``: ``+-1.6e6``, ``eps = 0.01`` per coordinate)
    one or two of the 1024 medians can land in the empty stretch above the data, up to
    ``4e5 sigma_i``; ``s_i = sigma^_i^(-1/2)`` then sends ``sqrt(sigma^_i)`` of noise into that
    coordinate and the error is several times the typical one. One extra
    1-D median on ``n / 2`` values is accurate at a tenth of the variance share and bounds every
    ``sigma^_i`` by about ``1.7 ||sigma||_2``.

    Budget split: :func:`plan` spends :data:`VARIANCE_CAP_SHARE` of ``rho_variance`` here and the
    rest on Algorithm 2's medians (sequential composition, the two parts sum to ``rho_variance``
    exactly; docs/estimators/plan.md §2 "Budgets", §4c).

    Privacy
    -------
    Replace-one, ``n`` public: one exponential-mechanism draw, utility sensitivity 1,
    ``rho``-zCDP, charged to the caller's open stage.

    References
    ----------
    McSherry and Talwar (FOCS 2007); PLAN, Algorithm 2; docs/estimators/plan.md §1 (replace-one),
    §4a.2, §4c.
    """
    return _variance_cap(check_data(x, ndim=2, min_rows=2), bounds, rho=rho, beta=beta, rng=rng)


def _variance_cap(
    X: np.ndarray, bounds: tuple[Any, Any], *, rho: float, beta: float, rng: RngLike
) -> float:
    """:func:`variance_cap` on rows ``X`` (at least two) that
    :func:`~dpcore._validation.check_data` has passed."""
    from statistics import NormalDist

    n, d = X.shape
    lo, hi = check_bounds(bounds, d)
    rho = check_positive(rho, "rho")
    b = check_probability(beta, "beta")
    r = pair_distance_median(X, float(np.linalg.norm(hi - lo)), rho=rho, rng=rng)
    q = max(0.5 - quantiles.log_grid_rank_error(rho, b) / (n // 2), 0.01)
    chi2_q = NormalDist().inv_cdf((1.0 + q) / 2.0) ** 2
    return r * r / (2.0 * chi2_q)


def variance_floor_ratio(d: int) -> float:
    """Floor of Algorithm 2's log search range relative to its capped top: ``1e-8 / d^2``.

    With :func:`variance_cap` the top is about ``3 ||sigma||_2^2``. A coordinate whose scale matters
    has ``sigma_i >= ||sigma||_1 / (10 d) >= ||sigma||_2 / (10 d)`` (below that the regulariser
    ``||sigma^||_1 / d`` decides its scale), so ``sigma_i^2 >= top / (300 d^2)`` and the floor sits at
    ``3e-6 sigma_i^2`` or lower: only the ``P(chi2_1 < 3e-6) = 0.14%`` lowest group values of such a
    coordinate are clamped (ties far from the median). Why: the empty stretch of the log range below
    the data is what the exponential mechanism picks when it underestimates a variance; for a large
    ``sigma_i`` that is harmful (``s_i = sigma^_i^(-1/2)`` inflates the scaled norms, the radius and
    the noise: PLAN, C, d = 1024, rho = 1/16, grid seed 0: ``sigma^_2 = 7e-11 sigma_2``, error 3x the
    median). The ``1e-30`` floor left about 50 nats below the data there; this one about 14, so
    such picks are about 3.5x rarer. Public (a function of ``d``); privacy unchanged.

    References
    ----------
    docs/estimators/plan.md §4a.3, §4c.
    """
    return 1e-8 / float(max(int(d), 1)) ** 2


def binary_variances(q_tilde: np.ndarray) -> np.ndarray:
    """``sigma^2 = q~ (1 - q~)`` floored at ``d^(-2/5)`` (Lemma 5.3; docs/estimators/plan.md
    §4b.1)."""
    q = np.asarray(q_tilde, dtype=float)
    return np.maximum(q * (1.0 - q), q.size ** (-0.4))


def regularise(sigma_hat: np.ndarray) -> np.ndarray:
    """``sigma^ + ||sigma^||_1 / d`` (docs/estimators/plan.md §4a.3), floored at a tiny positive
    value."""
    sig = np.maximum(np.asarray(sigma_hat, dtype=float), 0.0)
    out = sig + sig.sum() / sig.size
    return _floor_positive(out)


def _floor_positive(sig: np.ndarray) -> np.ndarray:
    """Replace ``sigma^ = 0`` by a tenth of the mean ``sigma^`` (1 if all are 0).

    Only degenerate columns are affected (e.g. the never-inked border pixels of the digits data):
    left near 0 they would get an enormous scale ``s``, and the private median of a constant
    column lies anywhere in the box (the continuous exponential mechanism gives the single point
    no mass), so the scaled norms would be dominated by that column and every row clipped.
    """
    mean = float(np.mean(sig)) if sig.size else 0.0
    if mean <= 0:
        return np.ones_like(sig)
    return np.where(sig > 0, np.maximum(sig, 1e-12 * float(np.max(sig))), 0.1 * mean)


# -- the variance stage ------------------------------------------------------------------------


def estimate_variances(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    spec: PlanOptions,
    rho_variance: float,
    freq: Frequencies | None,
    sigma_known: np.ndarray | None,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """The variance stage: the raw ``sigma^`` (before regularising) by Algorithm 2, ``q~ (1 - q~)``
    from the private frequencies ``freq``, the known ``sigma_known`` (oracle) or ones.

    Privacy
    -------
    Replace-one: Algorithm 2 charges stage "variances" ``rho_variance`` (:func:`_private_sigma`);
    the binary frequencies' ledger line joins ``ledger`` here; the oracle and ones spend nothing.
    """
    if spec.variances == "private":
        return _private_sigma(X, lo, hi, rho_variance, spec, ledger, g)
    if spec.variances == "binary":
        assert freq is not None
        ledger.absorb(freq.ledger)
        return np.sqrt(binary_variances(freq.q))
    if spec.variances == "oracle":
        assert sigma_known is not None
        return sigma_known
    return np.ones(X.shape[1])


def _private_sigma(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rho_v: float,
    spec: PlanOptions,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """The variance stage: :func:`variance_cap` then Algorithm 2 (:func:`variance_estimate`), on
    the rows ``X`` that :func:`~dpcore.estimators.plan.compose.run_plan` checked (not again).

    Privacy
    -------
    Replace-one: the cap is one log-grid exponential-mechanism median of disjoint pair distances
    (sensitivity 1) with ``cap_share rho_v``; the ``d`` medians of Algorithm 2's group values
    (one person in one group per column) get the rest, ``/ d`` each. Both charge the stage
    "variances", ``rho_v`` in all.
    """
    d, cap_share, beta = X.shape[1], spec.variance_cap_share, spec.beta
    label = STAGE_LABELS["variance"]
    rho_var, cap = rho_v, None
    if cap_share > 0:  # the medians get rho_v - rho_cap exactly; rho_cap + that = rho_v
        rho_cap = rho_v - (rho_v - rho_v * cap_share)
        note = f"a private cap on every sigma^2 (pair-distance median on a log grid, rho {rho_cap:.4g})"
        with mechanisms.stage(ledger, label, note=note):
            cap = _variance_cap(X, (lo, hi), rho=rho_cap, beta=beta, rng=g)
        rho_var = rho_v - rho_cap
    note = f"Algorithm 2: {d} private medians of pair statistics, rho/d = {rho_var / d:.4g} each"
    with mechanisms.stage(ledger, label, note=note + ("" if cap is None else ", below the cap")):
        var = _variance_estimate(  # X was checked by the caller (run_plan)
            X,
            (lo, hi),
            rho=rho_var,
            pairs_per_group=spec.pairs_per_group,
            method=spec.quantile,
            steps=spec.steps,
            scale="log",
            max_variance=cap,
            floor_ratio=1e-30 if cap is None else variance_floor_ratio(d),
            rng=g,
        )
    return np.sqrt(np.maximum(var, 0.0))
