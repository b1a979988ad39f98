"""Reference curves for PLAN and its baselines, and the optimal-scaling result of Appendix C.

Idealised noise errors (docs/estimators/plan.md §6, "Idealised curves for the app"): with
``sigma^ = sigma`` and a clip radius equal to ``margin`` times the typical scaled norm, the noise
of each estimator in ``(E ||noise||_p^p)^(1/p)`` is

* PLAN:               ``c G_p sqrt(2/rho) ||sigma||_{q*} / n``, ``q* = 2p/(p+2)`` (``||sigma||_1`` for p=2)
* Gaussian mechanism: ``c G_p sqrt(2/rho) d^(1/p) ||sigma||_2 / n``
* equal split:        ``c G_p sqrt(2/rho) sqrt(d) ||sigma||_p / n``
* sampling (non-private floor): ``G_p ||sigma||_p / sqrt(n)``  (``||sigma||_2 / sqrt(n)`` for p=2)

with ``G_p = (2^(p/2) Gamma((p+1)/2) / sqrt(pi))^(1/p)`` (``G_1 = sqrt(2/pi)``, ``G_2 = 1``) and
``rho`` the budget of the noise release (``rho_3``). Derivation: PLAN's radius is
``C = c ||sigma||_{q*}^{q*/2}``, the scaled-space noise std ``sqrt(2 C^2 / rho)``, and coordinate ``i``
of the output carries ``sqrt(2C^2/rho) sigma_i^{2/(p+2)} / n``; summing ``E|.|^p`` gives
``||sigma^{2/(p+2)}||_p^p C^p = ||sigma||_{q*}^{q*}·||sigma||_{q*}^{p q*/2}`` = ``||sigma||_{q*}^p``.
The Theorem curves carry unknown constants and log factors: plot these as shapes, not values.

Appendix C (exact): releasing ``d`` queries with sensitivities ``Delta_i`` as ``x / s`` (divided by
``s``) with ``N(0, Delta_bar^2/(2 rho) I)``, ``Delta_bar^2 = sum_i Delta_i^2 / s_i^2``, and multiplying
back by ``s`` gives ``E ||noise||_p^p = Gamma((p+1)/2) / (rho^(p/2) sqrt(pi)) Delta_bar^p sum_i s_i^p``,
minimised (uniquely up to scale) at ``s_i ∝ Delta_i^{2/(p+2)}`` with the value
``Gamma((p+1)/2) / (rho^(p/2) sqrt(pi)) ||Delta||_{2p/(p+2)}^p``. (PLAN *multiplies* by its scale
vector, so PLAN's ``s_i = sigma_i^{-2/(p+2)}`` is the reciprocal of this divisor.)

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Theorems 1.1, 4.3, 4.5 and Appendix C;
docs/estimators/plan.md §6, §8 (Figure 6 numbers), §9.10, §10.12–10.13.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpcore._validation import check_positive


def _vec(a: Any, name: str) -> np.ndarray:
    v = np.atleast_1d(np.asarray(a, dtype=float))
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"{name} must be a non-empty 1-D array of finite numbers >= 0.")
    return v


def lp_norm(v: Any, q: float) -> float:
    """``(sum |v_i|^q)^(1/q)`` for any ``q > 0`` (a quasi-norm for ``q < 1``)."""
    a = np.abs(np.asarray(v, dtype=float))
    q = check_positive(q, "q")
    return float(np.sum(a**q) ** (1.0 / q))


def gaussian_moment_constant(p: float) -> float:
    """``G_p = (E|Z|^p)^(1/p) = (2^(p/2) Gamma((p+1)/2) / sqrt(pi))^(1/p)`` for ``Z ~ N(0, 1)``."""
    p = check_positive(p, "p")
    return float(
        (2.0 ** (p / 2.0) * special.gamma((p + 1.0) / 2.0) / math.sqrt(math.pi)) ** (1.0 / p)
    )


def plan_exponent_norm(p: float) -> float:
    """``q* = 2p/(p+2)``: PLAN's noise scales with ``||sigma||_{q*}`` (1 for p=2, 2/3 for p=1)."""
    p = check_positive(p, "p")
    return 2.0 * p / (p + 2.0)


def plan_noise_error(sigma: Any, n: int, rho: float, p: float = 2.0, margin: float = 1.0) -> float:
    """PLAN's idealised noise error ``c G_p sqrt(2/rho) ||sigma||_{2p/(p+2)} / n`` (``rho`` = noise budget)."""
    s = _vec(sigma, "sigma")
    return (
        check_positive(margin, "margin")
        * gaussian_moment_constant(p)
        * math.sqrt(2.0 / check_positive(rho, "rho"))
        * lp_norm(s, plan_exponent_norm(p))
        / check_positive(n, "n")
    )


def gaussian_mechanism_noise_error(
    sigma: Any, n: int, rho: float, p: float = 2.0, margin: float = 1.0
) -> float:
    """Gaussian mechanism with ``C = c ||sigma||_2``: ``c G_p sqrt(2/rho) d^(1/p) ||sigma||_2 / n``
    (the ``1/n`` the paper drops after Theorem 4.5 restored, §10.12)."""
    s = _vec(sigma, "sigma")
    p = check_positive(p, "p")
    return (
        check_positive(margin, "margin")
        * gaussian_moment_constant(p)
        * math.sqrt(2.0 / check_positive(rho, "rho"))
        * s.size ** (1.0 / p)
        * lp_norm(s, 2.0)
        / check_positive(n, "n")
    )


