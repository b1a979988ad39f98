"""Theory curves for the private modified winsorized mean (PMWM) family, in plottable form.

Everything here is non-private arithmetic on public quantities (n, the budget, the prior range,
an assumed sigma). The constants of the paper's bounds were lost with its formulas; the spec
reconstructs the rates, and plots built from these functions must say "up to constants".

References
----------
Ramsay, K. and Spicker, D. "Improved subsample-and-aggregate via the private modified winsorized
mean." arXiv 2501.14095 (v1), Theorem 3.1, Corollaries 3.7 and 5.1, Lemmas E.1 and G.1.
docs/estimators/winsorized.md §2.6 (premature stopping), §5 (theory in plottable form), §3 (k
guidance).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

from dpcore import quantiles
from dpcore._validation import check_positive, check_probability


def trim_level(n: int, c: float = 10.0, eta: float = 0.0) -> float:
    """The practical trim rule ``tau = min(max(c/n, eta), max(0.025, eta))``.

    ``c`` is the number of points to trim per side if there were no contamination, ``eta`` the
    largest expected fraction of contaminated points. With ``eta >= 0.025`` the rule gives
    ``tau = eta`` and ``c`` is irrelevant.

    Parameters
    ----------
    n : int
        Number of observations (public under replace-one adjacency).
    c : float
        Points to trim per side without contamination (> 0).
    eta : float
        Maximum expected contamination, in ``[0, 0.5)``.

    Returns
    -------
    float
        The trim level ``tau``.

    Examples
    --------
    >>> trim_level(50, 10, 0.0), trim_level(1000, 10, 0.0), trim_level(100, 5, 0.01)
    (0.025, 0.01, 0.025)

    References
    ----------
    docs/estimators/winsorized.md §2.2 (the authors' ``P_Trimed_Mean.py``), §9 property 7.
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}.")
    c = check_positive(c, "c")
    eta = float(eta)
    if not 0.0 <= eta < 0.5:
        raise ValueError(f"eta (maximum contamination fraction) must be in [0, 0.5); got {eta!r}.")
    return float(min(max(c / n, eta), max(0.025, eta)))


def premature_stop_probability(
    n: int,
    q: float,
    steps_below: float,
    *,
    epsilon_query: float | None = None,
    rho_query: float | None = None,
) -> float:
    """Approximate chance that one quantile walk stops *before reaching the data*.

    Below the data every grid count is 0, so the walk stops early when a query noise exceeds the
    target ``q n`` (plus the threshold noise, which is ignored here: for the pure version it is
    >= 0 and only delays the stop, so this is an upper-side approximation). Over ``steps_below``
    grid points,

    * pure (exponential noise, rate ``epsilon_query``): ``1 - exp(-K e^{-eps_Q q n})``;
    * zCDP (Gaussian noise, variance ``1/rho_query``): ``1 - (1 - Phi(-q n sqrt(rho_Q)))^K``.

    Parameters
    ----------
    n : int
        Number of observations.
    q : float
        Quantile target of the walk (``1 - tau`` for both ends of PMWM: the lower end walks the
        mirrored data).
    steps_below : float
        Grid points between the start bound and the data, ``log_beta(distance + 1)``.
    epsilon_query, rho_query : float
        The query-noise budget of this one walk (exactly one of them).

    References
    ----------
    docs/estimators/winsorized.md §2.6 "Premature stopping" and §5 (quantile accuracy, Lemma E.1).
    """
    if (epsilon_query is None) == (rho_query is None):
        raise ValueError("pass exactly one of epsilon_query (pure) or rho_query (zCDP).")
    target = float(q) * float(n)
    k = max(float(steps_below), 0.0)
    if epsilon_query is not None:  # the pure case is dpcore.quantiles.unbounded.premature_stop_risk
        return float(
            quantiles.premature_stop_risk(n, max(float(q), 1.0 - float(q)), epsilon_query, k)
        )
    r = check_positive(rho_query, "rho_query")
    tail = float(stats.norm.sf(target * math.sqrt(r)))
    return float(-math.expm1(k * math.log1p(-tail))) if tail < 1 else 1.0


