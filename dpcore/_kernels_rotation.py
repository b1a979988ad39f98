"""Compiled randomised Walsh–Hadamard rotation of rows (numba, imported on first use).

:func:`randomized_hadamard_rows` computes ``out[j] = scale * H_D D_T ... H_D D_1 (x_j - c)``
(zero padded to ``D``, ``H_D`` the unnormalised ±1 Walsh–Hadamard matrix) for every row, the
rotation of :class:`dpcore.rotation.RandomizedHadamard` written as rows ``(n, D)``.

Rows are taken :data:`LANES` at a time into a ``(D, LANES)`` buffer (one cache line per rotated
coordinate, 128 KB at ``D = 2048``: it stays in the core's L2 cache for the whole transform), so
every butterfly ``(a, b) -> (a + b, a - b)`` acts on two whole lines and compiles to vector
instructions at every stage, the first ones too (a row held alone would need shuffles for the
stages of span 1 and 2). Two stages are done per pass (radix 4: the same additions as two
radix-2 stages, in the same order), and each round's sign flip is applied as the buffer is
first read, so a round reads and writes the buffer ``ceil(log2 D / 2)`` times. The sums are the
transform's exact ``± a_i`` terms added in another order than the BLAS products of the numpy
path, so results differ from it in their last bits only; inputs on a dyadic grid (binary data
minus its box centre) give the same exact values.

Nothing here draws a random number or touches a budget. The caller
(:meth:`dpcore.rotation.RandomizedHadamard.forward`) uses the kernel for arrays of at least
:data:`dpcore._kernels.MIN_SIZE` values, so a small run never imports numba.

References
----------
docs/speed.md ("IOME, round 4": what this replaces and what it saves).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

#: Rows rotated together: one 64-byte cache line of doubles per rotated coordinate.
LANES = 8


def randomized_hadamard_rows(
    X: np.ndarray, center: np.ndarray, signs: np.ndarray, scale: float, out: np.ndarray
) -> None:
    """Write ``scale * H D_T ... H D_1 (x_j - center)`` (zero padded) into ``out[j]`` for every
    row ``x_j`` of ``X`` (n, d); ``signs`` (T, D) holds the diagonals ``D_t`` (entries ±1),
    ``out`` is a C-contiguous (n, D) array. Compiles on its first call."""
    _kernel()(X, center, np.repeat(signs, LANES, axis=1), float(scale), out)


#: Held while the helpers are replaced by their compiled versions: two threads rotating a large
#: array at once (Home's warm-up and a page's run) must not both replace them.
_COMPILING = threading.Lock()


def _kernel() -> Callable[..., Any]:
    """Compile the kernel and its helpers once (numba reads the helpers' global names when it
    compiles the kernel, so they are replaced by their compiled versions first, under a lock)."""
    with _COMPILING:
        return _compile()


@cache
def _compile() -> Callable[..., Any]:
    from dpcore._kernels import numba  # noqa: PLC0415 - numba itself is imported on first use

    jit = numba().njit(cache=True, nogil=True)  # no fastmath: every sum in the order written
    g = globals()
    names = ("_load", "_store", "_radix2", "_radix4", "_first_pass", "_hadamard")
    # from the plain functions, all replaced in one step: a call cut short here (a stopped pool
    # job) leaves every helper plain or every one compiled, and the next call starts afresh
    g.update({name: jit(getattr(g[name], "py_func", g[name])) for name in names})
    return jit(_rows)


def _rows(X: Any, center: Any, sg: Any, scale: float, out: Any) -> None:
    """The kernel: chunks of :data:`LANES` rows, loaded, rotated ``T`` times, stored."""
    n, D = out.shape
    buf = np.zeros(D * LANES)  # coordinate k of row j0 + i at buf[k * LANES + i]
    for j0 in range(0, n, LANES):
        m = min(LANES, n - j0)
        _load(X, center, buf, j0, m)
        for t in range(sg.shape[0]):
            _hadamard(buf, sg[t])
        _store(buf, out, j0, m, scale)


def _load(X: Any, center: Any, buf: Any, j0: int, m: int) -> None:
    """``buf`` = rows ``j0 .. j0 + m`` of ``X`` minus ``center`` as columns, zero padded (whole
    8 x 8 blocks where it can: the compiler transposes those in registers)."""
    d, L = X.shape[1], LANES
    if m == L and d % L == 0:
        for kb in range(0, d, L):
            for i in range(L):
                for kk in range(L):
                    buf[(kb + kk) * L + i] = X[j0 + i, kb + kk] - center[kb + kk]
    else:
        buf[:] = 0.0
        for k in range(d):
            for i in range(m):
                buf[k * L + i] = X[j0 + i, k] - center[k]
    buf[d * L :] = 0.0


def _store(buf: Any, out: Any, j0: int, m: int, scale: float) -> None:
    """Rows ``j0 .. j0 + m`` of ``out`` = the columns of ``buf`` times ``scale``."""
    for k in range(out.shape[1]):
        for i in range(m):
            out[j0 + i, k] = buf[k * LANES + i] * scale


def _hadamard(buf: Any, sg: Any) -> None:
    """The unnormalised transform of every column of ``buf`` after the sign flip ``sg`` (the
    diagonal repeated per lane), in place: stages of span ``h = 1, 2, 4, ...`` (``h LANES``
    values apart), two per pass (radix 4), the last alone when ``log2 D`` is odd. The first pass
    applies the signs as it reads (``(x - c) s`` is exact: the same values as a separate flip)."""
    n, h = buf.size, 4 * LANES
    if n < h:  # D = 1 or 2: the flip, then at most one stage
        for q in range(n):
            buf[q] *= sg[q]
        if n == 2 * LANES:
            _radix2(buf, LANES)
        return
    _first_pass(buf, sg)
    while 4 * h <= n:
        _radix4(buf, h)
        h *= 4
    if 2 * h == n:
        _radix2(buf, h)


def _first_pass(buf: Any, sg: Any) -> None:
    """The stages of span 1 and 2 on sign-flipped values (radix 4, a fixed trip count)."""
    h = LANES
    for p in range(0, buf.size, 4 * h):
        b0, b1 = buf[p : p + h], buf[p + h : p + 2 * h]
        b2, b3 = buf[p + 2 * h : p + 3 * h], buf[p + 3 * h : p + 4 * h]
        s0, s1 = sg[p : p + h], sg[p + h : p + 2 * h]
        s2, s3 = sg[p + 2 * h : p + 3 * h], sg[p + 3 * h : p + 4 * h]
        for q in range(h):
            a0, a1, a2, a3 = b0[q] * s0[q], b1[q] * s1[q], b2[q] * s2[q], b3[q] * s3[q]
            s01, d01, s23, d23 = a0 + a1, a0 - a1, a2 + a3, a2 - a3
            b0[q], b1[q] = s01 + s23, d01 + d23
            b2[q], b3[q] = s01 - s23, d01 - d23


def _radix4(buf: Any, h: int) -> None:
    """The stages of span ``h`` and ``2 h`` (in values): the same sums as two radix-2 passes."""
    for p in range(0, buf.size, 4 * h):
        b0, b1 = buf[p : p + h], buf[p + h : p + 2 * h]
        b2, b3 = buf[p + 2 * h : p + 3 * h], buf[p + 3 * h : p + 4 * h]
        for q in range(h):
            a0, a1, a2, a3 = b0[q], b1[q], b2[q], b3[q]
            s01, d01, s23, d23 = a0 + a1, a0 - a1, a2 + a3, a2 - a3
            b0[q], b1[q] = s01 + s23, d01 + d23
            b2[q], b3[q] = s01 - s23, d01 - d23


def _radix2(buf: Any, h: int) -> None:
    """The stage of span ``h`` (in values) on a buffer of ``2 h`` values."""
    b0, b1 = buf[:h], buf[h:]
    for q in range(h):
        a, b = b0[q], b1[q]
        b0[q], b1[q] = a + b, a - b
