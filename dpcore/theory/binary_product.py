"""Binary product distributions: closed forms only: the reference curves (TV error against n, d, eps)
of docs/estimators/binary-product.md §4, the Hellinger bounds on product TV and the separation rule.
The profiles and the sampler are in :mod:`dpcore.data.binary`; the exact/Monte Carlo TV is the study
:func:`dpcore.experiments.studies.product_tv`.

Everything here is public-parameter arithmetic; nothing is private.

Total variation between product distributions ``P = ⊗ Ber(p_j)`` and ``Q = ⊗ Ber(q_j)`` is not
``½‖p − q‖₁`` (that is :func:`dpcore.metrics.tv_error`, an upper bound up to a factor 2); the spec
(§1, "Computing TV in the app") asks for the exact value, by enumeration for ``d <= 16`` and by an
unbiased Monte Carlo estimate otherwise. :func:`dpcore.experiments.studies.product_tv` does both.

References
----------
V. Singhal, "A Polynomial Time, Pure Differentially Private Estimator for Binary Product
Distributions", arXiv:2304.06787v4, §2.1, Theorem 3.1; docs/estimators/binary-product.md §1, §4, §5.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from dpcore._validation import check_positive, check_probability
from dpcore.data.binary import _check_d

# --------------------------------------------------------------------------------------------
# total variation


def _check_pq(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    pv = np.atleast_1d(np.asarray(p, dtype=float))
    qv = np.atleast_1d(np.asarray(q, dtype=float))
    if pv.shape != qv.shape or pv.ndim != 1:
        raise ValueError(
            f"p and q must be 1-D arrays of the same length; got {pv.shape} and {qv.shape}."
        )
    for name, v in (("p", pv), ("q", qv)):
        if not np.all(np.isfinite(v)) or np.any((v < 0) | (v > 1)):
            raise ValueError(f"{name} must hold probabilities in [0, 1]; clip the estimate first.")
    return pv, qv


def hellinger_tv_bounds(p: Any, q: Any) -> tuple[float, float]:
    """``(1 − BC, sqrt(1 − BC²))`` with the Bhattacharyya coefficient
    ``BC = Π_j (sqrt(p_j q_j) + sqrt((1−p_j)(1−q_j)))``: lower and upper bounds on the product TV.

    References
    ----------
    docs/estimators/binary-product.md §1 (Hellinger bounds) and §7 E10.
    """
    pv, qv = _check_pq(p, q)
    terms = np.sqrt(pv * qv) + np.sqrt((1 - pv) * (1 - qv))
    with np.errstate(divide="ignore"):
        log_bc = np.log(np.clip(terms, 0.0, 1.0)).sum()
    bc = float(np.exp(log_bc))
    return 1.0 - bc, math.sqrt(max(0.0, 1.0 - bc * bc))


# --------------------------------------------------------------------------------------------
# reference curves (§4): TV error alpha as a function of n, for given d, eps, beta


def _arr(n: Any) -> np.ndarray:
    return np.asarray(n, dtype=float)


def theorem_3_1(n: Any, d: int, epsilon: float, beta: float = 0.1) -> np.ndarray:
    """Curve 2, Theorem 3.1 with its logs and hidden constants set to 1, solved for alpha:
    ``alpha = (B' + sqrt(B'^2 + 4 n A)) / (2n)`` with ``A = d ln²(d/β)``, ``B' = d ln²(d/(εβ))/ε``."""
    nv = _arr(n)
    A = d * math.log(d / beta) ** 2
    Bp = d * math.log(max(d / (epsilon * beta), math.e)) ** 2 / epsilon
    return (Bp + np.sqrt(Bp**2 + 4 * nv * A)) / (2 * nv)


def paper_sample_size(
    d: int, alpha: float, epsilon: float, beta: float = 0.1, c_alpha: float = 1.0
) -> float:
    """Curve 3's ingredient: the paper's explicit sufficient size ``R m + m0 + m1`` (Algorithm 1,
    step 1; ``C_alpha = 1``), reconstructed in docs/estimators/binary-product.md §2.2."""
    R = max(0, math.ceil(math.log2(d)) - 1)
    lg = math.log
    m = 2048 * d * lg(d / beta) + 2048 * d * lg(d / (epsilon * beta)) / epsilon
    m0 = c_alpha * (
        (d + lg(1 / beta)) / alpha**2 + (d + lg(1 / beta)) / (alpha * epsilon) + d * lg(d) / epsilon
    )
    m1 = 128 * d * lg(d / beta) / alpha**2 + 256 * d * lg(d / (epsilon * alpha * beta)) / (
        epsilon * alpha
    )
    return float(R * m + m0 + m1)


def nonprivate_dense(n: Any, d: int) -> np.ndarray:
    """Curve 4b: ``0.4 sqrt(d/n)``, the dense-regime approximation."""
    return 0.4 * np.sqrt(d / _arr(n))


def naive_sparse(n: Any, d: int, epsilon: float) -> np.ndarray:
    """Curve 5a: naive Laplace on tiny p, ``d²/(2 eps n)`` (each coordinate costs about b/2)."""
    return d**2 / (2 * epsilon * _arr(n))


def naive_dense(n: Any, d: int, epsilon: float) -> np.ndarray:
    """Curve 5b: naive Laplace at p ≡ ½, ``2Φ(D/2) − 1`` with ``D² = d/n + 8d³/(eps² n²)``."""
    nv = _arr(n)
    D = np.sqrt(d / nv + 8 * d**3 / (epsilon**2 * nv**2))
    return 2 * stats.norm.cdf(D / 2) - 1


def check_curve_args(d: int, epsilon: float, beta: float) -> tuple[int, float, float]:
    """Validate the public arguments of the curves."""
    return _check_d(d), check_positive(epsilon, "epsilon"), check_probability(beta, "beta")


#: Failure probability β in the sorting analysis's separation target 16 ln(dR/β) (Singhal §3).
SEPARATION_BETA = 0.1


#: Below this separation τᵣ/b many tiny pⱼ get promoted by noise alone (a practical warning level).
SEPARATION_WARN = 3.0


def separation_light(
    separation: Any, d: int, rounds: int, beta: float = SEPARATION_BETA
) -> np.ndarray:
    """Traffic light for a sorting round's separation τᵣ/b (threshold over Laplace scale).

    ``"green"`` when the separation exceeds the analysis's target ``16 ln(d R / β)`` (R = number of
    rounds, at least 1), ``"amber"`` when it exceeds :data:`SEPARATION_WARN` (= 3), else ``"red"``.

    References
    ----------
    V. Singhal, arXiv:2304.06787v4, §3 (the sorting step's union bound over d coordinates and R rounds);
    docs/estimators/binary-product.md §6.
    """
    d, _, beta = check_curve_args(d, 1.0, beta)
    target = 16.0 * math.log(d * max(int(rounds), 1) / beta)
    sep = np.asarray(separation, dtype=float)
    return np.where(sep > target, "green", np.where(sep > SEPARATION_WARN, "amber", "red"))
