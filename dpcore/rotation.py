"""The randomised Walsh–Hadamard rotation used by IOME, as a fast transform (never a d×d matrix).

A vector ``x`` in ``R^d`` is zero-padded to ``R^D`` (``D`` the next power of two) and rotated by

    R = (H D_3)(H D_2)(H D_1),

with ``H`` the normalised Walsh–Hadamard matrix of size ``D`` (``H = H^T = H^{-1}``, entries
``±1/sqrt(D)``) and ``D_t`` independent uniformly random ``±1`` diagonal matrices. ``R`` is orthogonal,
so ``R^{-1} = R^T = (D_1 H)(D_2 H)(D_3 H)``; zero padding keeps every l2 norm.

Speed
-----
A butterfly FWHT written in numpy makes ``log2 D`` passes over the data with poor locality. Instead,
with ``D = F_1 * ... * F_k`` (powers of two of at most 16, e.g. ``2048 = 8 * 16 * 16``), the
Sylvester construction gives ``H_D = H_F1 ⊗ ... ⊗ H_Fk``: for a vector held as an
``F_1 × ... × F_k`` array (row-major), ``H_D`` applies ``H_Fa`` along each axis ``a`` in turn.

The sample is transformed in chunks of ``m`` vectors held as the columns of a ``(D, m)`` buffer;
``H_Fa`` is then one batched product ``(F_a, F_a) @ (F_a, rest)`` over the axes before ``a``
(contiguous reshapes, no copies), and the round's sign flip ``D_t`` is folded into its first
product (``S_F diag(s)`` per block: the same exact terms). The products use the ±1 matrices and
the result is normalised once at the end, so dyadic inputs (such as binary data) rotate exactly
and the same on every CPU, whatever order its BLAS kernel adds in. A round costs
``2 D (F_1 + ... + F_k)`` flops per vector (``O(D log D)`` with factors of bounded size; 640
multiply-adds per coordinate at ``D = 2048`` against 1,536 with two factors ``64 * 32``), done
by BLAS kernels at near their peak rate; a pure-numpy butterfly does fewer flops but runs them
at the speed of elementwise passes, several times slower here. The chunk width keeps every
product at most ``2^19`` multiply-adds, so OpenBLAS runs it on one thread: on a loaded machine
(2 shared cores) multi-threaded small products were up to 10x slower than single-threaded ones
(thread hand-offs wait for busy cores), while one thread runs about as fast as two idle ones on
these sizes. The data are read once (transposed into the chunk, with an optional centre
subtracted) and written once, as rows ``(n, D)`` (:meth:`RandomizedHadamard.forward`) or as
columns ``(D, n)`` (:meth:`RandomizedHadamard.forward_columns`).

On arrays of at least :data:`dpcore._kernels.MIN_SIZE` values :meth:`RandomizedHadamard.forward`
runs a compiled butterfly instead (:mod:`dpcore._kernels_rotation`: eight rows at a time, so
every butterfly is a vector operation; about three times faster than the products at
``(10^4, 2048)``, docs/speed.md "IOME, round 4"). It adds the same exact ``± a_i`` terms in
another order: the two agree to the last bits, and bit for bit on dyadic inputs.

References
----------
Huang, Liang, Yi. "Instance-optimal Mean Estimation Under Differential Privacy." NeurIPS 2021
(the rotation, three rounds). Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7;
docs/estimators/plan.md §5a and §9.11.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache

import numpy as np
from scipy.linalg import hadamard

from dpcore import _kernels
from dpcore._validation import RngLike
from dpcore.mechanisms import generator

#: Vectors transformed together at most (a ``(D, 128)`` buffer stays in cache up to D ~ 2^12)...
CHUNK = 128
#: ... or, for small ``D``, as many as fill this many values (a ``(32, 2048)`` chunk: one chunk
#: of 2,000 vectors instead of 16, about 0.2 ms less per rotation at d = 32). A column's values
#: are sums over the factor's rows only; on this machine's BLAS the chunk's width changed no
#: rotated value (== at d from 3 to 2048, widths 128 to 4096: tests/core/test_rotation_chunks.py).
_CHUNK_VALUES = 1 << 16
#: Each Sylvester factor of ``H_D`` has at most ``2^FACTOR_BITS`` rows (16): see "Speed" above.
FACTOR_BITS = 4
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


def _factors(D: int) -> tuple[int, ...]:
    """``D = F_1 * ... * F_k``: powers of two of at most ``2^FACTOR_BITS`` each, as equal as
    possible, the smallest first (``2048 = 8 * 16 * 16``; ``D = 1`` gives ``(1,)``)."""
    bits = D.bit_length() - 1
    k = max(1, -(-bits // FACTOR_BITS))
    return tuple(1 << (bits // k + (i >= k - bits % k)) for i in range(k))


def _signed(signs: np.ndarray, factors: tuple[int, ...]) -> np.ndarray:
    """The first product of a round with its sign flip folded in: ``S_F diag(s_p)`` for each of
    the ``D / F`` blocks ``p`` of the last factor ``F`` (shape ``(D / F, F, F)``, entries ±1).
    ``(S_F diag(s)) a`` adds the same exact terms ``± a_i`` as ``S_F (s * a)``."""
    F = factors[-1]
    return _sylvester(F)[None, :, :] * signs.reshape(-1, F)[:, None, :]


def _hadamard_columns(
    A: np.ndarray, B: np.ndarray, factors: tuple[int, ...], first: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The unnormalised ``sqrt(D) H_D = S_F1 ⊗ ... ⊗ S_Fk`` (entries ±1) applied to every column
    of the ``(D, m)`` chunk held in the flat buffer ``A``; ``B`` (same size) is workspace.
    Returns ``(result, workspace)``: the two buffers, in the order they now hold.

    Viewing a column as a ``F1 × ... × Fk`` array, ``S_Fa`` acts on axis ``a``: one batched
    product ``(Fa, Fa) @ (Fa, rest)`` over the leading axes. ``first`` (from :func:`_signed`)
    replaces ``S_Fk`` in the first product to apply a sign flip with it. With ±1 entries every
    product is exact, so inputs on a dyadic grid (binary data minus its box centre) give exact
    sums in whatever order the BLAS kernel of the CPU adds them: a rotated coordinate that is 0
    in exact arithmetic is 0.0 on every machine, and a comparison with a search's midpoint at 0
    goes the same way everywhere. The callers normalise once, by :func:`_scale`, after the last
    round.
    """
    last = len(factors) - 1
    for a in range(last, -1, -1):
        F, outer = factors[a], math.prod(factors[:a])  # axis a's length, the axes before it
        S = first if first is not None and a == last else _sylvester(F)
        np.matmul(S, A.reshape(outer, F, -1), out=B.reshape(outer, F, -1))
        A, B = B, A
    return A, B


