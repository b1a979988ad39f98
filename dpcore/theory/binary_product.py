"""Binary product distributions: probability profiles, a sparse sampler, exact/Monte Carlo total
variation, and the reference curves (TV error against n, d, eps) of specs/binary_product.md §4.

Everything here is public-parameter arithmetic or simulation; nothing is private.

Total variation between product distributions ``P = ⊗ Ber(p_j)`` and ``Q = ⊗ Ber(q_j)`` is not
``½‖p − q‖₁`` (that is :func:`dpcore.metrics.tv_error`, an upper bound up to a factor 2); the spec
(§1, "Computing TV in the app") asks for the exact value, by enumeration for ``d <= 16`` and by an
unbiased Monte Carlo estimate otherwise. :func:`product_tv` does both.

References
----------
V. Singhal, "A Polynomial Time, Pure Differentially Private Estimator for Binary Product
Distributions", arXiv:2304.06787v4, §2.1, Theorem 3.1; specs/binary_product.md §1, §4, §5.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import sparse, special, stats

from dpcore._validation import RngLike, as_generator, check_positive, check_probability

#: Probability profiles of specs/binary_product.md §5 and §6.7.
PROFILES: dict[str, str] = {
    "sparse": "every pⱼ = 1/d² (rare bits)",
    "skewed": "d/64 bits at ½, 3d/64 in U[0.01, 0.1], the rest 1/d²",
    "power_law": "pⱼ = min(½, 1/(2j)) (power law)",
    "two_level": "a quarter of the bits at 0.25, the rest 1/d²",
    "dense": "every pⱼ = ½ (the case naive Laplace wins)",
}


EXACT_TV_MAX_D = 16


MC_DRAWS = 20_000


def _check_d(d: Any, name: str = "d") -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {d!r}.")
    return int(d)


def profile(name: str, d: int, *, rng: RngLike = None) -> np.ndarray:
    """The probability vector ``p`` (length ``d``) of a named profile, sorted as the spec lists it.

    Parameters
    ----------
    name : {"sparse", "skewed", "power_law", "two_level", "dense"}
        See :data:`PROFILES`.
    d : int
        Dimension.
    rng : None, int or Generator
        Only the ``"skewed"`` profile is random (its ``U[0.01, 0.1]`` block).

    References
    ----------
    specs/binary_product.md §5 (profiles of the prototype table) and §6.7.
    """
    d = _check_d(d)
    if name == "dense":
        return np.full(d, 0.5)
    if name == "sparse":
        return np.full(d, 1.0 / d**2)
    if name == "power_law":
        return np.minimum(0.5, 1.0 / (2.0 * np.arange(1, d + 1)))
    if name == "skewed":
        p = np.full(d, 1.0 / d**2)
        k_half = max(1, d // 64)
        k_mid = min(d - k_half, max(1, 3 * d // 64))
        p[:k_half] = 0.5
        p[k_half:k_half + k_mid] = as_generator(rng).uniform(0.01, 0.1, k_mid)
        return p
    if name == "two_level":
        p = np.full(d, 1.0 / d**2)
        p[: max(1, d // 4)] = 0.25
        return p
    raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {name!r}.")


def sample_binary_product(p: Any, n: int, *, rng: RngLike = None, as_sparse: bool = True
                          ) -> sparse.csr_matrix | np.ndarray:
    """Draw ``n`` rows from ``⊗ Ber(p_j)`` without materialising the ``n × d`` uniform matrix.

    Common bits (``p_j > 0.05``) compare uniforms with ``p_j``; for rare bits the ones of column ``j``
    are found by geometric gaps (the waiting times of a Bernoulli(p_j) process), drawn for all columns
    at once; the rare column whose gaps do not reach row ``n`` is topped up (an exact sampler).

    Returns
    -------
    scipy.sparse.csr_matrix (float, values 1) of shape (n, d), or a dense float array when
    ``as_sparse=False``.
    """
    pv = np.atleast_1d(np.asarray(p, dtype=float))
    if pv.ndim != 1 or not np.all(np.isfinite(pv)) or np.any((pv < 0) | (pv > 1)):
        raise ValueError("p must be a 1-D array of probabilities in [0, 1].")
    n = _check_d(n, "n")
    g = as_generator(rng)
    d = pv.size
    rows_all: list[np.ndarray] = []
    cols_all: list[np.ndarray] = []
    # Common bits (p > 0.05): compare uniforms with p, in row chunks of about 4 million entries.
    dense_cols = np.flatnonzero(pv > 0.05)
    if dense_cols.size:
        chunk = max(1, 4_000_000 // dense_cols.size)
        for lo in range(0, n, chunk):  # loop over row chunks (memory), not over rows
            block = g.random((min(chunk, n - lo), dense_cols.size)) < pv[dense_cols]
            r, c = np.nonzero(block)
            rows_all.append(r + lo)
            cols_all.append(dense_cols[c])
    # Rare bits: geometric gaps between ones, all columns at once; top up the rare short column.
    start = np.zeros(d, dtype=np.int64)  # next row to fill, per column
    todo = np.flatnonzero((pv > 0) & (pv <= 0.05))
    while todo.size:
        pj = pv[todo]
        mu = n * pj
        k = np.ceil(mu + 6.0 * np.sqrt(mu * (1 - pj)) + 10).astype(np.int64)  # gaps per column
        k = np.minimum(k, n - start[todo] + 1)
        col = np.repeat(todo, k)
        gaps = g.geometric(np.repeat(pj, k))
        offsets = np.concatenate(([0], np.cumsum(k)[:-1]))
        cs = np.cumsum(gaps)
        seg_base = np.repeat(cs[offsets] - gaps[offsets], k)
        pos = start[col] + (cs - seg_base) - 1
        keep = pos < n
        rows_all.append(pos[keep])
        cols_all.append(col[keep])
        last = pos[offsets + k - 1]
        start[todo] = last + 1
        todo = todo[last < n]
    rows = np.concatenate(rows_all) if rows_all else np.zeros(0, np.int64)
    cols = np.concatenate(cols_all) if cols_all else np.zeros(0, np.int64)
    mat = sparse.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, d)).tocsr()
    return mat if as_sparse else mat.toarray()


# --------------------------------------------------------------------------------------------
# total variation


def _check_pq(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    pv = np.atleast_1d(np.asarray(p, dtype=float))
    qv = np.atleast_1d(np.asarray(q, dtype=float))
    if pv.shape != qv.shape or pv.ndim != 1:
        raise ValueError(f"p and q must be 1-D arrays of the same length; got {pv.shape} and {qv.shape}.")
    for name, v in (("p", pv), ("q", qv)):
        if not np.all(np.isfinite(v)) or np.any((v < 0) | (v > 1)):
            raise ValueError(f"{name} must hold probabilities in [0, 1]; clip the estimate first.")
    return pv, qv


def _log_ratio_terms(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-coordinate log Q/P when the bit is 1 (``a``) or 0 (``c``), with impossible events masked."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where((p > 0) & (q > 0), np.log(q) - np.log(p), 0.0)
        c = np.where((p < 1) & (q < 1), np.log1p(-q) - np.log1p(-p), 0.0)
    impossible1 = (q == 0) & (p > 0)  # Q gives 0 mass to a 1 that P can produce
    impossible0 = (q == 1) & (p < 1)
    return a, c, impossible1, impossible0


def product_tv(p: Any, q: Any, *, rng: RngLike = None, draws: int = MC_DRAWS,
               exact_max_d: int = EXACT_TV_MAX_D) -> float:
    """Total variation ``½ Σ_x |P(x) − Q(x)|`` between ``⊗Ber(p_j)`` and ``⊗Ber(q_j)``.

    Exact enumeration over ``2^d`` points when ``d <= exact_max_d`` (default 16); otherwise the
    unbiased estimate ``E_{x~P}[(1 − Q(x)/P(x))_+]`` over ``draws`` samples (each term in [0, 1],
    so the standard error is at most ``0.5/sqrt(draws)``), computed in log space; ``q_j ∈ {0, 1}``
    is allowed.

    References
    ----------
    specs/binary_product.md §1 ("Computing TV in the app").
    """
    return float(product_tv_many(p, [q], rng=rng, draws=draws, exact_max_d=exact_max_d)[0])


def product_tv_many(p: Any, qs: list[Any], *, rng: RngLike = None, draws: int = MC_DRAWS,
                    exact_max_d: int = EXACT_TV_MAX_D) -> np.ndarray:
    """:func:`product_tv` of several ``q`` against one ``p``, sharing the enumeration or the Monte
    Carlo draws (common random numbers: each value is still unbiased, and comparisons between the
    ``q``'s are sharper)."""
    pv = np.atleast_1d(np.asarray(p, dtype=float))
    qvs = [_check_pq(pv, q)[1] for q in qs]
    d = pv.size
    if d <= exact_max_d:
        bits = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)

        def mass(v: np.ndarray) -> np.ndarray:
            logs = np.where(bits, np.log(np.maximum(v, 1e-300)), np.log(np.maximum(1 - v, 1e-300))).sum(1)
            zero = (bits & (v == 0)).any(1) | (~bits & (v == 1)).any(1)
            return np.where(zero, 0.0, np.exp(logs))

        P = mass(pv)
        return np.array([0.5 * np.abs(P - mass(qv)).sum() for qv in qvs])
    draws = _check_d(draws, "draws")
    x = sample_binary_product(pv, draws, rng=rng)
    out = []
    for qv in qvs:  # a few estimates against the same draws
        a, c, imp1, imp0 = _log_ratio_terms(pv, qv)
        log_ratio = np.asarray(x @ (a - c)).ravel() + c.sum()
        bad = (np.asarray(x @ imp1.astype(float)).ravel()
               + (imp0.sum() - np.asarray(x @ imp0.astype(float)).ravel()))
        out.append(float(np.where(bad > 0, 1.0, -np.expm1(np.minimum(log_ratio, 0.0))).mean()))
    return np.array(out)


