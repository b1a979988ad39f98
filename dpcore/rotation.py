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
so for rows reshaped to ``(D1, D2)`` blocks

    H_D x  =  H_D1 · X · H_D2      (X the D1×D2 matrix of x, row-major).

We keep the whole sample in the layout ``(D1, n, D2)`` so both products are single large BLAS
matrix multiplications without any transposition between rounds:
``H_D1 @ A.reshape(D1, n*D2)`` and ``A.reshape(D1*n, D2) @ H_D2``. The cost per round is
``2 n D (D1 + D2)`` flops, ``O(n D sqrt(D))``, done by BLAS at full speed; the layout change costs one
strided copy in (fused with the first sign flip), and the last ``H_D1`` product is a batched
``matmul`` that writes the ``(n, D)`` layout directly.

References
----------
Huang, Liang, Yi. "Instance-optimal Mean Estimation Under Differential Privacy." NeurIPS 2021
(the rotation, three rounds). Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7;
specs/plan.md §5a and §9.11.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.linalg import hadamard

from dpcore._validation import RngLike, as_generator


def next_power_of_two(d: int) -> int:
    """Smallest power of two ``>= d`` (``d >= 1``)."""
    if int(d) < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}.")
    return 1 << (int(d) - 1).bit_length()


@lru_cache(maxsize=32)
def _normalised_hadamard(size: int) -> np.ndarray:
    h = hadamard(size).astype(float) / np.sqrt(size)
    h.setflags(write=False)
    return h


def _factor(D: int) -> tuple[int, int]:
    """``D = D1 * D2`` with ``D1 >= D2`` powers of two as equal as possible."""
    k = D.bit_length() - 1
    k1 = (k + 1) // 2
    return 1 << k1, 1 << (k - k1)