def _chunks(n: int, D: int) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """Yield ``(start, m, A, B)``: chunks of ``m`` vectors (at most ``CHUNK``, or
    ``_CHUNK_VALUES // D`` when that is more, and within one single-thread product) and two flat
    buffers of ``D * m`` values (the chunk as ``(D, m)`` columns, and workspace)."""
    width = max(
        1, min(max(CHUNK, _CHUNK_VALUES // D), n, _SINGLE_THREAD_MNK // (_factors(D)[0] * D))
    )
    bufA, bufB = np.empty(D * width), np.empty(D * width)
    for j in range(0, n, width):
        m = min(width, n - j)
        yield j, m, bufA[: D * m], bufB[: D * m]


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
    out, factors = np.empty((n, D)), _factors(D)
    for j, m, A, B in _chunks(n, D):
        A.reshape(D, m)[...] = X[j : j + m].T
        A, _ = _hadamard_columns(A, B, factors)
        out[j : j + m] = A.reshape(D, m).T
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
        self._factors = _factors(self.dim)
        # each round's first product with its sign flip folded in (forward: D_t then H)
        self._first = [_signed(sg, self._factors) for sg in self.signs]
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

    def _centre(self, center: np.ndarray | None) -> np.ndarray | None:
        return (
            None if center is None else np.broadcast_to(np.asarray(center, dtype=float), (self.d,))
        )

    def _forward_chunks(self, X: np.ndarray, center: np.ndarray | None, rows: bool) -> np.ndarray:
        """``R (x_j - center)`` for every row, by BLAS products on ``(D, m)`` chunks: returned
        as rows ``(n, D)`` or as columns ``(D, n)`` (the same values either way)."""
        n, d, D = X.shape[0], self.d, self.dim
        shift = None if center is None else center[:, None]
        out = np.empty((n, D) if rows else (D, n))
        for j, m, A, B in _chunks(n, D):
            cols = A.reshape(D, m)  # the chunk's vectors as columns, zero padded
            if shift is None:
                cols[:d] = X[j : j + m].T
            else:
                np.subtract(X[j : j + m].T, shift, out=cols[:d])
            cols[d:] = 0.0
            for t in range(self.rounds):  # H D_t, unnormalised, D_t folded into the first product
                A, B = _hadamard_columns(A, B, self._factors, self._first[t])
            if rows:
                np.multiply(A.reshape(D, m).T, self._scale, out=out[j : j + m])
            else:
                np.multiply(A.reshape(D, m), self._scale, out=out[:, j : j + m])
        return out

    def forward_columns(self, x: np.ndarray, *, center: np.ndarray | None = None) -> np.ndarray:
        """``R (x_j - center)`` for every row ``x_j`` of ``x`` (n, d), returned as columns: shape ``(D, n)``.

        Row ``k`` of the result holds rotated coordinate ``k`` of all ``n`` vectors (the transpose
        of :meth:`forward`, computed without a transposing copy).
        """
        X, _ = self._check(x, self.d, "x")
        return self._forward_chunks(X, self._centre(center), rows=False)

    def forward(self, x: np.ndarray, *, center: np.ndarray | None = None) -> np.ndarray:
        """Rotate rows of ``x`` (shape ``(n, d)`` or ``(d,)``), minus ``center`` when given:
        ``R (x_j - center)`` as C-contiguous rows ``(n, D)`` (or ``(D,)``).

        Arrays of at least :data:`dpcore._kernels.MIN_SIZE` values go through the compiled
        butterfly transform (:func:`dpcore._kernels_rotation.randomized_hadamard_rows`, about
        three times faster at ``(10^4, 2048)``); smaller ones through the BLAS chunks. The two
        add the same exact ``± a_i`` terms in another order: equal up to the last bits.
        """
        X, one_d = self._check(x, self.d, "x")
        shift = self._centre(center)
        if _kernels.use_kernels(X):
            from dpcore import _kernels_rotation  # noqa: PLC0415 - numba only on large arrays

            out = np.empty((X.shape[0], self.dim))
            c = np.zeros(self.d) if shift is None else np.ascontiguousarray(shift)
            _kernels_rotation.randomized_hadamard_rows(
                np.ascontiguousarray(X), c, self.signs, self._scale, out
            )
        else:
            out = self._forward_chunks(X, shift, rows=True)
        return out[0] if one_d else out

    def inverse(self, y: np.ndarray, *, keep_padding: bool = False) -> np.ndarray:
        """Rotate back: ``R^T y`` for rows of ``y`` (shape ``(n, D)`` or ``(D,)``).

        Returns the first ``d`` coordinates (or all ``D`` with ``keep_padding=True``; for rotated
        real vectors the padded coordinates come back as zeros up to rounding).
        """
        Y, one_d = self._check(y, self.dim, "y")
        n, D = Y.shape[0], self.dim
        width = D if keep_padding else self.d
        out = np.empty((n, width))
        signs = self.signs[:, :, None]
        for j, m, A, B in _chunks(n, D):
            A.reshape(D, m)[...] = Y[j : j + m].T
            for t in range(self.rounds - 1, -1, -1):  # D_t H, unnormalised
                A, B = _hadamard_columns(A, B, self._factors)
                A.reshape(D, m)[...] *= signs[t]
            np.multiply(A.reshape(D, m)[:width].T, self._scale, out=out[j : j + m])
        return out[0] if one_d else out

    def matrix(self) -> np.ndarray:
        """The dense ``D × D`` matrix of ``R`` (for tests and small pictures only)."""
        # row j of the result is R^T e_j, i.e. row j of R
        return self.inverse(np.eye(self.dim), keep_padding=True)

    def __repr__(self) -> str:
        return f"RandomizedHadamard(d={self.d}, D={self.dim}, rounds={self.rounds})"