def equal_split_noise_error(
    sigma: Any, n: int, rho: float, p: float = 2.0, margin: float = 1.0
) -> float:
    """Equal split (``s = 1/sigma``, ``C = c sqrt(d)``): ``c G_p sqrt(2/rho) sqrt(d) ||sigma||_p / n``."""
    s = _vec(sigma, "sigma")
    return (
        check_positive(margin, "margin")
        * gaussian_moment_constant(p)
        * math.sqrt(2.0 / check_positive(rho, "rho"))
        * math.sqrt(s.size)
        * lp_norm(s, p)
        / check_positive(n, "n")
    )


def sampling_error(sigma: Any, n: int, p: float = 2.0) -> float:
    """The non-private floor ``(E ||xbar - mu||_p^p)^(1/p) ≈ G_p ||sigma||_p / sqrt(n)``
    (Gaussian approximation; ``||sigma||_2 / sqrt(n)`` for p=2)."""
    s = _vec(sigma, "sigma")
    return gaussian_moment_constant(p) * lp_norm(s, p) / math.sqrt(check_positive(n, "n"))


def reference_curves(
    sigma: Any, n: int, rho: float, p: float = 2.0, margin: float = 1.0
) -> dict[str, float]:
    """All four reference errors of docs/estimators/plan.md §6 (``rho`` = the noise budget
    ``rho_3``)."""
    return {
        "plan": plan_noise_error(sigma, n, rho, p, margin),
        "gaussian_mechanism": gaussian_mechanism_noise_error(sigma, n, rho, p, margin),
        "equal_split": equal_split_noise_error(sigma, n, rho, p, margin),
        "sampling": sampling_error(sigma, n, p),
    }


# ----------------------------------------------------------------------------------------------
# Appendix C: optimal scaling
# ----------------------------------------------------------------------------------------------


def _moment_factor(rho: float, p: float) -> float:
    return float(
        special.gamma((p + 1.0) / 2.0)
        / (check_positive(rho, "rho") ** (p / 2.0) * math.sqrt(math.pi))
    )


def expected_scaled_noise_pp(delta: Any, s: Any, rho: float, p: float = 2.0) -> float:
    """``E ||noise||_p^p = Gamma((p+1)/2) / (rho^(p/2) sqrt(pi)) Delta_bar^p sum_i s_i^p`` with
    ``Delta_bar^2 = sum_i Delta_i^2 / s_i^2`` (Appendix C; ``s`` divides the queries)."""
    dl = _vec(delta, "delta")
    sv = _vec(s, "s")
    if sv.size != dl.size or np.any(sv <= 0):
        raise ValueError("s must be positive and have one entry per query (same length as delta).")
    p = check_positive(p, "p")
    dbar = math.sqrt(float(np.sum(dl**2 / sv**2)))
    return _moment_factor(rho, p) * dbar**p * float(np.sum(sv**p))


def noise_std_per_coordinate(delta: Any, s: Any, rho: float) -> np.ndarray:
    """Per-query noise std ``s_i Delta_bar / sqrt(2 rho)`` of the Appendix C release."""
    dl = _vec(delta, "delta")
    sv = _vec(s, "s")
    dbar = math.sqrt(float(np.sum(dl**2 / sv**2)))
    return sv * dbar / math.sqrt(2.0 * check_positive(rho, "rho"))


def optimal_scaling(delta: Any, p: float = 2.0) -> np.ndarray:
    """The minimiser ``s_i ∝ Delta_i^{2/(p+2)}``, normalised so that ``Delta_bar = 1``."""
    dl = _vec(delta, "delta")
    if np.any(dl <= 0):
        raise ValueError("delta must be positive for the optimal scaling.")
    s = dl ** (2.0 / (check_positive(p, "p") + 2.0))
    return s * math.sqrt(float(np.sum(dl**2 / s**2)))


def optimal_scaled_noise_pp(delta: Any, rho: float, p: float = 2.0) -> float:
    """The minimum ``Gamma((p+1)/2) / (rho^(p/2) sqrt(pi)) ||Delta||_{2p/(p+2)}^p`` (Appendix C)."""
    dl = _vec(delta, "delta")
    p = check_positive(p, "p")
    return _moment_factor(rho, p) * lp_norm(dl, 2.0 * p / (p + 2.0)) ** p


def figure6_stds(delta: Any = (4.0, 1.0)) -> dict[str, np.ndarray]:
    """Figure 6 of the paper: noise stds, in units of ``1/sqrt(2 rho)``, of two queries with
    sensitivities ``delta`` under no scaling, the equal split and the p=1 / p=2 optima.

    For ``delta = (4, 1)``: no scaling (4.12, 4.12); equal split (5.66, 1.41); p=1 (4.73, 1.88);
    p=2 (4.47, 2.24) (docs/estimators/plan.md §8 (iii)).
    """
    dl = _vec(delta, "delta")
    unit = 0.5  # rho = 1/2 makes 1/sqrt(2 rho) = 1
    return {
        "no scaling": noise_std_per_coordinate(dl, np.ones_like(dl), unit),
        "equal split": noise_std_per_coordinate(dl, dl, unit),
        "optimal p=1": noise_std_per_coordinate(dl, optimal_scaling(dl, 1.0), unit),
        "optimal p=2": noise_std_per_coordinate(dl, optimal_scaling(dl, 2.0), unit),
    }
