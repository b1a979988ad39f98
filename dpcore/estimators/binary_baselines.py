"""Baselines for binary product distributions (docs/estimators/binary-product.md §3).

* **B1 naive Laplace** (:func:`naive_laplace`, pure ε-DP): ``q = clip(x̄ + Lap(d/(nε))^d, 0, 1)``.
  Substitution changes a binary row by at most ``d`` in ℓ1, so the mean has ℓ1 sensitivity ``d/n``
  (spending ε/d per coordinate at sensitivity 1/n gives the identical scale).
* **B2 one-shot truncated ("clipped") Laplace** (:func:`truncated_laplace`, pure ε-DP): a private
  row-weight estimate on 10% of the rows sets one ℓ1 clip radius for all coordinates; the truncated
  mean of the other rows gets ``Lap(min(2B, d)/(m_B ε))``. Works for sparse p; fails for skewed p,
  because one heavy coordinate inflates the noise on every light one.
* **B3 KLSU-style, ρ-zCDP** (:func:`klsu_style_zcdp`): the §2.4 pipeline with Gaussian noise —
  *not the exact KLSU19 algorithm* — with ℓ2 sensitivities ``sqrt(2 min(B, k))/m`` (truncated
  mean) and ``sqrt(2 min(C², Σ 1/u_j))/m0`` (ℓ2-clipped rescaled heavy rows). Compare at
  ``ρ = ε²/2`` (pure ε-DP implies ε²/2-zCDP): it reaches the optimal heavy term, which is why pure DP
  is the hard case.

All use the substitution neighbouring relation with ``n`` public; the two-stage ones put their
stages on disjoint rows (parallel composition; the ledger charges the budget once and lists each
stage at 0 extra with its sensitivity and scale). Error metric: total variation between product
distributions (:func:`dpcore.experiments.studies.product_tv`).

References
----------
Singhal, arXiv:2304.06787v4, §1 (naive approach); Kamath, Li, Singhal, Ullman, "Privately Learning
High-Dimensional Distributions", COLT 2019; docs/estimators/binary-product.md §3 (B1, B2, B3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from scipy import sparse

from dpcore import mechanisms
from dpcore._validation import RngLike, check_flag, check_positive, check_probability
from dpcore.estimate import Cost, Default, Diagnostics, Estimate
from dpcore.estimators._options import EstimatorOptions
from dpcore.estimators.binary_product import (
    BINARY,
    PdeOptions,
    check_binary,
    chernoff_radius,
    tmean_l1_sensitivity,
)
from dpcore.privacy import Ledger


@dataclass(kw_only=True)
class BinaryBaselineDiagnostics(Diagnostics):
    """The binary baselines' specifics (spec §3); the truncated Laplace mean fills the optional fields.

    Attributes
    ----------
    scale : float
        Laplace scale of each coordinate's noise.
    unclipped : array (d,)
        The estimate before clipping to [0, 1].
    weight_estimate, weight_upper, radius : float or None
        Truncated Laplace: the private row weight, its upper confidence bound and the truncation radius B.
    rows : dict or None
        Truncated Laplace: rows spent on the weight and on the mean.
    """

    scale: float  # type: ignore[assignment]  # the Laplace scale here, not the base class per-coordinate scale
    unclipped: np.ndarray
    weight_estimate: float | None = None
    weight_upper: float | None = None
    radius: float | None = None
    rows: dict[str, int] | None = None


def _row_weights(X: Any) -> np.ndarray:
    """Each row's weight (number of ones) as floats. A checked sparse matrix stores only its ones,
    so the weights are the row lengths of its CSR index."""
    if sparse.issparse(X):
        return np.diff(X.indptr).astype(float)
    return np.asarray(X.sum(axis=1), dtype=float).ravel()


def _column_means(X: Any) -> np.ndarray:
    """``X.mean(axis=0)`` as a flat array. scipy scales every stored value by ``1/n`` and adds
    them into their columns in row order; a checked sparse matrix stores only ones, so column
    ``j`` is ``k_j`` additions of the same ``1/n`` and its mean depends on its count ``k_j``
    alone: the ``k_j``-th partial sum of ``1/n, 1/n, ...`` (``numpy.cumsum`` adds in order), the
    same float, read off one table instead of a scaled copy of the matrix and its product."""
    if not sparse.issparse(X) or X.nnz == 0:
        return np.asarray(X.mean(axis=0)).ravel()
    counts = np.bincount(X.indices, minlength=X.shape[1])
    sums = np.cumsum(np.full(int(counts.max()), 1.0 / X.shape[0]))
    return np.where(counts > 0, sums[np.maximum(counts, 1) - 1], 0.0)


def _weighted_colsum(
    X: Any, rows: np.ndarray, factor: np.ndarray, any_truncated: bool
) -> np.ndarray:
    """``Σ_i factor_i X[rows_i]``, summed over ``rows`` in their order (as ``X[rows].T @ factor``).

    When no row was truncated every factor is 1 and the column sums are whole numbers, exact in
    any order: one pass over ``X`` with a 0/1 row mask gives the identical floats without copying
    the rows. Otherwise the rows are gathered so the sum runs in ``rows`` order (bit for bit as
    before)."""
    if any_truncated:
        return np.asarray(X[rows].T @ factor).ravel()
    mask = np.zeros(X.shape[0])
    mask[rows] = 1.0
    return np.asarray(X.T @ mask).ravel()


def naive_scale(n: int, d: int, epsilon: float) -> float:
    """Laplace scale of the naive estimator: ``d/(nε)`` (spec §7 E9)."""
    return d / (n * check_positive(epsilon, "epsilon"))


@dataclass(frozen=True, kw_only=True)
class NaiveLaplaceOptions(EstimatorOptions):
    """B1: coordinate-wise Laplace on the empirical mean, pure ε-DP (substitution, n public).

    Parameters
    ----------
    x : array or scipy.sparse matrix, shape (n, d), entries 0/1
    epsilon : float
        Pure-DP budget, all on one release.
    rng : None, int or Generator
    clip : bool
        Clip to [0, 1] (post-processing).

    Returns
    -------
    Estimate
        ``diagnostics.noise_std = √2 d/(nε)`` in every coordinate.

    References
    ----------
    docs/estimators/binary-product.md §3 B1; Dwork et al. 2006 (Laplace mechanism).
    """

    clip: bool = True
    name: str = field(default="naive_laplace", compare=False)

    notion: ClassVar[str] = "pure"
    takes_bounds: ClassVar[bool] = False

    def run(self, x: Any, *, rng: RngLike, epsilon: float) -> Estimate:
        """The estimator with these options."""
        return _naive_laplace(x, epsilon=epsilon, rng=rng, clip=self.clip)


naive_laplace = NaiveLaplaceOptions()


def _naive_laplace(x: Any, *, epsilon: float, rng: RngLike = None, clip: bool = True) -> Estimate:
    """The body of :class:`NaiveLaplaceOptions`."""
    X = check_binary(x)
    n, d = X.shape
    epsilon = check_positive(epsilon, "epsilon")
    clip = check_flag(clip, "clip")
    xbar = _column_means(X)
    sens = d / n  # substitution: a binary row moves by at most d in ℓ1
    b = mechanisms.laplace_scale(sens, epsilon)
    ledger = Ledger("pure")
    with mechanisms.stage(ledger, "noisy mean"):
        rel = mechanisms.laplace(
            xbar,
            sens,
            epsilon,
            rng=mechanisms.generator(rng),
            scale=b,
            note=f"Laplace, ℓ1 sensitivity d/n = {sens:.4g}, b = {b:.4g}",
        )
    q = np.asarray(rel.value)
    unclipped = q.copy()
    if clip:
        q = np.clip(q, 0.0, 1.0)
    diag = BinaryBaselineDiagnostics(
        noiseless_mean=xbar,
        noise_std=np.full(d, math.sqrt(2.0) * rel.scale),
        scale=rel.scale,
        unclipped=unclipped,
    )
    return Estimate(mean=q, ledger=ledger, diagnostics=diag)


def _two_releases(
    X: Any,
    weight: np.ndarray,
    perm: np.ndarray,
    mA: int,
    epsilon: float,
    beta: float,
    ledger: Ledger,
    g: Any,
) -> tuple[float, float, float, np.ndarray, np.ndarray, Any]:
    """B2's two releases, each ε-DP on its own rows (``perm[:mA]`` and the rest), in stages "row
    weight" and "truncated mean": the noisy row weight and its upper bound, the clip radius, the
    truncated rows, the truncated mean and its release."""
    n, d = X.shape
    mB = n - mA
    w_bar = float(weight[perm[:mA]].mean())
    sA = d / mA
    bA = mechanisms.laplace_scale(sA, epsilon)
    with mechanisms.stage(
        ledger, "row weight", f"ε = {epsilon:g} on {mA} rows (adds 0: parallel composition)"
    ):
        w_hat = float(
            mechanisms.laplace(
                w_bar,
                sA,
                epsilon,
                rng=g,
                scale=bA,
                note=f"Laplace, ℓ1 sensitivity d/m_A = {sA:.4g}, b = {sA / epsilon:.4g}",
            ).value
        )
    L1 = math.log(1.0 / beta)
    w_plus = max(w_hat, 0.0) + sA / epsilon * L1 + math.sqrt(2.0 * max(w_hat, 1.0) * L1 / mA)
    B = chernoff_radius(w_plus, math.log(mB / beta))
    weights = weight[perm[mA:]]
    hit = weights > B
    factor = np.where(hit, B / np.maximum(weights, 1e-300), 1.0)
    tmean = _weighted_colsum(X, perm[mA:], factor, bool(hit.any())) / mB
    sB = tmean_l1_sensitivity(B, d, mB)
    bB = mechanisms.laplace_scale(sB, epsilon)
    with mechanisms.stage(
        ledger, "truncated mean", f"ε = {epsilon:g} on {mB} rows (adds 0: parallel composition)"
    ):
        rel = mechanisms.laplace(
            tmean,
            sB,
            epsilon,
            rng=g,
            scale=bB,
            note=f"Laplace, ℓ1 sensitivity min(2B, d)/m_B = {sB:.4g}, b = {bB:.4g}",
        )
    return w_hat, w_plus, B, hit, tmean, rel


@dataclass(frozen=True, kw_only=True)
class TruncatedLaplaceOptions(EstimatorOptions):
    """B2: one-shot ℓ1-truncated mean with Laplace noise, pure ε-DP (substitution, n public).

    1. On ``m_A = ⌊0.1 n⌋`` rows: ``Ŵ = mean row weight + Lap(d/(m_A ε))`` (sensitivity d/m_A).
    2. ``W⁺ = max(Ŵ, 0) + d ln(1/β)/(m_A ε) + sqrt(2 max(Ŵ, 1) ln(1/β)/m_A)`` (public after step 1).
    3. On the other ``m_B`` rows: ``B = chern(W⁺, ln(m_B/β))``,
       ``q = tmean_B + Lap(min(2B, d)/(m_B ε))``.

    The two releases read disjoint rows, so each spends the full ε (parallel composition).

    References
    ----------
    docs/estimators/binary-product.md §3 B2 (ours, isolates "clipping" from "bucketing").
    """

    beta: float = 0.1
    weight_fraction: float = 0.10
    clip: bool = True
    name: str = field(default="truncated_laplace", compare=False)

    notion: ClassVar[str] = "pure"
    takes_bounds: ClassVar[bool] = False

    def run(self, x: Any, *, rng: RngLike, epsilon: float) -> Estimate:
        """The estimator with these options."""
        return _truncated_laplace(
            x,
            epsilon=epsilon,
            rng=rng,
            beta=self.beta,
            weight_fraction=self.weight_fraction,
            clip=self.clip,
        )


truncated_laplace = TruncatedLaplaceOptions()


def _truncated_laplace(
    x: Any,
    *,
    epsilon: float,
    rng: RngLike = None,
    beta: float = 0.1,
    weight_fraction: float = 0.10,
    clip: bool = True,
) -> Estimate:
    """The body of :class:`TruncatedLaplaceOptions`."""
    X = check_binary(x)
    n, d = X.shape
    epsilon = check_positive(epsilon, "epsilon")
    clip = check_flag(clip, "clip")
    beta = check_probability(beta, "beta")
    weight_fraction = check_probability(weight_fraction, "weight_fraction")
    mA = int(math.floor(weight_fraction * n))
    mB = n - mA
    if mA < 1 or mB < 1:
        raise ValueError(
            f"n = {n} is too small: the weight step needs {weight_fraction:.0%} of the rows "
            "and the mean the rest; use n >= 20."
        )
    g = mechanisms.generator(rng)
    perm = g.permutation(
        n
    )  # data-independent split: rows perm[:mA] for the weight, the rest for the mean
    weight = _row_weights(X)
    ledger = Ledger("pure")
    with mechanisms.parallel(
        ledger,
        "parallel composition",
        "the weight step and the mean read disjoint rows; each is ε-DP on its own rows",
    ):
        w_hat, w_plus, B, hit, tmean, rel = _two_releases(
            X, weight, perm, mA, epsilon, beta, ledger, g
        )
    q = np.asarray(rel.value)
    unclipped = q.copy()
    if clip:
        q = np.clip(q, 0.0, 1.0)
    clipped_rows = np.zeros(n, dtype=bool)
    clipped_rows[perm[mA:]] = hit
    diag = BinaryBaselineDiagnostics(
        noiseless_mean=tmean,
        clip_radius=B,
        clipped=clipped_rows,
        noise_std=np.full(d, math.sqrt(2.0) * rel.scale),
        scale=rel.scale,
        unclipped=unclipped,
        weight_estimate=w_hat,
        weight_upper=w_plus,
        radius=B,
        rows={"weight": mA, "mean": mB},
    )
    return Estimate(mean=q, ledger=ledger, diagnostics=diag)


#: B3: the §2.4 pipeline with Gaussian noise, ρ-zCDP (KLSU-style, **not the exact KLSU19
#: algorithm**; :class:`~dpcore.estimators.binary_product.PdeOptions`). Stages on disjoint rows: ρ is
#: not split (parallel composition). Kamath, Li, Singhal, Ullman, COLT 2019;
#: docs/estimators/binary-product.md §3 B3.
klsu_style_zcdp = PdeOptions(
    notion="zcdp", name="klsu_style_zcdp", fixed=("notion", "heavy", "shuffle")
)


BINARY.register(
    "binary_naive_laplace",
    "Naive Laplace (ε)",
    210,
    naive_laplace,
    color="#AA3377",
    cost=Cost(per_value_us=0.03, overhead_ms=2.0),
    detail="Naive Laplace (pure ε)",
    default=Default(rank=100, units=frozenset({"eps"})),
    description="Empirical mean plus Laplace noise of scale d/(nε) in every coordinate. Error metric: TV.",
)

BINARY.register(
    "binary_truncated_laplace",
    "Truncated Laplace (ε)",
    220,
    truncated_laplace,
    color="#4477AA",
    detail="Truncated Laplace, one clip radius (pure ε)",
    default=Default(rank=110, units=frozenset({"eps"})),
    description="Private row weight sets one ℓ1 clip radius; truncated mean plus Laplace. Error metric: TV.",
)

BINARY.register(
    "binary_klsu_zcdp",
    "KLSU-style Gaussian (ρ)",
    230,
    klsu_style_zcdp,
    color="#332288",
    cost=Cost(per_value_us=0.06, overhead_ms=2.0),
    detail="KLSU-style Gaussian (ρ-zCDP, not exact KLSU19)",
    default=Default(rank=40),
    description="The same buckets with Gaussian noise under zCDP; shows why pure DP is the hard case. "
    "Error metric: TV.",
)
