"""Compiled one-pass kernels for PMWM: the quantile walks' grid histograms and the winsorised mean.

PMWM's quantile walks need, per column, how many values fall between consecutive points of the
geometric grid ``g_i = lo + beta**i - 1`` (docs/estimators/winsorized.md §2.6). The numpy code
(:func:`dpcore.quantiles.unbounded._bin_index`) computes every value's grid index with a
``log1p`` and two look-ups, block by block, then counts the indices with ``bincount``; that was
most of PMWM's time (docs/speed.md, "PMWM, round 3"). :func:`grid_hist` does it in one read of
the data without a transcendental: near a column's data the grid is almost regular, so the index
is guessed from a straight line through the column's extremes, then checked against the grid
points as actually computed (``lo + (beta**i - 1)``, the same float additions as the numpy code)
and, where the guess is off, found by a binary search between the indices of the column's
extremes. A column with at most :data:`LEVELS` grid points inside its range (most columns at
small ``d``: a grid step of about 6 against spreads of a few tens) is instead counted against
each of those points, a plain comparison per value and point (docs/speed.md, "PMWM, round 5").
The result is exact: the index ``b`` with ``g_b <= x < g_{b+1}``, the one
``searchsorted(side="right")`` gives, whatever the guess. :func:`winsorise` clips, counts and
sums in one read, adding the values in the order the numpy code adds them (row by row within
blocks of rows, the blocks' sums added in turn), so its mean is the same
double. Nothing here draws a random number or touches a budget.

As in :mod:`dpcore._kernels`, numba is imported and the kernels compiled on first use
(``cache=True``), and the callers use them only for arrays of at least
:data:`dpcore._kernels.MIN_SIZE` values. Unlike there, no fast-math flag is set: every operation
is the IEEE one the numpy code does.

References
----------
docs/speed.md ("PMWM, round 4", "PMWM, round 5"); docs/estimators/winsorized.md §2.6.
"""

from __future__ import annotations

import numpy as np

from dpcore._kernels import exact_compiled


@exact_compiled
def column_extremes(X: np.ndarray) -> np.ndarray:
    """``[X.min(axis=0), X.max(axis=0)]`` (shape ``(2, m)``) in one read (finite data)."""
    n, m = X.shape
    out = np.empty((2, m))
    for j in range(m):
        out[0, j] = X[0, j]
        out[1, j] = X[0, j]
    for i in range(1, n):
        for j in range(m):
            v = X[i, j]
            if v < out[0, j]:
                out[0, j] = v
            if v > out[1, j]:
                out[1, j] = v
    return out


#: Columns with at most this many grid points inside their range are counted level by level in
#: :func:`grid_hist` (``top`` comparisons per value, no guess). Of 2, 4, 8 and 16, tried once each
#: at n = 10^4 and d = 64, 256, 2048, none was clearly the fastest everywhere.
LEVELS = 8


