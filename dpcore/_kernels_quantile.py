"""Compiled kernels for PLAN's per-column medians (numba, imported on first use).

Two passes of Algorithm 2's exponential-mechanism medians (docs/speed.md, "PLAN, round 4"):

* :func:`half_squared_columns` forms the pair statistics ``max((x_a - x_b)^2 / 2, floor)`` and
  writes them straight into the ``(d, m)`` layout the per-column mechanism works on (one row per
  column), instead of an ``(m, d)`` array that is floored, then copied column by column.
* :func:`window_split` finds, per row, every value that can hold one of a window of ranks by one
  pass against two thresholds read off a small sorted sample (:func:`window_thresholds`), so that
  only those values are sorted instead of a ``numpy.partition`` of the whole row (one branch-free
  pass: a comparison per value that a branch would mispredict half the time).

Both compute exactly what the numpy code they replace computes (the same operations on each value,
no sums): the values they return are equal bit for bit, and the counts show when a row's sampled
thresholds miss the window (the caller then takes the numpy path). Nothing here draws a random
number or touches a budget.
Like :mod:`dpcore._kernels`, numba is imported the first time a kernel runs (``cache=True``), and
the callers use the kernels only for arrays of at least :data:`dpcore._kernels.MIN_SIZE` values.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore._kernels import exact_compiled

#: Pairs formed together by :func:`half_squared_columns` (a buffer of ``PAIR_TILE x d`` values
#: that stays in cache while it is written out column by column).
PAIR_TILE = 32
#: Values per row in the sample that places the window's thresholds (about; every ``n // SAMPLE``-th).
SAMPLE = 2048
#: Margin of the thresholds, in standard deviations of a sample rank (``sqrt(S / 4)``).
MARGIN_SD = 5.0


@exact_compiled
def half_squared_columns(
    X: np.ndarray, first: np.ndarray, second: np.ndarray, floor: np.ndarray, out: np.ndarray
) -> np.ndarray:
    """``out[k, i] = max((X[a, k] - X[b, k])^2 / 2, floor[k])`` for the pairs ``a = first[i]``,
    ``b = second[i]``, written into ``out`` (``(d, m)``): :data:`PAIR_TILE` pairs at a time are formed
    along whole rows of ``X`` into a buffer, then written out along the rows of ``out``."""
    m, d = first.size, X.shape[1]
    tile = np.empty((PAIR_TILE, d))
    for i0 in range(0, m, PAIR_TILE):
        w = min(PAIR_TILE, m - i0)
        for i in range(w):
            a, b = first[i0 + i], second[i0 + i]
            for k in range(d):
                v = X[a, k] - X[b, k]
                h = v * v * 0.5
                f = floor[k]
                tile[i, k] = h if h >= f else f  # np.maximum(h, f): no NaN here
        for k in range(d):
            for i in range(w):
                out[k, i0 + i] = tile[i, k]
    return out


def window_thresholds(V: np.ndarray, s0: int, s1: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``V`` (``(r, n)``), two values ``(tl, th)`` meant to lie below and above sorted
    positions ``s0..s1`` (0-based): order statistics of every ``n // SAMPLE``-th value,
    :data:`MARGIN_SD` standard deviations of a sample rank beyond the window's ranks (``-inf`` or
    ``+inf`` past the ends). Only a guess: :func:`window_split` counts what they really cut."""
    n = V.shape[1]
    step = max(1, n // SAMPLE)
    sample = np.sort(V[:, ::step], axis=1)
    size = sample.shape[1]
    margin = MARGIN_SD * math.sqrt(size / 4.0) + 1.0
    lo_at = math.floor(s0 * size / n - margin)
    hi_at = math.ceil((s1 + 1) * size / n + margin)
    tl = sample[:, lo_at] if lo_at >= 0 else np.full(V.shape[0], -np.inf)
    th = sample[:, hi_at] if hi_at < size else np.full(V.shape[0], np.inf)
    return tl, th


@exact_compiled
def window_split(
    V: np.ndarray, tl: np.ndarray, th: np.ndarray, cap: int
) -> tuple[np.ndarray, np.ndarray]:
    """One pass over each row ``j`` of ``V``: ``counts[j]`` = how many values lie below
    ``tl[j]``, equal to it, strictly between ``tl[j]`` and ``th[j]``, and equal to ``th[j]``
    (``> tl[j]``); ``buf[j]`` holds the values strictly between in row order, then ``+inf``
    (``cap + 1`` places; ``counts[j, 2] > cap`` when they did not fit)."""
    r, n = V.shape
    buf = np.full((r, cap + 1), np.inf)
    counts = np.zeros((r, 4), dtype=np.int64)
    for j in range(r):
        row, out, lo, hi = V[j], buf[j], tl[j], th[j]
        nb, nl, nc, nh = 0, 0, 0, 0
        for i in range(n):  # no branches: every value is written, the next one may overwrite it
            v = row[i]
            nb += v < lo
            nl += v == lo
            nh += (v == hi) & (hi > lo)
            out[min(nc, cap)] = v
            nc += (v > lo) & (v < hi)
        out[min(nc, cap)] = np.inf  # the last value written, if it was not kept
        counts[j, 0], counts[j, 1], counts[j, 2], counts[j, 3] = nb, nl, nc, nh
    return buf, counts


def window_cap(n: int, s0: int, s1: int) -> int:
    """Room per row for :func:`window_split`: the window, both margins twice over, and 64."""
    step = max(1, n // SAMPLE)
    size = (n + step - 1) // step
    margin = MARGIN_SD * math.sqrt(size / 4.0) + 1.0
    return int(min(n, (s1 - s0 + 1) + 4 * (margin + 2) * step + 64))


@exact_compiled
def envelope_draws(
    V: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    weight: np.ndarray,
    bins: int,
    uniforms: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Rejection sampling from a histogram envelope, row by row of ``V`` (``(m, n)``, finite).

    The target on ``[lo[j], hi[j])`` has density ``weight[#{v in row j : v < t}]``. A value ``x``
    of row ``j`` falls in bin ``bin(x) = floor(clip((x - lo) · bins / (hi - lo), 0, bins - 1))``,
    a non-decreasing function of ``x`` in floating point too; so for any ``t`` every value below
    ``t`` has ``bin <= bin(t)`` and every value of a lower bin is below ``t``: the rank of ``t``
    lies in ``[C_k, C_k + n_k]`` for ``k = bin(t)`` (``C_k`` the values of the bins below ``k``,
    ``n_k`` those of bin ``k``), and the largest ``weight`` there, ``bound_k``, bounds the density
    (``weight`` must rise to its peak and fall after it). Round ``r`` reads ``uniforms[j, r]``:
    bin ``k`` with probability ``∝ width_k · bound_k``, ``t`` uniform on
    ``[lo + k·width, lo + (k+1)·width)``; rejected when ``bin(t) != k`` (``t`` within rounding of
    an edge), else accepted when ``u · bound_k < weight[rank(t)]`` (one count over the row).
    Returns ``t`` per row and the round (1-based) that accepted it, 0 when none did."""
    m, n = V.shape
    rounds = uniforms.shape[1]
    top = bins - 1.0
    peak = 0
    for i in range(n + 1):
        if weight[i] > weight[peak]:
            peak = i
    out = np.empty(m)
    used = np.zeros(m, dtype=np.int64)
    count = np.empty(bins, dtype=np.int32)
    cum = np.empty(bins)
    bound = np.empty(bins)
    for j in range(m):
        row, a = V[j], lo[j]
        width, scale = (hi[j] - a) / bins, bins / (hi[j] - a)
        count[:] = 0
        for i in range(n):
            count[int(min(max((row[i] - a) * scale, 0.0), top))] += 1
        below, total = 0, 0.0
        for k in range(bins):
            above = below + count[k]
            if below > peak:
                bound[k] = weight[below]
            elif above < peak:
                bound[k] = weight[above]
            else:
                bound[k] = weight[peak]
            total += width * bound[k]
            cum[k] = total
            below = above
        for r in range(rounds):
            k = min(np.searchsorted(cum, uniforms[j, r, 0] * total, side="right"), bins - 1)
            t = a + (k + uniforms[j, r, 1]) * width
            if int(min(max((t - a) * scale, 0.0), top)) != k:
                continue
            rank = 0
            for i in range(n):
                rank += row[i] < t
            if uniforms[j, r, 2] * bound[k] < weight[rank]:
                out[j], used[j] = t, r + 1
                break
    return out, used
