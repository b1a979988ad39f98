"""Closed-form variance / first-order MSE of the simplex estimators and their baselines.

Every function returns the MSE of the *mean* estimate against the sample mean, as a function of
where the data's mean sits in its range, ``p = (μ - L)/R`` in ``[0, 1]`` (per column), the dimension
``d``, the budget (``epsilon`` for Laplace/pure DP, ``rho`` for Gaussian/zCDP) and the neighbouring
relation. The per-coordinate noise variance of a release with sensitivity ``Δ`` is
``v = 2 (Δ/ε)²`` (Laplace) or ``v = Δ²/(2ρ)`` (Gaussian). For ratio estimators (unknown ``n``) the
value is the delta-method approximation of spec §3,
``MSE ≈ (Var(e_S) - 2 μ Cov(e_S, e_N) + μ² Var(e_N)) / N²``; exact moments do not exist.

The multi-column formulas take the spec's domain ``{z >= 0, sum z <= R}`` (``R`` the l1 radius),
for which an uncentred sum has ``Δ1 = Δ2 = R`` under add/remove and ``2R``, ``sqrt 2 R`` under
replace-one. The centred baselines are given for ``d = 1`` only (for ``d >= 2`` the best centre and
its sensitivity depend on the norm, spec §3 B1c).

Coefficients (spec §4 table, ``d = 1``): ``MSE = c_G R²/(ρ N²)`` or ``c_L R²/(ε² N²)``; see
:func:`coefficient`.

References
----------
Fitzsimons, Honaker, Shoemate, Singhal. arXiv:2408.10438 (2024), eq. (5)-(13).
docs/estimators/simplex.md §3 and §4 (every formula re-derived and Monte Carlo checked there;
re-checked in tests/estimators/test_simplex.py).
"""

from __future__ import annotations

import math

import numpy as np

from dpcore._validation import check_positive
from dpcore.estimators.simplex import check_relation, mechanism_of, noise_variance

#: Estimator names understood by :func:`mse`.
ESTIMATORS = (
    "sum_known_n",
    "centred_sum_known_n",
    "simplex_known_n",
    "plugin",
    "plugin_oracle",
    "plugin_raw",
    "opendp",
    "centred",
    "simplex",
    "simplex_extra_count",
)


def _sum_sensitivity(mech: str, rel: str, radius: float, d: int) -> float:
    """Uncentred sum on the l1 ball domain; d = 1 replace-one is R (one value moves by at most R)."""
    if rel == "add-remove" or d == 1:
        return radius  # one row of norm <= R in or out; for d = 1 also |x - x'| <= R
    return 2.0 * radius if mech == "laplace" else math.sqrt(2.0) * radius


def _simplex_sensitivity(mech: str, rel: str, radius: float) -> float:
    if rel == "add-remove":
        return radius
    return 2.0 * radius if mech == "laplace" else math.sqrt(2.0) * radius


def _v(mech: str, sens: float, budget: float) -> float:
    return noise_variance(mech, sens, budget)  # type: ignore[arg-type]


