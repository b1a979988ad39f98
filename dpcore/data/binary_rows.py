"""A faster sampler of ``n`` rows from ``⊗ Ber(p_j)`` for the Binary product page's single run:
32-bit uniforms for the common bits and the CSR layout built row by row.

:func:`dpcore.data.binary.sample_binary_product` draws a float64 uniform for every entry of a
common bit (``p_j > 0.05``) and builds its matrix through a COO list; at the page's defaults
(300,000 rows of 512 bits, 1.6 M ones) that took about 0.1 s of CPU, most of the page's view.
Here a common bit compares 32-bit uniforms (two per 64-bit output of the generator,
``BitGenerator.random_raw``) with ``t_j = round(p_j 2^32)``: each entry is one with probability
``t_j / 2^32``, within ``2^-33`` of ``p_j`` (a relative error under ``1e-8`` for ``p_j > 0.05``;
``p_j = 1`` is exact). The common columns are drawn row by row, so their ones come out in CSR
order (no transpose of a column layout, whose scattered writes cost most of the old build); the
rare bits use the same geometric gaps as ``sample_binary_product``, sorted by row, and the two
disjoint sets of columns are merged row by row: a canonical CSR matrix (sorted indices, no
duplicates), as before.

The distribution is the same up to that precision; the random stream is not: at a given seed the
rows differ from ``sample_binary_product``'s.

A large sample (at least :data:`dpcore._kernels.MIN_SIZE` entries of common columns) is built by
a compiled pass per block of rows (:func:`_merge_block`, numba): the same draws, tested and merged
with the rare columns row by row into the final arrays, instead of a boolean matrix of hits, its
``flatnonzero`` and scipy's sum of two matrices; the same matrix to the bit, in about half the
CPU (docs/speed.md, "Binary product, round 4").

References
----------
docs/estimators/binary-product.md §6 (the page's single run); docs/speed.md ("Page first
views, round 2": Binary product; "Binary product, round 4").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from dpcore import _kernels
from dpcore._validation import RngLike, as_generator
from dpcore.data.binary import _check_d, _ones

__all__ = ["COMMON_P", "sample_binary_rows"]

#: bits with a larger probability compare uniforms; the others use geometric gaps
COMMON_P = 0.05
#: uniforms drawn per block of common columns (memory)
BLOCK = 4_000_000


def _csr(shape: tuple[int, int], indices: np.ndarray, row_counts: np.ndarray) -> sparse.csr_matrix:
    """The CSR matrix of float ones with these column ``indices`` (row by row, each row's ascending
    and distinct, as every caller builds them) and rows' counts, marked canonical so that a check
    of it does not scan its indices again."""
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(row_counts, out=indptr[1:])
    if indptr[-1] < np.iinfo(np.int32).max:
        indptr = indptr.astype(np.int32)
    X = sparse.csr_matrix((np.ones(indices.size), indices, indptr), shape=shape)
    X.has_canonical_format = True
    return X


def _thresholds(pv: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 32-bit thresholds ``round(p_j 2^32) - 1`` of the common columns, and their labels."""
    top = np.round(pv[cols] * 2.0**32) - 1.0  # in [2^32 * 0.05 - 1, 2^32 - 1]
    return top.astype(np.uint32), cols.astype(np.int32)


