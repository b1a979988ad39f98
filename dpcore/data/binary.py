"""Binary product data: the probability profiles of docs/estimators/binary-product.md §5 and §6.7
and a sparse sampler of ``⊗ Ber(p_j)`` (moved from ``dpcore.theory.binary_product``: theory is closed
forms only).

References
----------
V. Singhal, "A Polynomial Time, Pure Differentially Private Estimator for Binary Product
Distributions", arXiv:2304.06787v4, §2.1; docs/estimators/binary-product.md §5, §6.7.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from dpcore._validation import RngLike, as_generator

#: Probability profiles of docs/estimators/binary-product.md §5 and §6.7.
PROFILES: dict[str, str] = {
    "sparse": "every pⱼ = 1/d² (rare bits)",
    "skewed": "d/64 bits at ½, 3d/64 in U[0.01, 0.1], the rest 1/d²",
    "power_law": "pⱼ = min(½, 1/(2j)) (power law)",
    "two_level": "a quarter of the bits at 0.25, the rest 1/d²",
    "dense": "every pⱼ = ½ (the case naive Laplace wins)",
}


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
    docs/estimators/binary-product.md §5 (profiles of the prototype table) and §6.7.
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
        p[k_half : k_half + k_mid] = as_generator(rng).uniform(0.01, 0.1, k_mid)
        return p
    if name == "two_level":
        p = np.full(d, 1.0 / d**2)
        p[: max(1, d // 4)] = 0.25
        return p
    raise ValueError(f"profile must be one of {', '.join(PROFILES)}; got {name!r}.")


def sample_binary_product(
    p: Any, n: int, *, rng: RngLike = None, as_sparse: bool = True
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
    rows, cols = _ones(pv, n, as_generator(rng))
    # Every column's ones are listed in increasing row order, so the column-wise (CSC) layout is
    # already sorted and free of duplicates; CSC -> CSR is a linear transpose with sorted indices
    # (no per-row sort, unlike COO -> CSR from this column-major list): the same matrix.
    mat = sparse.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, pv.size)).tocsc().tocsr()
    return mat if as_sparse else mat.toarray()


def _ones(pv: np.ndarray, n: int, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every one of ``n`` rows from ``⊗ Ber(pv)``, each column's ones in
    increasing row order (the draws of :func:`sample_binary_product`)."""
    d = pv.size
    rows_all: list[np.ndarray] = []
    cols_all: list[np.ndarray] = []
    # Common bits (p > 0.05): compare uniforms with p, in row chunks of about 4 million entries.
    dense_cols = np.flatnonzero(pv > 0.05)
    if dense_cols.size:
        chunk = max(1, 4_000_000 // dense_cols.size)
        for lo in range(0, n, chunk):  # loop over row chunks (memory), not over rows
            block = g.random((min(chunk, n - lo), dense_cols.size)) < pv[dense_cols]
            c, r = np.divmod(np.flatnonzero(block.T), block.shape[0])  # column by column
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
    return rows, cols