def mse(
    estimator: str,
    p: float | np.ndarray,
    *,
    n: float,
    radius: float = 1.0,
    d: int = 1,
    epsilon: float | None = None,
    rho: float | None = None,
    neighbouring: str = "add-remove",
    split: float = 0.5,
    count_fraction: float = 0.0,
    combine: str = "blue",
    lower: float = 0.0,
) -> np.ndarray:
    """First-order MSE of a mean estimate (spec §3-§4).

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`: ``"sum_known_n"`` (B1), ``"centred_sum_known_n"`` (B1c, d = 1),
        ``"simplex_known_n"`` (S3), ``"plugin"`` (B2 on shifted data with sum fraction ``split``),
        ``"plugin_oracle"`` (B2 at the best split, which needs ``p``: private), ``"plugin_raw"``
        (B2 on unshifted data ``[lower, lower + R]``), ``"opendp"`` (``plugin_raw`` with the same noise
        scale on sum and count), ``"centred"`` (B3, d = 1), ``"simplex"`` (S2, the free count),
        ``"simplex_extra_count"`` (S4 with ``count_fraction`` of the budget on an extra count and
        ``combine`` "blue" or "paper").
    p : float or array
        Relative position of the mean, ``(μ_j - L_j)/R`` (for ``d >= 2``, ``sum_j p_j <= 1``).
    n : float
        Number of rows.
    radius : float
        ``R`` (for ``d = 1`` the width ``U - L``).
    d : int
        Number of columns.
    epsilon, rho : float
        Exactly one total budget.
    neighbouring : {"add-remove", "replace-one"}
        Only the known-``n`` estimators accept replace-one. A known-``n`` estimator under
        add-remove is the paper's "n as public side information" comparison: its variance is
        given, but it is not DP under add-remove (``n`` is private there and it divides by it).
    lower : float
        Offset ``L`` of the range (matters only for ``plugin_raw`` and ``opendp``).

    Returns
    -------
    ndarray
        MSE of the mean, same shape as ``p``.
    """
    mech, budget = mechanism_of(epsilon, rho)
    rel = check_relation(neighbouring)
    R = check_positive(radius, "radius")
    N = check_positive(n, "n")
    if isinstance(d, bool) or int(d) != d or d < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}.")
    d = int(d)
    P = np.asarray(p, float)
    known = estimator in ("sum_known_n", "centred_sum_known_n", "simplex_known_n")
    if estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {estimator!r}; choose one of {', '.join(ESTIMATORS)}.")
    if not known and rel == "replace-one":
        raise ValueError(
            "estimators with a noisy count need add/remove neighbours (n is public under replace-one)."
        )
    if estimator in ("centred_sum_known_n", "centred") and d != 1:
        raise ValueError("the centred baselines' closed forms are for d = 1 only.")
    if estimator == "sum_known_n":
        return np.full_like(P, _v(mech, _sum_sensitivity(mech, rel, R, d), budget) / N**2)
    if estimator == "centred_sum_known_n":
        sens = R / 2.0 if rel == "add-remove" else R
        return np.full_like(P, _v(mech, sens, budget) / N**2)
    if estimator == "simplex_known_n":
        return np.full_like(
            P, _v(mech, _simplex_sensitivity(mech, rel, R), budget) * d / (d + 1) / N**2
        )
    if estimator == "simplex":
        v = _v(mech, R, budget)
        return v * (1 - 2 * P + (d + 1) * P**2) / N**2
    if estimator == "simplex_extra_count":
        return _extra_count_mse(mech, budget, P, R, d, count_fraction, combine) / N**2
    return _count_baseline_mse(estimator, mech, budget, P, R, d, split, lower) / N**2


def _extra_count_mse(
    mech: str, budget: float, P: np.ndarray, R: float, d: int, count_fraction: float, combine: str
) -> np.ndarray:
    """S4 times n²: the simplex release with ``count_fraction`` of the budget on an extra count,
    the two counts combined by ``combine``."""
    cf = float(count_fraction)
    if not 0 < cf < 1:
        raise ValueError(f"count_fraction must be in (0, 1); got {count_fraction!r}.")
    v = _v(mech, R, budget * (1 - cf))
    v_w = _v(mech, 1.0, budget * cf)
    var_hat = (d + 1) * v / R**2
    w = (1 / var_hat) / (1 / var_hat + 1 / v_w)
    if combine == "blue":
        alpha = w * (1 / (d + 1) - P) - 1 / (d + 1)
        return (
            v * ((1 + alpha) ** 2 + d * alpha**2)
            + R**2 * (1 / (d + 1) - P) ** 2 * (1 - w) ** 2 * v_w
        )
    if combine == "paper":
        return v * ((1 - P * w) ** 2 + d * (P * w) ** 2) + (P * R) ** 2 * (1 - w) ** 2 * v_w
    raise ValueError(f"combine must be 'blue' or 'paper'; got {combine!r}.")