def _common(pv: np.ndarray, cols: np.ndarray, n: int, g: np.random.Generator) -> sparse.csr_matrix:
    """The common columns ``cols`` of ``n`` rows, from 32-bit uniforms: entry ``(i, j)`` is one
    when its uniform ``u < round(p_j 2^32)``, i.e. ``u <= round(p_j 2^32) - 1``."""
    k = cols.size
    thresholds, labels = _thresholds(pv, cols)
    counts, indices = [], []
    step = max(1, BLOCK // k)
    for lo in range(0, n, step):  # blocks of rows (memory), not single rows
        m = min(step, n - lo)
        words = g.bit_generator.random_raw((m * k + 1) // 2)
        hits = words.view(np.uint32)[: m * k].reshape(m, k) <= thresholds
        counts.append(hits.view(np.uint8).sum(axis=1, dtype=np.int64))
        indices.append(labels[np.flatnonzero(hits) % k])  # row by row, columns ascending
    return _csr((n, pv.size), np.concatenate(indices), np.concatenate(counts))


@_kernels.exact_compiled
def _merge_block(
    u32: np.ndarray,
    thresholds: np.ndarray,
    labels: np.ndarray,
    rare_ptr: np.ndarray,
    rare_cols: np.ndarray,
    lo: int,
    counts: np.ndarray,
    out: np.ndarray,
    pos: int,
) -> int:
    """Rows ``lo .. lo + m - 1`` (``m = counts.size``) in one pass: row ``i``'s common columns
    are ``labels[j]`` where ``u32[i k + j] <= thresholds[j]`` (:func:`_common`'s test), merged in
    ascending order with its rare columns ``rare_cols[rare_ptr[lo + i] : rare_ptr[lo + i + 1]]``
    (sorted, disjoint from ``labels``); the columns go to ``out`` from ``pos`` on, each row's count
    to ``counts``. Returns the next free position. Integers only: the same matrix as
    ``_common(...) + rare``."""
    k = labels.size
    hits = np.empty(k, dtype=labels.dtype)
    for i in range(counts.size):
        start, row = pos, i * k
        a, b = rare_ptr[lo + i], rare_ptr[lo + i + 1]
        if a == b:  # no rare column (most rows): the hits straight to out, branch-free
            for j in range(k):  # a hit moves the end, a miss is overwritten
                out[pos] = labels[j]
                pos += u32[row + j] <= thresholds[j]
        else:
            c = 0
            for j in range(k):
                hits[c] = labels[j]
                c += u32[row + j] <= thresholds[j]
            h = 0
            while h < c or a < b:  # merge two ascending lists
                if a < b and (h == c or rare_cols[a] < hits[h]):
                    out[pos] = rare_cols[a]
                    a += 1
                else:
                    out[pos] = hits[h]
                    h += 1
                pos += 1
        counts[i] = pos - start
    return pos


def _merged(
    pv: np.ndarray,
    cols: np.ndarray,
    n: int,
    g: np.random.Generator,
    rare_cols: np.ndarray,
    rare_counts: np.ndarray,
) -> sparse.csr_matrix:
    """:func:`_common`'s columns plus the rare ones, built in one compiled pass per block of rows
    (:func:`_merge_block`) from the same draws: the matrix ``_common(pv, cols, n, g) + rare``,
    without the boolean matrix of hits, its ``flatnonzero`` and scipy's merge of two matrices."""
    k = cols.size
    thresholds, labels = _thresholds(pv, cols)
    rare_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(rare_counts, out=rare_ptr[1:])
    out = np.empty(n * k + rare_cols.size, dtype=np.int32)  # pages are touched only as filled
    counts = np.empty(n, dtype=np.int64)
    pos, step = 0, max(1, BLOCK // k)
    for lo in range(0, n, step):  # the same blocks, so the same draws, as _common
        m = min(step, n - lo)
        words = g.bit_generator.random_raw((m * k + 1) // 2)
        u32 = words.view(np.uint32)
        pos = _merge_block(
            u32, thresholds, labels, rare_ptr, rare_cols, lo, counts[lo : lo + m], out, pos
        )
    return _csr((n, pv.size), out[:pos].copy(), counts)


def sample_binary_rows(p: Any, n: int, *, rng: RngLike = None) -> sparse.csr_matrix:
    """``n`` rows from ``⊗ Ber(p_j)`` as a canonical CSR matrix of float ones, shape ``(n, d)``.

    Parameters
    ----------
    p : array of shape (d,)
        Probabilities in [0, 1].
    n : int
        Rows, at least 1.
    rng : None, int or Generator
        The generator (the page passes its ``"data"`` stream).

    Returns
    -------
    scipy.sparse.csr_matrix
        Sorted indices, no duplicates; entry ``(i, j)`` is one with probability ``p_j`` (common
        bits ``p_j > 0.05``: ``round(p_j 2^32) / 2^32``, see the module's docstring).

    Examples
    --------
    >>> X = sample_binary_rows([0.5, 0.001, 1.0], 1000, rng=0)
    >>> X.shape, bool(X[:, 2].sum() == 1000), X.has_sorted_indices
    ((1000, 3), True, True)
    """
    pv = np.atleast_1d(np.asarray(p, dtype=float))
    if pv.ndim != 1 or not np.all(np.isfinite(pv)) or np.any((pv < 0) | (pv > 1)):
        raise ValueError("p must be a 1-D array of probabilities in [0, 1].")
    n, d = _check_d(n, "n"), pv.size
    g = as_generator(rng)
    common = np.flatnonzero(pv > COMMON_P)
    rows, cols = _ones(np.where(pv > COMMON_P, 0.0, pv), n, g)  # the rare bits' ones
    key = np.sort(rows * d + cols)  # row by row, columns ascending
    rare_cols, rare_counts = (key % d).astype(np.int32), np.bincount(key // d, minlength=n)
    if common.size == 0:
        return _csr((n, d), rare_cols, rare_counts)
    if n * common.size >= _kernels.MIN_SIZE:  # the compiled merge (small runs: no numba)
        return _merged(pv, common, n, g, rare_cols, rare_counts)
    dense = _common(pv, common, n, g)
    rare = _csr((n, d), rare_cols, rare_counts)
    return dense + rare if rare.nnz else dense  # disjoint columns: a merge of sorted rows