def hellinger_tv_bounds(p: Any, q: Any) -> tuple[float, float]:
    """``(1 − BC, sqrt(1 − BC²))`` with the Bhattacharyya coefficient
    ``BC = Π_j (sqrt(p_j q_j) + sqrt((1−p_j)(1−q_j)))``: lower and upper bounds on the product TV.

    References
    ----------
    specs/binary_product.md §1 (Hellinger bounds) and §7 E10.
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


def optimal_rate(n: Any, d: int, epsilon: float, c_s: float = 0.4, c_p: float = 1.0) -> np.ndarray:
    """Curve 1, the optimal-rate shape ``c_s sqrt(d/n) + c_p d/(eps n)`` (constants unknown)."""
    nv = _arr(n)
    return c_s * np.sqrt(d / nv) + c_p * d / (epsilon * nv)


def theorem_3_1(n: Any, d: int, epsilon: float, beta: float = 0.1) -> np.ndarray:
    """Curve 2, Theorem 3.1 with its logs and hidden constants set to 1, solved for alpha:
    ``alpha = (B' + sqrt(B'^2 + 4 n A)) / (2n)`` with ``A = d ln²(d/β)``, ``B' = d ln²(d/(εβ))/ε``."""
    nv = _arr(n)
    A = d * math.log(d / beta) ** 2
    Bp = d * math.log(max(d / (epsilon * beta), math.e)) ** 2 / epsilon
    return (Bp + np.sqrt(Bp**2 + 4 * nv * A)) / (2 * nv)