def _count_baseline_mse(
    estimator: str,
    mech: str,
    budget: float,
    P: np.ndarray,
    R: float,
    d: int,
    split: float,
    lower: float,
) -> np.ndarray:
    """B2 (``plugin``, ``plugin_oracle``, ``plugin_raw``, ``opendp``) and B3 (``centred``) times
    n²: a noisy sum over a noisy count, first order."""
    if estimator == "plugin":
        f = _fraction(split)
        return _v(mech, R, budget * f) + (P * R) ** 2 * _v(mech, 1.0, budget * (1 - f))
    if estimator == "plugin_oracle":
        a = _v(mech, R, budget)
        b = (P * R) ** 2 * _v(mech, 1.0, budget)
        return (
            (np.sqrt(a) + np.sqrt(b)) ** 2 if mech == "gaussian" else (np.cbrt(a) + np.cbrt(b)) ** 3
        )
    if estimator in ("plugin_raw", "opendp"):
        L = float(lower)
        if d != 1:
            raise ValueError("plugin_raw / opendp closed forms are for d = 1 only.")
        sens = max(abs(L), abs(L + R))
        if estimator == "opendp":
            f = sens / (sens + 1) if mech == "laplace" else sens**2 / (sens**2 + 1)
        else:
            f = _fraction(split)
        mu = L + P * R
        return _v(mech, sens, budget * f) + mu**2 * _v(mech, 1.0, budget * (1 - f))
    # centred (B3), d = 1
    f = _fraction(split)
    return _v(mech, R / 2, budget * f) + ((P - 0.5) * R) ** 2 * _v(mech, 1.0, budget * (1 - f))


def _fraction(split: float) -> float:
    f = float(split)
    if not 0 < f < 1:
        raise ValueError(f"split must be in (0, 1); got {split!r}.")
    return f


def coefficient(
    estimator: str,
    p: float | np.ndarray,
    *,
    mechanism: str,
    d: int = 1,
    neighbouring: str = "add-remove",
    split: float = 0.5,
    **kw: float | str,
) -> np.ndarray:
    """The spec §4 coefficient ``c``: ``MSE = c R²/(ρ N²)`` (Gaussian) or ``c R²/(ε² N²)`` (Laplace).

    Evaluated as ``mse(...)`` at ``R = N = 1`` and unit budget.
    """
    key = {"laplace": "epsilon", "gaussian": "rho"}.get(mechanism)
    if key is None:
        raise ValueError(f"mechanism must be 'laplace' or 'gaussian'; got {mechanism!r}.")
    return mse(
        estimator,
        p,
        n=1.0,
        radius=1.0,
        d=d,
        neighbouring=neighbouring,
        split=split,
        **{key: 1.0},  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def free_count_variance(
    *, radius: float, d: int = 1, epsilon: float | None = None, rho: float | None = None
) -> float:
    """``Var(N̂) = (d + 1) v / R²``: Gaussian ``(d + 1)/(2ρ)``, Laplace ``2(d + 1)/ε²`` (spec §2.3 S2)."""
    mech, budget = mechanism_of(epsilon, rho)
    R = check_positive(radius, "radius")
    return (d + 1) * _v(mech, R, budget) / R**2


def simplex_bias(
    p: float | np.ndarray,
    *,
    n: float,
    radius: float = 1.0,
    d: int = 1,
    epsilon: float | None = None,
    rho: float | None = None,
) -> np.ndarray:
    """Second-order bias of the free-count mean (spec §4): ``v ((d + 1) p - 1)/(R N²)``.

    For ``d = 1`` that is ``v (2p - 1)/(R N²)``, e.g. ``-0.01`` at ``p = 0``, ``R = N = 100``,
    ``ρ = 0.5``.
    """
    mech, budget = mechanism_of(epsilon, rho)
    R = check_positive(radius, "radius")
    v = _v(mech, R, budget)
    return v * ((d + 1) * np.asarray(p, float) - 1) / (R * float(n) ** 2)


def extra_count_weight(
    *, d: int = 1, epsilon: float | None = None, rho: float | None = None, count_fraction: float
) -> float:
    """S4 weight ``w`` on the free count: Gaussian ``ρ/(ρ + (d + 1) ρ')``, Laplace
    ``ε²/(ε² + (d + 1) ε'²)`` with the release getting ``1 - count_fraction`` of the budget."""
    mech, budget = mechanism_of(epsilon, rho)
    cf = float(count_fraction)
    if not 0 < cf < 1:
        raise ValueError(f"count_fraction must be in (0, 1); got {count_fraction!r}.")
    b, b2 = budget * (1 - cf), budget * cf
    if mech == "gaussian":
        return b / (b + (d + 1) * b2)
    return b**2 / (b**2 + (d + 1) * b2**2)
