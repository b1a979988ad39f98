"""Compiled one-pass kernels for the large passes of PLAN and IOME (numba, imported on first use).

Each kernel does in one read of the data what the numpy code did in several passes over blocks
(differences, squares, norms, clip factors, sums): at (n, d) = (10^4, 2048) one numpy pass costs
0.04-0.08 s of CPU while reading the array once costs about 0.015 s (docs/speed.md, "Round 3").
Every kernel computes the same formula as the numpy code it replaces, with the same operations
in the same order per value; only sums over many terms are added in another order (the kernels
allow reassociation in their sums, so the compiler can add in vector lanes), which moves a
result in its last bits. Nothing here draws a random number or touches a budget: the callers pass
the results to :mod:`dpcore.mechanisms` as before.

The kernels are plain Python functions wrapped by :func:`_compiled`, which imports numba and
compiles them the first time one is called (``cache=True``: the machine code is written next to
this file, so a later process loads it instead of compiling). A process that never calls them
never imports numba. The callers use them only for arrays of at least :data:`MIN_SIZE` values;
below that the numpy code runs (it is as fast there, and a small run pays no import).

Compiling all of them takes a few seconds of CPU once per machine (then numba's cache is read).
A server warms the cache before it serves (:func:`warm_up`, ``python -m dpcore._kernels``;
deploy/README.md), so no student's first large run waits for the compiler.

References
----------
deploy/README.md ("Before serving: the compiled kernels").
docs/speed.md ("Round 3": what each kernel replaces and what it saves).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

#: Smallest array (values) for which the callers use a kernel instead of numpy.
MIN_SIZE = 1 << 18
#: Pairs of columns of a ``(d, n)`` array handled together by :func:`pair_distances_columns`
#: (their ``n // 2`` partial sums stay in cache while the strip's ``d`` rows are read).
STRIP = 64
#: Rows of a block in :func:`clipped_sum_rows` (their differences, ``ROW_BLOCK d`` values, stay in
#: the L1 cache up to ``d = 1024``).
ROW_BLOCK = 4
#: Flags of the compiled sums: reassociation only (no assumptions about NaN or infinity).
_FASTMATH = {"reassoc"}


def _compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` compiled by ``numba.njit(cache=True, nogil=True)`` with reassociated sums
    (:data:`_FASTMATH`) on its first call (lazily, so importing this module does not import
    numba). ``wrapper.py_func`` is the plain function."""
    return _lazy(fn, _FASTMATH)


def exact_compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """As :func:`_compiled`, without fast-math: every operation exact IEEE, in the order written
    (the PMWM and quantile kernels, whose results must equal the numpy code's)."""
    return _lazy(fn, False)


#: Held while numba is first imported and each kernel is wrapped: two threads of one process
#: (Home's warm-up and a page's run) import it one after the other. (A partly initialised numba
#: breaks every later compiled call of its process; the case met in the app was a pool job stopped
#: mid-import, which :mod:`dpcore.pool` now never does.)
NUMBA_IMPORT = threading.RLock()


def numba() -> Any:
    """The numba module, imported under :data:`NUMBA_IMPORT` (every lazy kernel imports it here)."""
    with NUMBA_IMPORT:
        import numba as nb  # noqa: PLC0415 - deferred on purpose: see the module docstring

        return nb


def _lazy(fn: Callable[..., Any], fastmath: set[str] | bool) -> Callable[..., Any]:
    """``fn`` behind a wrapper that compiles it with ``fastmath`` on the first call."""
    jitted: list[Callable[..., Any]] = []

    def wrapper(*args: Any) -> Any:
        if not jitted:
            with NUMBA_IMPORT:
                if not jitted:
                    jitted.append(numba().njit(cache=True, nogil=True, fastmath=fastmath)(fn))
        return jitted[0](*args)

    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    wrapper.py_func = fn  # type: ignore[attr-defined]
    return wrapper