def paper_sample_size(d: int, alpha: float, epsilon: float, beta: float = 0.1, c_alpha: float = 1.0) -> float:
    """Curve 3's ingredient: the paper's explicit sufficient size ``R m + m0 + m1`` (Algorithm 1,
    step 1; ``C_alpha = 1``), reconstructed in specs/binary_product.md §2.2."""
    R = max(0, math.ceil(math.log2(d)) - 1)
    lg = math.log
    m = 2048 * d * lg(d / beta) + 2048 * d * lg(d / (epsilon * beta)) / epsilon
    m0 = c_alpha * ((d + lg(1 / beta)) / alpha**2 + (d + lg(1 / beta)) / (alpha * epsilon) + d * lg(d) / epsilon)
    m1 = 128 * d * lg(d / beta) / alpha**2 + 256 * d * lg(d / (epsilon * alpha * beta)) / (epsilon * alpha)
    return float(R * m + m0 + m1)


def paper_worst_case(n: Any, d: int, epsilon: float, beta: float = 0.1) -> np.ndarray:
    """Curve 3: the alpha at which :func:`paper_sample_size` equals ``n`` ("theory, worst case");
    ``nan`` where even alpha = 1 needs more than ``n`` rows."""
    from scipy.optimize import brentq

    out = []
    for nv in np.atleast_1d(_arr(n)):  # a handful of grid points; each a scalar root
        f = lambda a, nv=nv: paper_sample_size(d, a, epsilon, beta) - nv  # noqa: E731
        out.append(brentq(f, 1e-9, 1.0) if f(1.0) < 0 else np.nan)
    return np.asarray(out).reshape(np.shape(n))