def _hadamard_blocks(A: np.ndarray, B: np.ndarray, D1: int, D2: int) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``H_D = H_D1 ⊗ H_D2`` to every row held in layout ``A`` of shape ``(D1, n, D2)``.

    Uses ``B`` (same shape) as workspace; returns ``(result, free_buffer)``.
    """
    n = A.shape[1]
    if D1 > 1:
        np.matmul(_normalised_hadamard(D1), A.reshape(D1, n * D2), out=B.reshape(D1, n * D2))
        A, B = B, A
    if D2 > 1:
        np.matmul(A.reshape(D1 * n, D2), _normalised_hadamard(D2), out=B.reshape(D1 * n, D2))
        A, B = B, A
    return A, B


def hadamard_transform(x: np.ndarray) -> np.ndarray:
    """Normalised Walsh–Hadamard transform of each row of ``x`` (last axis a power of two).

    ``hadamard_transform(hadamard_transform(x)) == x`` up to rounding; norms are preserved.
    """
    arr = np.asarray(x, dtype=float)
    one_d = arr.ndim == 1
    X = arr.reshape(1, -1) if one_d else arr
    n, D = X.shape
    if D != next_power_of_two(D):
        raise ValueError(f"the last axis of x must have a power-of-two length; got {D}. Zero-pad first.")
    D1, D2 = _factor(D)
    A = np.ascontiguousarray(X.reshape(n, D1, D2).transpose(1, 0, 2))
    out, _ = _hadamard_blocks(A, np.empty_like(A), D1, D2)
    res = out.transpose(1, 0, 2).reshape(n, D)
    return res[0].copy() if one_d else np.ascontiguousarray(res)


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
    Huang, Liang, Yi (NeurIPS 2021); specs/plan.md §5a, §9.11.
    """

    def __init__(self, d: int, *, rounds: int = 3, rng: RngLike = None) -> None:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ValueError(f"d must be a positive integer; got {d!r}.")
        if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
            raise ValueError(f"rounds must be a positive integer; got {rounds!r}.")
        self.d = int(d)
        self.dim = next_power_of_two(self.d)
        self.rounds = int(rounds)
        g = as_generator(rng)
        self.signs = np.where(g.random((self.rounds, self.dim)) < 0.5, -1.0, 1.0)
        self._D1, self._D2 = _factor(self.dim)

    # -- helpers -------------------------------------------------------------------------------
    def _to_layout(self, X: np.ndarray, sign: np.ndarray) -> np.ndarray:
        """Rows of ``X`` (n, width <= D) zero-padded to D, times ``sign``, in layout (D1, n, D2)."""
        n, width = X.shape
        D1, D2 = self._D1, self._D2
        A = np.empty((D1, n, D2))
        view = A.transpose(1, 0, 2)  # (n, D1, D2) view of the buffer
        if width == self.dim:
            np.multiply(X.reshape(n, D1, D2), sign.reshape(D1, D2), out=view)
        else:
            full, rest = divmod(width, D2)
            if full:
                np.multiply(X[:, : full * D2].reshape(n, full, D2), sign[: full * D2].reshape(full, D2),
                            out=view[:, :full, :])
            if full < D1:
                view[:, full:, :] = 0.0
                if rest:
                    np.multiply(X[:, full * D2:], sign[full * D2: width], out=view[:, full, :rest])
        return A

    def _check(self, x: np.ndarray, width: int, what: str) -> tuple[np.ndarray, bool]:
        arr = np.asarray(x, dtype=float)
        one_d = arr.ndim == 1
        X = arr.reshape(1, -1) if one_d else arr
        if X.ndim != 2 or X.shape[1] != width:
            raise ValueError(f"{what} must have {width} columns (last axis); got shape {arr.shape}.")
        return X, one_d

    # -- public --------------------------------------------------------------------------------
    def forward(self, x: np.ndarray) -> np.ndarray:
        """Rotate rows of ``x`` (shape ``(n, d)`` or ``(d,)``): returns ``(n, D)`` (or ``(D,)``)."""
        X, one_d = self._check(x, self.d, "x")
        n = X.shape[0]
        D1, D2 = self._D1, self._D2
        A = self._to_layout(X, self.signs[0])
        B = np.empty_like(A)
        for t in range(self.rounds - 1):
            if t > 0:
                A *= self.signs[t].reshape(D1, 1, D2)
            A, B = _hadamard_blocks(A, B, D1, D2)
        # Last round: H_D2 on the last axis, then H_D1 as a batched product that writes the
        # (n, D1, D2) = (n, D) layout directly (cheaper than a product plus a transposing copy).
        if self.rounds > 1:
            A *= self.signs[self.rounds - 1].reshape(D1, 1, D2)
        if D2 > 1:
            np.matmul(A.reshape(D1 * n, D2), _normalised_hadamard(D2), out=B.reshape(D1 * n, D2))
            A, B = B, A
        del B
        out = np.matmul(_normalised_hadamard(D1), A.transpose(1, 0, 2)).reshape(n, self.dim)
        return out[0] if one_d else out

    def inverse(self, y: np.ndarray, *, keep_padding: bool = False) -> np.ndarray:
        """Rotate back: ``R^T y`` for rows of ``y`` (shape ``(n, D)`` or ``(D,)``).

        Returns the first ``d`` coordinates (or all ``D`` with ``keep_padding=True``; for rotated
        real vectors the padded coordinates come back as zeros up to rounding).
        """
        Y, one_d = self._check(y, self.dim, "y")
        n = Y.shape[0]
        D1, D2 = self._D1, self._D2
        A = self._to_layout(Y, np.ones(self.dim))
        B = np.empty_like(A)
        for t in range(self.rounds - 1, -1, -1):
            A, B = _hadamard_blocks(A, B, D1, D2)
            A *= self.signs[t].reshape(D1, 1, D2)
        out = np.ascontiguousarray(A.transpose(1, 0, 2)).reshape(n, self.dim)
        if not keep_padding:
            out = np.ascontiguousarray(out[:, : self.d])
        return out[0] if one_d else out

    def matrix(self) -> np.ndarray:
        """The dense ``D × D`` matrix of ``R`` (for tests and small pictures only)."""
        # row j of the result is R^T e_j, i.e. row j of R
        return self.inverse(np.eye(self.dim), keep_padding=True)

    def __repr__(self) -> str:
        return f"RandomizedHadamard(d={self.d}, D={self.dim}, rounds={self.rounds})"