def use_kernels(*arrays: np.ndarray) -> bool:
    """Whether the arrays are large enough for the kernels (:data:`MIN_SIZE` values in all)."""
    return sum(a.size for a in arrays) >= MIN_SIZE


@_compiled
def clipped_sum_rows(Y: np.ndarray, s: np.ndarray, c: np.ndarray, R: float) -> np.ndarray:
    """``sum_j min(1, R / ||y_j||) y_j`` with ``y_j = Y[j] * s - c`` (one CoinPress step on rows;
    ``s`` all ones for no scaling: ``x * 1.0 == x``). One read of ``Y``, :data:`ROW_BLOCK` rows at
    a time: each row's differences are formed once in a buffer of ``d`` values with its norm, then
    the block's rows add their shares to the sum, row after row (the same additions in the same
    order as one row at a time; the block only shortens the loops' dependency chains)."""
    n, d = Y.shape
    total = np.zeros(d)
    diff = np.empty((ROW_BLOCK, d))
    f = np.empty(ROW_BLOCK)
    for j0 in range(0, n, ROW_BLOCK):
        m = min(ROW_BLOCK, n - j0)
        for i in range(m):
            row, buf = Y[j0 + i], diff[i]
            ss = 0.0
            for k in range(d):
                v = row[k] * s[k] - c[k]
                buf[k] = v
                ss += v * v
            f[i] = min(1.0, R / max(math.sqrt(ss), 1e-300))
        for i in range(m):
            fi, buf = f[i], diff[i]
            for k in range(d):
                total[k] += fi * buf[k]
    return total


@_compiled
def centred_norms_columns(Y: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``||y_j - c||`` for the columns ``y_j`` of ``Y`` (d, n): one sequential read of ``Y``, the
    ``n`` squared norms growing row by row."""
    d, n = Y.shape
    out = np.zeros(n)
    for k in range(d):
        ck = c[k]
        for j in range(n):
            v = Y[k, j] - ck
            out[j] += v * v
    return np.sqrt(out)


@_compiled
def weighted_sum_columns(Y: np.ndarray, c: np.ndarray, f: np.ndarray) -> np.ndarray:
    """``sum_j f_j (y_j - c)`` for the columns ``y_j`` of ``Y`` (d, n): one sequential read."""
    d, n = Y.shape
    total = np.empty(d)
    for k in range(d):
        ck = c[k]
        acc = 0.0
        for j in range(n):
            acc += f[j] * (Y[k, j] - ck)
        total[k] = acc
    return total


def clipped_sum_columns(Y: np.ndarray, c: np.ndarray, R: float) -> np.ndarray:
    """``sum_j min(1, R / ||y_j - c||) (y_j - c)`` for the columns ``y_j`` of ``Y`` (d, n): one
    CoinPress step in IOME's layout, as two sequential reads (the norms, then the weighted sum;
    in this layout two streams run faster than one pass over strips of columns)."""
    f = np.minimum(1.0, R / np.maximum(centred_norms_columns(Y, c), 1e-300))
    return weighted_sum_columns(Y, c, f)


@_compiled
def pair_distances_rows(Y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``||Y[2i] * s - Y[2i + 1] * s||`` for the ``n // 2`` disjoint pairs of consecutive rows."""
    m, d = Y.shape[0] // 2, Y.shape[1]
    out = np.empty(m)
    for i in range(m):
        ss = 0.0
        for k in range(d):
            v = Y[2 * i, k] * s[k] - Y[2 * i + 1, k] * s[k]
            ss += v * v
        out[i] = math.sqrt(ss)
    return out


@_compiled
def pair_distances_columns(Y: np.ndarray) -> np.ndarray:
    """``||y_{2i} - y_{2i+1}||`` for the ``n // 2`` disjoint pairs of consecutive columns of ``Y``."""
    d, m = Y.shape[0], Y.shape[1] // 2
    out = np.zeros(m)
    for start in range(0, m, STRIP):
        w = min(STRIP, m - start)
        for k in range(d):
            for i in range(w):
                v = Y[k, 2 * (start + i)] - Y[k, 2 * (start + i) + 1]
                out[start + i] += v * v
    return np.sqrt(out)


