"""The randomised Walsh–Hadamard rotation used by IOME, as a fast transform (never a d×d matrix).

A vector ``x`` in ``R^d`` is zero-padded to ``R^D`` (``D`` the next power of two) and rotated by

    R = (H D_3)(H D_2)(H D_1),

with ``H`` the normalised Walsh–Hadamard matrix of size ``D`` (``H = H^T = H^{-1}``, entries
``±1/sqrt(D)``) and ``D_t`` independent uniformly random ``±1`` diagonal matrices. ``R`` is orthogonal,
so ``R^{-1} = R^T = (D_1 H)(D_2 H)(D_3 H)``; zero padding keeps every l2 norm.

Speed
-----
A butterfly FWHT written in numpy makes ``log2 D`` passes over the data with poor locality. Instead,
with ``D = D1 * D2`` (both powers of two), the Sylvester construction gives ``H_D = H_D1 ⊗ H_D2``,
so for a vector held as a ``D1 × D2`` matrix ``X`` (row-major)

    H_D x  =  H_D1 · X · H_D2 .

The sample is transformed in chunks of ``m`` vectors held as the columns of a ``(D, m)`` buffer,
i.e. a ``(D1, D2, m)`` array: ``H_D2`` is a batched product over the ``D1`` blocks
(``(D2, D2) @ (D2, m)`` each), ``H_D1`` a batched product over the ``D2`` strided slices
(``(D1, D1) @ (D1, m)`` each, no copy), and the sign flip an in-place multiply, all on a buffer that
stays in the CPU cache for the three rounds. The products use the ±1 matrices and the result is
normalised once at the end, so dyadic inputs (such as binary data) rotate exactly and the same on
every CPU, whatever order its BLAS kernel adds in. Each round costs ``2 D (D1 + D2)`` flops per vector,
``O(D sqrt(D))``, done by BLAS. The chunk width keeps every product at most ``2^19`` multiply-adds,
so OpenBLAS runs it on one thread: on a loaded machine (2 shared cores) multi-threaded small
products were up to 10x slower than single-threaded ones (thread hand-offs wait for busy cores),
while one thread runs about as fast as two idle ones on these sizes. The data are read once
(transposed into the chunk, with an
optional centre subtracted) and written once, as the ``(D, n)`` array returned by
:meth:`RandomizedHadamard.forward_columns` (one row per rotated coordinate: the layout in which
coordinate-wise statistics such as the private medians are cheapest).

References
----------
Huang, Liang, Yi. "Instance-optimal Mean Estimation Under Differential Privacy." NeurIPS 2021
(the rotation, three rounds). Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7;
docs/estimators/plan.md §5a and §9.11.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.linalg import hadamard

from dpcore._validation import RngLike
from dpcore.mechanisms import generator

#: Vectors transformed together at most (a ``(D, 128)`` buffer stays in cache up to D ~ 2^12).
CHUNK = 128
#: Largest product (multiply-adds) per BLAS call; OpenBLAS runs products up to about this size on
#: one thread.
_SINGLE_THREAD_MNK = 1 << 19


def next_power_of_two(d: int) -> int:
    """Smallest power of two ``>= d`` (``d >= 1``)."""
    if int(d) < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}.")
    return 1 << (int(d) - 1).bit_length()


@lru_cache(maxsize=32)
def _sylvester(size: int) -> np.ndarray:
    """The unnormalised Walsh–Hadamard matrix (entries ±1) as floats, read-only."""
    h = hadamard(size).astype(float)
    h.setflags(write=False)
    return h


def _scale(D: int, rounds: int) -> float:
    """``D^(-rounds/2)``, the normalisation of ``rounds`` unnormalised transforms, to the last bit.

    ``D = 2^k``, so this is a power of two times ``sqrt(1/2)`` when ``k * rounds`` is odd: one
    correctly rounded square root and an exact ``ldexp``, the same double on every CPU.
    """
    e = (D.bit_length() - 1) * rounds
    return math.ldexp(math.sqrt(0.5) if e % 2 else 1.0, -(e // 2))


def _factor(D: int) -> tuple[int, int]:
    """``D = D1 * D2`` with ``D1 >= D2`` powers of two as equal as possible."""
    k = D.bit_length() - 1
    k1 = (k + 1) // 2
    return 1 << k1, 1 << (k - k1)


def _hadamard_columns(A: np.ndarray, B: np.ndarray) -> None:
    """In place: the unnormalised ``sqrt(D) H_D = S_D1 ⊗ S_D2`` (entries ±1) applied to every
    column of ``A`` (shape ``(D1, D2, m)``).

    ``B`` (same shape) is workspace. With ±1 entries every product is exact, so inputs on a dyadic
    grid (binary data minus its box centre) give exact sums in whatever order the BLAS kernel of
    the CPU adds them: a rotated coordinate that is 0 in exact arithmetic is 0.0 on every machine,
    and a comparison with a search's midpoint at 0 goes the same way everywhere. The callers
    normalise once, by :func:`_scale`, after the last round.
    """
    D1, D2, _m = A.shape
    np.matmul(_sylvester(D2), A, out=B)  # S_D2 on axis 1, batched over the D1 blocks
    # S_D1 on axis 0, batched over the D2 slices B[:, i2, :] (strided, no copy)
    np.matmul(_sylvester(D1), B.transpose(1, 0, 2), out=A.transpose(1, 0, 2))


def _chunks(n: int, D: int):
    """Yield ``(start, A, B)``: chunks of ``m <= CHUNK`` vectors, two ``(D1, D2, m)`` buffers."""
    D1, D2 = _factor(D)
    width = max(1, min(CHUNK, n, _SINGLE_THREAD_MNK // (D1 * D1)))
    bufA, bufB = np.empty(D * width), np.empty(D * width)
    for j in range(0, n, width):
        m = min(width, n - j)
        yield j, bufA[: D * m].reshape(D1, D2, m), bufB[: D * m].reshape(D1, D2, m)


def hadamard_transform(x: np.ndarray) -> np.ndarray:
    """Normalised Walsh–Hadamard transform of each row of ``x`` (last axis a power of two).

    ``hadamard_transform(hadamard_transform(x)) == x`` up to rounding; norms are preserved.
    """
    arr = np.asarray(x, dtype=float)
    one_d = arr.ndim == 1
    X = arr.reshape(1, -1) if one_d else arr
    n, D = X.shape
    if D != next_power_of_two(D):
        raise ValueError(
            f"the last axis of x must have a power-of-two length; got {D}. Zero-pad first."
        )
    out = np.empty((n, D))
    for j, A, B in _chunks(n, D):
        cols = A.reshape(D, -1)
        cols[...] = X[j : j + cols.shape[1]].T
        _hadamard_columns(A, B)
        out[j : j + cols.shape[1]] = cols.T
    out *= _scale(D, 1)
    return out[0] if one_d else out


class RandomizedHadamard:
    """The random rotation ``R = (H D_rounds) ... (H D_1)`` on zero-padded vectors.

    Parameters
    ----------
    d : int
        Dimension of the original vectors.
    rounds : int, default 3
        Number of ``H D_t`` factors (IOME uses three).
    rng : None, int or Generator
        Source of the random signs (data independent; they are public).

    Attributes
    ----------
    d, dim : int
        Original dimension and padded dimension ``D`` (a power of two).
    signs : ndarray, shape (rounds, D)
        The diagonals ``D_1, ..., D_rounds`` (entries ±1).

    Examples
    --------
    >>> R = RandomizedHadamard(3, rng=0)
    >>> x = np.array([[3.0, 4.0, 0.0]])
    >>> bool(np.isclose(np.linalg.norm(R.forward(x)), 5.0))
    True
    >>> bool(np.allclose(R.inverse(R.forward(x)), x))
    True

    References
    ----------
    Huang, Liang, Yi (NeurIPS 2021); docs/estimators/plan.md §5a, §9.11.
    """

    def __init__(self, d: int, *, rounds: int = 3, rng: RngLike = None) -> None:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ValueError(f"d must be a positive integer; got {d!r}.")
        if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
            raise ValueError(f"rounds must be a positive integer; got {rounds!r}.")
        self.d = int(d)
        self.dim = next_power_of_two(self.d)
        self.rounds = int(rounds)
        g = generator(rng)  # a release backend passes through (its signs from the OS CSPRNG)
        self.signs = np.where(g.random((self.rounds, self.dim)) < 0.5, -1.0, 1.0)
        # the same signs as (rounds, D1, D2, 1), to multiply a (D1, D2, m) chunk of columns
        self._chunk_signs = self.signs.reshape(self.rounds, *_factor(self.dim), 1)
        self._scale = _scale(self.dim, self.rounds)

    def _check(self, x: np.ndarray, width: int, what: str) -> tuple[np.ndarray, bool]:
        arr = np.asarray(x, dtype=float)
        one_d = arr.ndim == 1
        X = arr.reshape(1, -1) if one_d else arr
        if X.ndim != 2 or X.shape[1] != width:
            raise ValueError(
                f"{what} must have {width} columns (last axis); got shape {arr.shape}."
            )
        return X, one_d

    def forward_columns(self, x: np.ndarray, *, center: np.ndarray | None = None) -> np.ndarray:
        """``R (x_j - center)`` for every row ``x_j`` of ``x`` (n, d), returned as columns: shape ``(D, n)``.

        Row ``k`` of the result holds rotated coordinate ``k`` of all ``n`` vectors (the transpose
        of :meth:`forward`, computed without a transposing copy).
        """
        X, _ = self._check(x, self.d, "x")
        n, d, D = X.shape[0], self.d, self.dim
        shift = (
            None
            if center is None
            else np.broadcast_to(np.asarray(center, dtype=float), (d,))[:, None]
        )
        out = np.empty((D, n))
        for j, A, B in _chunks(n, D):
            cols = A.reshape(D, -1)  # the chunk's vectors as columns, zero padded
            m = cols.shape[1]
            if shift is None:
                cols[:d] = X[j : j + m].T
            else:
                np.subtract(X[j : j + m].T, shift, out=cols[:d])
            cols[d:] = 0.0
            for t in range(self.rounds):  # H D_t, unnormalised
                A *= self._chunk_signs[t]
                _hadamard_columns(A, B)
            np.multiply(cols, self._scale, out=out[:, j : j + m])
        return out

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Rotate rows of ``x`` (shape ``(n, d)`` or ``(d,)``): returns ``(n, D)`` (or ``(D,)``)."""
        _, one_d = self._check(x, self.d, "x")
        cols = self.forward_columns(np.atleast_2d(x))
        return cols[:, 0] if one_d else cols.T

    def inverse(self, y: np.ndarray, *, keep_padding: bool = False) -> np.ndarray:
        """Rotate back: ``R^T y`` for rows of ``y`` (shape ``(n, D)`` or ``(D,)``).

        Returns the first ``d`` coordinates (or all ``D`` with ``keep_padding=True``; for rotated
        real vectors the padded coordinates come back as zeros up to rounding).
        """
        Y, one_d = self._check(y, self.dim, "y")
        n, D = Y.shape[0], self.dim
        width = D if keep_padding else self.d
        out = np.empty((n, width))
        for j, A, B in _chunks(n, D):
            cols = A.reshape(D, -1)
            m = cols.shape[1]
            cols[...] = Y[j : j + m].T
            for t in range(self.rounds - 1, -1, -1):  # D_t H, unnormalised
                _hadamard_columns(A, B)
                A *= self._chunk_signs[t]
            np.multiply(cols[:width].T, self._scale, out=out[j : j + m])
        return out[0] if one_d else out

    def matrix(self) -> np.ndarray:
        """The dense ``D × D`` matrix of ``R`` (for tests and small pictures only)."""
        # row j of the result is R^T e_j, i.e. row j of R
        return self.inverse(np.eye(self.dim), keep_padding=True)

    def __repr__(self) -> str:
        return f"RandomizedHadamard(d={self.d}, D={self.dim}, rounds={self.rounds})"