def premature_stop_warning(
    n: int,
    tau: float,
    lower: float | np.ndarray,
    upper: float | np.ndarray,
    beta: float,
    *,
    epsilon_query: float | None = None,
    rho_query: float | None = None,
) -> bool | np.ndarray:
    """The app's warning rule: True when a walk that has to cross the whole range would stop early
    with probability above about ``e^{-3}`` (5%).

    Pure: ``eps_Q (1 - tau) n < log K + 3``; zCDP: ``rho_Q ((1 - tau) n)^2 / 2 < log K + 3``, with
    ``K = dpcore.quantiles.unbounded.grid_size((lower, upper), beta)``
    (docs/estimators/winsorized.md §2.6, "the app must warn"). The pure rule is exactly
    :func:`dpcore.quantiles.premature_stop_risk` (the probability, the one
    function of that name) above ``1 - exp(-e^{-3})`` ≈ 4.9% with ``K`` the whole grid; the zCDP rule
    is the same threshold on the Chernoff bound ``K exp(-ρ_Q t²/2)`` of the Gaussian tail.

    ``lower`` and ``upper`` may be per-coordinate arrays (one answer per coordinate, in one call).

    References
    ----------
    docs/estimators/winsorized.md §2.6 ("Premature stopping": the app must warn).
    """
    if (epsilon_query is None) == (rho_query is None):
        raise ValueError("pass exactly one of epsilon_query (pure) or rho_query (zCDP).")
    log_k = np.log(np.asarray(quantiles.grid_size((lower, upper), beta), dtype=float))
    target = (1.0 - float(tau)) * float(n)
    if epsilon_query is not None:
        risky = float(epsilon_query) * target < log_k + 3.0
    else:
        assert rho_query is not None
        risky = float(rho_query) * target**2 / 2.0 < log_k + 3.0
    return bool(risky) if np.ndim(risky) == 0 else np.asarray(risky, dtype=bool)


class ErrorBound(NamedTuple):
    """The three terms of the PMWM deviation bound (C = 1, "up to constants") and their sum."""

    contamination: np.ndarray
    sampling: np.ndarray
    privacy: np.ndarray
    total: np.ndarray


def pmwm_error_bound(
    n: np.ndarray | float,
    sigma: float = 1.0,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    eta: float = 0.0,
    delta: float = 0.1,
    constant: float = 1.0,
) -> ErrorBound:
    """Theorem 3.1 (reconstructed): with probability >= 1 - delta - p_q,

    ``|mu~ - mu| <= C sigma [ sqrt(eta) + sqrt(log(1/delta)/n) + sqrt(log(1/delta)/(eps n)) ]``,

    the privacy term being ``(log(1/delta)/rho)^{1/4} / sqrt(n)`` under zCDP.

    Parameters
    ----------
    n : float or array
        Sample sizes.
    sigma : float
        Standard deviation of the clean distribution.
    epsilon, rho : float
        Budget (exactly one).
    eta : float
        Contamination fraction.
    delta : float
        Failure probability of the bound.
    constant : float
        The unknown constant C (1 for plots; label them "up to constants").

    References
    ----------
    Ramsay & Spicker (2025) Theorem 3.1; docs/estimators/winsorized.md §5.
    """
    if (epsilon is None) == (rho is None):
        raise ValueError("pass exactly one of epsilon (pure) or rho (zCDP).")
    nn = np.asarray(n, dtype=float)
    if np.any(nn <= 0):
        raise ValueError("n must be positive.")
    log_d = math.log(1.0 / check_probability(delta, "delta"))
    s = constant * check_positive(sigma, "sigma")
    cont = np.full_like(nn, s * math.sqrt(max(float(eta), 0.0)))
    samp = s * np.sqrt(log_d / nn)
    if epsilon is not None:
        priv = s * np.sqrt(log_d / (check_positive(epsilon, "epsilon") * nn))
    else:
        priv = s * (log_d / check_positive(rho, "rho")) ** 0.25 / np.sqrt(nn)
    return ErrorBound(cont, samp, priv, cont + samp + priv)


def winsorized_exp_limit(tau: float | np.ndarray) -> np.ndarray | float:
    """Lemma G.1 (exact): the population winsorised mean of Exp(1) at level tau,
    ``1 - 2 tau - ln(1 - tau)`` (not 1, so fixed-tau winsorising is inconsistent for skewed data).

    Proof: with ``L = -ln(1-tau)``, ``U = -ln(tau)``, ``E clip(X, L, U) = L + e^{-L} - e^{-U}``.
    """
    t = np.asarray(tau, dtype=float)
    if np.any((t < 0) | (t >= 0.5)):
        raise ValueError("tau must be in [0, 0.5).")
    out = 1.0 - 2.0 * t - np.log1p(-t)
    return float(out) if out.ndim == 0 else out


def trimmed_interval(x: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """The NON-PRIVATE empirical ``tau`` and ``1 - tau`` quantiles per column: what PMWM's private
    interval aims at. For teaching pictures only; releasing them is not private."""
    arr = np.asarray(x, dtype=float)
    arr = arr.reshape(arr.shape[0], -1)
    return np.quantile(arr, tau, axis=0), np.quantile(arr, 1.0 - tau, axis=0)


__all__ = [
    "ErrorBound",
    "pmwm_error_bound",
    "premature_stop_probability",
    "premature_stop_warning",
    "trim_level",
    "trimmed_interval",
    "winsorized_exp_limit",
]
