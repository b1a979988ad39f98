"""PureDPPDE's permuted copy of a large checked binary sample, its indices gathered by a compiled
loop and its values shared (numba, imported on first use).

``X[perm]`` (scipy) copies every row's indices and values in the order of a random permutation:
at the Binary product page's defaults (300,000 rows of 512 bits, about 1.6 M ones) about a third
of PureDPPDE's CPU, bound by reading rows in random order. A checked sparse binary matrix stores
only ones (``check_binary`` drops stored zeros and refuses other values), so the permuted
matrix's values are the same ones as ``X``'s: :func:`permuted_rows` gathers the indices only and
shares ``X.data`` (read-only after :class:`~dpcore.estimators.binary_product.CheckedBinary`; the
stages only read). The same ``indptr``, ``indices`` and ``data`` as scipy's, dtypes included
(``tests/estimators/test_binary_permuted_rows.py``). As :mod:`dpcore._kernels`, numba is imported
the first time the kernel runs (``cache=True``), and only for matrices of at least
:data:`dpcore._kernels.MIN_SIZE` stored ones.

References
----------
docs/speed.md ("Binary product, round 4").
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from dpcore import _kernels

__all__ = ["permuted_rows"]


@_kernels.exact_compiled
def _gather_indices(
    indptr: np.ndarray, indices: np.ndarray, perm: np.ndarray, new_ptr: np.ndarray, out: np.ndarray
) -> None:
    """Row ``perm[i]``'s indices to ``out[new_ptr[i]:new_ptr[i + 1]]``."""
    for i in range(perm.size):
        a, s = indptr[perm[i]], new_ptr[i]
        for t in range(new_ptr[i + 1] - s):
            out[s + t] = indices[a + t]


def permuted_rows(X: Any, perm: np.ndarray) -> Any:
    """``X[perm]`` for a checked binary matrix ``X`` (dense or CSR) and a permutation ``perm``."""
    if not isinstance(X, sparse.csr_matrix) or X.nnz < _kernels.MIN_SIZE:
        return X[perm]
    new_ptr = np.empty(perm.size + 1, dtype=X.indptr.dtype)
    new_ptr[0] = 0
    np.cumsum(np.diff(X.indptr)[perm], out=new_ptr[1:])
    out = np.empty(X.nnz, dtype=X.indices.dtype)
    _gather_indices(X.indptr, X.indices, perm, new_ptr, out)
    return sparse.csr_matrix((X.data, out, new_ptr), shape=X.shape, copy=False)