@exact_compiled
def grid_hist(
    X: np.ndarray,
    sign: float,
    G: np.ndarray,
    first: np.ndarray,
    top: np.ndarray,
    coef: np.ndarray,
    level_col: np.ndarray,
    level_at: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``h[first[j] + k] = #{i : G[first[j] + k] <= sign * X[i, j] < G[first[j] + k + 1]}`` for
    the columns with ``top[j] > LEVELS``, and ``#{i : sign * X[i, level_col[s]] >= level_at[s]}``
    for the levels ``s`` of the others (:func:`_level_columns` turns those into their bins).

    Column ``j``'s part of the flat ``G`` holds, from ``first[j]``, its grid points from the one
    at or below its smallest value (``-inf`` for none) to the one at or below its largest
    (``top[j] + 1`` points, non-decreasing), then ``+inf``; so every value has one ``k`` in
    ``0..top[j]``. (Flat and packed: the few points of every column stay in the fastest cache.)
    A column with ``top[j] = 0`` has all ``n`` values at ``k = 0`` and is not read. Up to
    ``LEVELS`` points, ``k`` is the number of the column's points ``G[first[j] + 1..top[j]]`` at
    or below the value (they are non-decreasing), so those columns are counted against each
    point (a plain comparison per value and point, the same ``k``). Elsewhere the guess, the
    parabola ``coef[j, 2] + (v - coef[j, 0]) * (coef[j, 3] + coef[j, 4] * (v - coef[j, 1]))``
    (clamped), only saves work: it is moved by one step where a neighbouring point decides, then
    checked; where it is still off, a binary search of the column's points finds ``k``. The common
    path has no data-dependent branch (indices are unsigned: no test for negative ones).
    """
    n, m = X.shape
    one = np.uint64(1)
    hist = np.zeros(G.size, dtype=np.int64)
    at_or_above = np.zeros(level_at.size, dtype=np.int64)
    live = np.flatnonzero(top > LEVELS)
    P = np.empty((live.size, 5))  # per guessed column, side by side: the guess's coefficients
    Q = np.empty((live.size, 3), dtype=np.uint64)  # its column, top and first
    for jj in range(live.size):
        j = live[jj]
        P[jj] = coef[j]
        Q[jj, 0], Q[jj, 1], Q[jj, 2] = j, top[j], first[j]
    for j in range(m):
        if top[j] == 0:
            hist[first[j]] = n
    for i in range(n):
        row = X[i]
        for s in range(level_at.size):
            at_or_above[s] += sign * row[level_col[s]] >= level_at[s]
        for jj in range(live.size):
            v = sign * row[Q[jj, 0]]
            t, o = Q[jj, 1], Q[jj, 2]
            f = P[jj, 2] + (v - P[jj, 0]) * (P[jj, 3] + P[jj, 4] * (v - P[jj, 1]))
            f = min(max(f, 0.0), float(t))
            k = o + np.uint64(np.int64(f if f == f else 0.0))
            k = k + np.uint64(v >= G[k + one]) - np.uint64(v < G[k])
            if k - o > t or v < G[k] or v >= G[k + one]:
                a, c = o, o + t  # the largest k with G[k] <= v (G[o] <= v always)
                while a < c:
                    mid = (a + c + one) // np.uint64(2)
                    if G[mid] <= v:
                        a = mid
                    else:
                        c = mid - one
                k = a
            hist[k] += 1
    return hist, at_or_above


def grid_histogram(
    xc: np.ndarray,
    ext: np.ndarray,
    lo: np.ndarray,
    gm1: np.ndarray,
    bmin: np.ndarray,
    bmax: np.ndarray,
    log_beta: float,
    sign: float,
    width: int,
) -> np.ndarray:
    """The walk's histogram ``h[j, b - bmin_j]`` (``(m, width)``) of
    :func:`dpcore.quantiles.unbounded._runs` by :func:`grid_hist`: each column's grid points
    ``g_b = lo + gm1[b - 1]`` (``gm1[i - 1] = beta**i - 1``) for ``b = bmin_j..bmax_j`` as
    :func:`dpcore.quantiles.unbounded._bin_index` computes them (``g_0 = -inf``), so the same
    exact grid indices; the guess is the parabola through the index scale
    ``log1p(x - lo) / log(beta)`` at the column's extremes ``ext`` (``(2, m)``, of
    ``sign * xc``) and their midpoint."""
    m = xc.shape[1]
    lows = np.broadcast_to(np.asarray(lo, dtype=float), (m,))
    kmax = gm1.size
    top = bmax - bmin
    first = np.cumsum(top + 2) - (top + 2)  # column j's points: first_j .. first_j + top_j + 1
    col = np.repeat(np.arange(m), top + 2)
    b = bmin[col] + np.arange(col.size) - first[col]  # the points' grid indices
    G = lows[col] + gm1[np.clip(b - 1, 0, kmax - 1)]
    G[b == 0] = -np.inf
    G[b > bmax[col]] = np.inf
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        xs = np.stack([ext[0], ext[0] + 0.5 * (ext[1] - ext[0]), ext[1]])
        f = np.log1p(np.maximum(xs - lows, 0.0)) / log_beta
        half = np.where(xs[1] > xs[0], xs[1] - xs[0], np.inf)  # divided differences
        slope = (f[1] - f[0]) / half
        curve = ((f[2] - f[1]) / half - slope) / (2.0 * half)
        start = f[0] - bmin
    ok = np.isfinite(slope) & np.isfinite(curve) & np.isfinite(start)
    coef = np.stack([ext[0], xs[1], start, slope, curve], axis=1)
    coef[~ok, 2:] = 0.0
    flat = _level_columns(
        xc, float(sign), G, first.astype(np.int64), top.astype(np.int64), col, coef
    )
    hist = np.zeros((m, width), dtype=np.int64)
    keep = b <= bmax[col]
    hist[col[keep], (b - bmin[col])[keep]] = flat[keep]
    return hist


def _level_columns(
    xc: np.ndarray,
    sign: float,
    G: np.ndarray,
    first: np.ndarray,
    top: np.ndarray,
    col: np.ndarray,
    coef: np.ndarray,
) -> np.ndarray:
    """:func:`grid_hist`, with the bins of its level-counted columns (``1 <= top <= LEVELS``)
    filled in: with ``A_k = #{v >= G[first + k]}`` (``A_0 = n``, ``G[first] <= v`` always;
    ``A_{top + 1} = 0``), bin ``k`` holds ``A_k - A_{k + 1}``. ``col``: each flat point's column."""
    n = xc.shape[0]
    k = np.arange(col.size) - first[col]  # its place in the column, 0..top + 1
    counted = (top[col] >= 1) & (top[col] <= LEVELS)
    point = counted & (k >= 1) & (k <= top[col])
    flat, at_or_above = grid_hist(xc, sign, G, first, top, coef, col[point], G[point])
    A = np.zeros(G.size + 1, dtype=np.int64)
    A[point.nonzero()[0]] = at_or_above
    A[(counted & (k == 0)).nonzero()[0]] = n
    bins = (counted & (k <= top[col])).nonzero()[0]
    flat[bins] = A[bins] - A[bins + 1]
    return flat


@exact_compiled
def winsorise(
    X: np.ndarray, L: np.ndarray, U: np.ndarray, rows: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(sum of clip(X, L, U) per column, #{x < L}, #{x > U}, the (n, m) mask x < L or x > U)``.

    The sum adds row by row within blocks of ``rows`` rows and the blocks' sums in turn, as
    ``total += np.minimum(np.maximum(block, L), U).sum(axis=0)`` does block by block."""
    n, m = X.shape
    total = np.zeros(m)
    part = np.empty(m)
    low = np.zeros(m, dtype=np.int64)
    high = np.zeros(m, dtype=np.int64)
    mask = np.empty((n, m), dtype=np.bool_)
    for r in range(0, n, rows):
        for i in range(r, min(r + rows, n)):
            for j in range(m):
                v = X[i, j]
                below = v < L[j]
                above = v > U[j]
                low[j] += below
                high[j] += above
                mask[i, j] = below or above
                w = min(max(v, L[j]), U[j])
                if i == r:
                    part[j] = w
                else:
                    part[j] += w
        for j in range(m):
            total[j] += part[j]
    return total, low, high, mask
