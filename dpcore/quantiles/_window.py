"""The exponential-mechanism quantile over a window of ranks: selection instead of a full sort.

The mechanism of :func:`dpcore.quantiles.exponential.exponential_quantile_fast` picks gap ``i``
(``i`` data values below it) with probability ``∝ L_i exp(-c |i - q n|)``, ``c = eps / 2``. Far
from the target rank the weights are negligible: ``W = ceil(WINDOW_DECAY / c)`` ranks away they
have fallen by ``e^-WINDOW_DECAY``. So only the order statistics of ranks ``t - W .. t + W`` are
put in place (``numpy.partition``, linear time, then a sort of the window alone), and all the gaps
below the window are stood for by one envelope candidate whose weight bounds theirs,
``(z_A - lower) exp(-c (t - A + 1))`` (gap lengths add up to ``z_A - lower``, weights grow towards
the target), and likewise above. The proposal is one exponential-mechanism draw over the window's
gaps and the two envelopes; when it picks an envelope (about ``e^-WINDOW_DECAY`` of the time)
:func:`dpcore.mechanisms.envelope_redraw` completes a rejection step on the sorted column. The
result has exactly the distribution of the mechanism over all gaps (docs/speed.md), the same
privacy cost is charged once, and the window and its envelopes depend on ``n`` and ``q`` only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore import _kernels, _kernels_quantile, mechanisms

#: Weight fall-off (in e-folds) from the target to the first rank outside the window.
WINDOW_DECAY = 120.0


def window(n: int, q: float, c: float) -> tuple[int, int] | None:
    """Padded indices ``(A, B)`` of the window's ends, or None when the window is not much smaller
    than the column (then a full sort costs about as much)."""
    t = math.floor(q * n)
    w = math.ceil(WINDOW_DECAY / c)
    a, b = max(0, t - w), min(n + 1, t + w + 1)
    return (a, b) if 4 * (b - a) < n else None


def _exact(
    col: np.ndarray, lo: float, hi: float, lw_u: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The sorted, clipped column padded with its bounds, and every gap's exact log-weight."""
    z = np.concatenate(([lo], np.clip(np.sort(col), lo, hi), [hi]))
    with np.errstate(divide="ignore"):
        return z, np.log(np.diff(z)) + lw_u


def window_values(V: np.ndarray, s0: int, s1: int) -> np.ndarray:
    """Positions ``s0..s1`` (0-based) of every sorted row of ``V`` (``(m, n)``, finite), as an
    ``(m, s1 - s0 + 1)`` array. Large arrays: one pass finds the values between two sampled
    thresholds and counts those below and equal to them
    (:func:`dpcore._kernels_quantile.window_split`), and only the values between are sorted;
    a row whose thresholds miss the window, and small arrays, go through ``numpy.partition`` (``V``
    is then reordered in place). Either way the same values."""
    n = V.shape[1]
    kth = [p for p in (s0, s1) if 0 < p < n]
    if not _kernels.use_kernels(V):
        V.partition(kth, axis=1)
        seg = V[:, s0 : s1 + 1]
        seg.sort(axis=1)
        return seg
    cap = _kernels_quantile.window_cap(n, s0, s1)
    tl, th = _kernels_quantile.window_thresholds(V, s0, s1)
    buf, counts = _kernels_quantile.window_split(V, tl, th, cap)
    buf.sort(axis=1)
    below, at_lo, mid = counts[:, :1], counts[:, 1:2], counts[:, 2:3]
    rel = np.arange(s0, s1 + 1) - below - at_lo  # position among the values strictly between
    seg = np.take_along_axis(buf, np.clip(rel, 0, cap - 1), axis=1)
    seg = np.where(rel < 0, tl[:, None], np.where(rel >= mid, th[:, None], seg))
    ok = (below[:, 0] <= s0) & (s1 < counts.sum(axis=1)) & (mid[:, 0] <= cap)
    for r in np.flatnonzero(~ok):  # thresholds that missed: the whole row, as above
        V[r].partition(kth)
        seg[r] = np.sort(V[r, s0 : s1 + 1])
    return seg


def window_pick(
    V: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    q: float,
    eps: float,
    ends: tuple[int, int],
    g: Any,
    **charge: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Ends ``(left, right)`` of the gap the mechanism picks in every row of ``V`` (``(m, n)``,
    one column of data per row; reordered in place). ``charge`` are the keyword arguments of
    :func:`dpcore.mechanisms.exponential` (sensitivity, epsilon, coefficient, columns, note)."""
    m, n = V.shape
    a, b = ends
    c, t = eps / 2.0, q * n
    s0, s1 = max(a - 1, 0), min(b - 1, n - 1)
    seg = window_values(V, s0, s1)
    np.clip(seg, lo[:, None], hi[:, None], out=seg)
    z = np.empty((m, b - a + 1))  # padded z_a .. z_b
    first = 1 if a == 0 else 0
    last = b - a - 1 if b == n + 1 else b - a
    z[:, first : last + 1] = seg
    if a == 0:
        z[:, 0] = lo
    if b == n + 1:
        z[:, -1] = hi
    left_env, right_env = a > 0, b < n + 1
    util = -c * np.abs(np.arange(a, b) - t)
    base = [np.diff(z, axis=1)]
    if left_env:
        util = np.concatenate(([-c * (t - (a - 1))], util))
        base.insert(0, (z[:, 0] - lo)[:, None])
    if right_env:
        util = np.concatenate((util, [-c * (b - t)]))
        base.append((hi - z[:, -1])[:, None])
    logw = np.concatenate(base, axis=1)
    with np.errstate(divide="ignore"):
        np.log(logw, out=logw)
    idx = mechanisms.exponential(
        np.broadcast_to(util, logw.shape), base=logw, rng=g, sampler="inverse_cdf", **charge
    )
    j = idx - left_env  # gap a + j of the window
    rows = np.arange(m)
    jj = np.clip(j, 0, b - a - 1)
    left, right = z[rows, jj], z[rows, jj + 1]
    for r in np.flatnonzero((j < 0) | (j >= b - a)):  # an envelope: the rejection step
        lw_u = -c * np.abs(np.arange(n + 1) - t)
        zf, lw = _exact(V[r], float(lo[r]), float(hi[r]), lw_u)
        side, off = (lw[:a], 0) if j[r] < 0 else (lw[b:], b)
        got = mechanisms.envelope_redraw(side, float(logw[r, idx[r]] + util[idx[r]]), lw, g)
        i = got + off if got >= 0 else -1 - got
        left[r], right[r] = zf[i], zf[i + 1]
    return left, right