def nonprivate_bound(n: Any, d: int) -> np.ndarray:
    """Curve 4a: rigorous ``E TV <= sqrt(d/(2n))`` for the empirical mean."""
    return np.sqrt(d / (2 * _arr(n)))


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


def bksw19(n: Any, d: int, epsilon: float) -> np.ndarray:
    """Curve 6 (reference only, exponential time): alpha solving
    ``n = d ln(d/alpha) (1/alpha² + 1/(alpha eps))``."""
    from scipy.optimize import brentq

    out = []
    for nv in np.atleast_1d(_arr(n)):
        f = lambda a, nv=nv: d * math.log(d / a) * (1 / a**2 + 1 / (a * epsilon)) - nv  # noqa: E731
        out.append(brentq(f, 1e-12, 1.0) if f(1.0) < 0 else np.nan)
    return np.asarray(out).reshape(np.shape(n))


def instance_heuristic(p: Any, noise_scale: Any, rows: Any) -> float:
    """Curve 7, the instance heuristic for any Laplace-type estimator [spec, ours].

    Coordinates whose Laplace scale ``b_j >= p_j`` are clipped and contribute about ``b_j/2``;
    the rest enter ``D² = Σ (p_j(1−p_j)/n_j + 2 b_j²)/(p_j(1−p_j))``;
    ``TV ≈ min(1, 2Φ(D/2) − 1 + Σ_{clipped} b_j/2)``. ``rows`` is each coordinate's sample size n_j.
    """
    pv = np.atleast_1d(np.asarray(p, float))
    b = np.broadcast_to(np.asarray(noise_scale, float), pv.shape)
    nj = np.broadcast_to(np.asarray(rows, float), pv.shape)
    clipped = b >= pv
    var = pv * (1 - pv)
    ok = ~clipped & (var > 0)
    D2 = float(np.sum((var[ok] / nj[ok] + 2 * b[ok] ** 2) / var[ok]))
    return float(min(1.0, 2 * special.ndtr(math.sqrt(D2) / 2) - 1 + 0.5 * b[clipped].sum()))


def check_curve_args(d: int, epsilon: float, beta: float) -> tuple[int, float, float]:
    """Validate the public arguments of the curves."""
    return _check_d(d), check_positive(epsilon, "epsilon"), check_probability(beta, "beta")


#: Failure probability β in the sorting analysis's separation target 16 ln(dR/β) (Singhal §3).
SEPARATION_BETA = 0.1


#: Below this separation τᵣ/b many tiny pⱼ get promoted by noise alone (a practical warning level).
SEPARATION_WARN = 3.0


def separation_light(separation: Any, d: int, rounds: int, beta: float = SEPARATION_BETA) -> np.ndarray:
    """Traffic light for a sorting round's separation τᵣ/b (threshold over Laplace scale).

    ``"green"`` when the separation exceeds the analysis's target ``16 ln(d R / β)`` (R = number of
    rounds, at least 1), ``"amber"`` when it exceeds :data:`SEPARATION_WARN` (= 3), else ``"red"``.

    References
    ----------
    V. Singhal, arXiv:2304.06787v4, §3 (the sorting step's union bound over d coordinates and R rounds);
    specs/binary_product.md §6.
    """
    d, _, beta = check_curve_args(d, 1.0, beta)
    target = 16.0 * math.log(d * max(int(rounds), 1) / beta)
    sep = np.asarray(separation, dtype=float)
    return np.where(sep > target, "green", np.where(sep > SEPARATION_WARN, "amber", "red"))