@_compiled
def scaled_norms(X: np.ndarray, mu: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``||(X[j] - mu) * s||`` for every row ``j`` (PLAN's scaled norms; with ``s`` all ones the
    norms ``||X[j] - mu||``, as ``(x - mu) * 1.0 == x - mu``)."""
    n, d = X.shape
    out = np.empty(n)
    for j in range(n):
        ss = 0.0
        for k in range(d):
            v = (X[j, k] - mu[k]) * s[k]
            ss += v * v
        out[j] = math.sqrt(ss)
    return out


@_compiled
def scaled_weighted_sum(X: np.ndarray, mu: np.ndarray, s: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``sum_j w_j (X[j] - mu) * s`` (PLAN's clipped sum, ``w_j`` the clip factors)."""
    n, d = X.shape
    total = np.zeros(d)
    for j in range(n):
        wj = w[j]
        for k in range(d):
            total[k] += wj * ((X[j, k] - mu[k]) * s[k])
    return total


@_compiled
def half_squared_pair_diffs(X: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``(X[a] - X[b])^2 / 2`` per coordinate for the pairs ``a = first[i]``, ``b = second[i]``:
    Algorithm 2's pair statistics, gathered, subtracted, squared and halved in one pass."""
    m, d = first.size, X.shape[1]
    out = np.empty((m, d))
    for i in range(m):
        a, b = first[i], second[i]
        for k in range(d):
            v = X[a, k] - X[b, k]
            out[i, k] = v * v * 0.5
    return out


#: Every bit of a float64 but its sign, as an int64 mask.
_MAGNITUDE_BITS = 0x7FFF_FFFF_FFFF_FFFF


@exact_compiled
def max_magnitude_bits(bits: np.ndarray) -> int:
    """The largest ``|v|`` of a float64 array, read through its int64 view ``bits`` (1-D) in one
    pass, as the bits of that float (``0`` for an empty array).

    With the sign bit cleared, the bits of non-negative floats order as the floats do, and an
    infinity or a NaN has larger bits than every finite value: the result, viewed as a float, is
    exactly ``max(x.max(), -x.min())`` when every value is finite, and infinite or NaN as soon as
    one value is infinite or NaN (the data check's two reductions in one read of integer maxima,
    which the compiler vectorises)."""
    top = 0
    for i in range(bits.size):
        top = max(top, bits[i] & _MAGNITUDE_BITS)
    return top


def warm_up() -> list[str]:
    """Compile every kernel (or load it from numba's cache) for the argument types the
    estimators pass: ``float64`` C-ordered arrays, a ``float`` radius, and ``int64`` index slices
    (every other index of a permutation) for the pairs. Returns the kernels' names."""
    Y, v, index = np.ones((4, 4)), np.ones(4), np.arange(4)
    calls: dict[Callable[..., Any], tuple[Any, ...]] = {
        clipped_sum_rows: (Y, v, v, 1.0),
        centred_norms_columns: (Y, v),
        weighted_sum_columns: (Y, v, v),
        pair_distances_rows: (Y, v),
        pair_distances_columns: (Y,),
        scaled_norms: (Y, v, v),
        scaled_weighted_sum: (Y, v, v, v),
        half_squared_pair_diffs: (Y, index[0::2], index[1::2]),
        max_magnitude_bits: (v.view(np.int64),),
    }
    for kernel, args in calls.items():
        kernel(*args)
    return [kernel.__name__ for kernel in calls]


if __name__ == "__main__":  # python -m dpcore._kernels: the deploy's warm-up step
    import time

    start = time.process_time()
    names = warm_up()
    print(f"{len(names)} kernels ready in {time.process_time() - start:.1f} s of CPU")
