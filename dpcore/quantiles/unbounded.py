"""``UnboundedQuantile``, ``_grid_minus_one``, ``_grid_size``, ``grid_size``,
``premature_stop_risk``, ``_unbounded_budgets``, ``_bin_index``, ``_grid_counts``, ``_runs``,
``_walk_up``, ``unbounded_quantile`` (moved from ``quantiles.py``), ``walk_columns`` and
``column_extremes`` (PMWM's two walks on data it checked, sharing the columns' extremes).
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from dpcore import _kernels, _kernels_pmwm, mechanisms
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_positive,
    check_probability,
)
from dpcore.quantiles._common import (
    _CHUNK_ELEMENTS,
    MAX_GRID_SIZE,
    Bounds,
    _as_columns,
    _check_beta,
)

# ----------------------------------------------------------------------------------------------
# 3. unbounded quantile, AboveThreshold on a geometric grid (docs/estimators/winsorized.md §2)
# ----------------------------------------------------------------------------------------------


class UnboundedQuantile(NamedTuple):
    """Result of :func:`unbounded_quantile`.

    Attributes
    ----------
    value : float or ndarray of shape (d,)
        The private quantile, inside the bounds.
    steps : int or ndarray of shape (d,)
        Index ``i`` of the grid point where the walk ended (grid points visited). The number of
        noisy comparisons is ``steps``, or ``steps - 1`` when the hard stop fired.
    hit_bound : bool or ndarray of shape (d,)
        True where the walk reached the far bound (the hard stop fired and the bound was
        returned).
    """

    value: float | np.ndarray
    steps: int | np.ndarray
    hit_bound: bool | np.ndarray


def _grid_minus_one(i: np.ndarray, log_beta: float) -> np.ndarray:
    """``beta**i - 1`` (accurately, also for small ``i``); the grid is ``g_i = lo + (beta**i - 1)``."""
    return np.expm1(np.asarray(i, dtype=float) * log_beta)


@functools.lru_cache(maxsize=8)
def _grid_points(kmax: int, log_beta: float) -> np.ndarray:
    """``beta**i - 1`` for ``i = 1..kmax`` (:func:`_grid_minus_one`), read-only and kept for the
    next call with the same grid: each walk needs it three times and PMWM runs two walks."""
    gm1 = _grid_minus_one(np.arange(1, kmax + 1), log_beta)
    gm1.flags.writeable = False
    return gm1


def _grid_size(lo: np.ndarray, hi: np.ndarray, beta: float) -> np.ndarray:
    """Smallest ``i >= 1`` with ``lo + beta**i - 1 >= hi`` (= ceil(log_beta(hi - lo + 1)))."""
    log_beta = math.log(beta)
    k = np.maximum(np.ceil(np.log(hi - lo + 1.0) / log_beta), 1.0)
    if np.any(k > MAX_GRID_SIZE):
        raise ValueError(
            f"the grid from lower to upper bound needs {int(np.max(k))} points at beta={beta}; "
            f"use a larger beta or tighter bounds (at most {MAX_GRID_SIZE} points)."
        )
    k = k.astype(np.int64)
    # Correct rounding of the logarithm against the grid as actually computed.
    for _ in range(4):
        up = lo + _grid_minus_one(k, log_beta) < hi
        down = (k > 1) & (lo + _grid_minus_one(k - 1, log_beta) >= hi)
        if not (up.any() or down.any()):
            break
        k = k + up - down
    return k


def grid_size(bounds: Bounds, beta: float = 1.001) -> int | np.ndarray:
    """Number ``K`` of grid points of the unbounded-quantile walk from one bound to the other.

    ``K = ceil(log_beta(hi - lo + 1))``: the index of the first grid point
    ``g_i = lo + beta**i - 1`` at or above ``hi`` (computed exactly against the grid used by
    :func:`unbounded_quantile`). Example: bounds (-50, 50), beta 1.001 gives 4618.

    Parameters
    ----------
    bounds : (lower, upper)
        Scalars or arrays.
    beta : float
        Grid ratio, > 1.

    Returns
    -------
    int or ndarray of int
        ``K`` (one per column for array bounds).

    References
    ----------
    Durfee (NeurIPS 2023); docs/estimators/winsorized.md §2.6.
    """
    lo, hi = check_bounds(bounds)
    k = _grid_size(np.atleast_1d(lo), np.atleast_1d(hi), _check_beta(beta))
    lo_b, _hi_b = np.broadcast_arrays(lo, hi)
    return int(k[0]) if lo_b.ndim == 0 else k.reshape(lo_b.shape)


def premature_stop_risk(
    n: int, q: float, epsilon_query: float | np.ndarray, K: float | np.ndarray
) -> float | np.ndarray:
    """Approximate probability that the pure unbounded quantile stops before reaching the data.

    Below the data every count is 0, so each of the ``K`` grid points there stops the walk when
    its query noise exceeds the target ``q n`` (plus the non-negative threshold noise):
    ``P(early) ≈ 1 - exp(-K exp(-eps_Q q n))`` (docs/estimators/winsorized.md §2.6). It ignores the
    threshold noise, so it errs on the side of warning. For ``q < 1/2`` the walk is mirrored and
    targets ``(1 - q) n``, so ``max(q, 1 - q)`` is used.

    Parameters
    ----------
    n : int
        Number of data points.
    q : float
        Quantile level in (0, 1).
    epsilon_query : float or array
        Query budget ``eps_Q`` of **one column** (the total divided by ``d``).
    K : int or array
        Grid points below the data; :func:`grid_size` of the bounds is a safe upper bound.

    Returns
    -------
    float or ndarray
        The approximate risk, in [0, 1]. Warn when it is not small (say above 1%).

    References
    ----------
    Durfee (NeurIPS 2023); Ramsay and Spicker (arXiv 2501.14095) Remarks 3.2-3.3;
    docs/estimators/winsorized.md §2.6.
    """
    nn = check_positive(n, "n")
    qq = check_probability(q, "q")
    eps = np.asarray(epsilon_query, dtype=float)
    kk = np.asarray(K, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError(f"epsilon_query must be positive finite number(s); got {epsilon_query!r}.")
    if np.any(~np.isfinite(kk)) or np.any(kk < 0):
        raise ValueError(f"K must be a non-negative number of grid points; got {K!r}.")
    risk = -np.expm1(-kk * np.exp(-eps * max(qq, 1.0 - qq) * nn))
    return float(risk) if risk.ndim == 0 else risk


def _unbounded_budgets(
    epsilon_threshold: Any, epsilon_query: Any, rho_threshold: Any, rho_query: Any, d: int
) -> tuple[bool, float, float]:
    """Return (pure?, per-column threshold budget, per-column query budget)."""
    pure = epsilon_threshold is not None or epsilon_query is not None
    zcdp = rho_threshold is not None or rho_query is not None
    if pure == zcdp:
        raise ValueError(
            "pass either epsilon_threshold and epsilon_query (pure DP) or rho_threshold and "
            "rho_query (zCDP), not both families and not neither."
        )
    if pure:
        if epsilon_threshold is None or epsilon_query is None:
            raise ValueError("pure DP needs both epsilon_threshold and epsilon_query.")
        return (
            True,
            check_positive(epsilon_threshold, "epsilon_threshold") / d,
            check_positive(epsilon_query, "epsilon_query") / d,
        )
    if rho_threshold is None or rho_query is None:
        raise ValueError("zCDP needs both rho_threshold and rho_query.")
    return (
        False,
        check_positive(rho_threshold, "rho_threshold") / d,
        check_positive(rho_query, "rho_query") / d,
    )


#: Values per block of rows in :func:`_bin_index` (a few float buffers that stay in cache).
_BIN_BLOCK = 1 << 15


def _bin_index(
    xc: np.ndarray,
    lo: np.ndarray,
    kmax: int,
    log_beta: float,
    sign: float = 1.0,
    shift: np.ndarray | None = None,
) -> np.ndarray:
    """``b(x) = #{i in 1..kmax : lo + beta**i - 1 <= x}`` per value (columns share ``lo`` by column).

    Then ``#{x < g_i} = #{x : b(x) < i}``. The grid points as computed are non-decreasing in
    ``i``, so ``b(x)`` is the one index with ``g_b <= x < g_{b+1}`` (``g_0 = -inf``,
    ``g_{kmax+1} = +inf``). It is guessed in closed form, ``floor(log1p(x - lo) / log beta)``, and
    checked against the grid points as actually computed; the few values where rounding put the
    guess off (and every value on a run of grid points that round to the same float, as at bounds
    of ±1e100) get a binary search of the column's grid. So the result is that binary search for
    every value, at ``O(1)`` work per value instead of ``O(log kmax)``. ``sign = -1``: of ``-x``
    (negated block by block, the mirrored walk without an ``(n, d)`` copy; negation is exact).
    ``shift`` (per column): added to every index of the column once it is exact.
    """
    xs = np.asarray(xc, dtype=float)
    n, m = xs.shape
    lows = np.ascontiguousarray(np.broadcast_to(np.asarray(lo, dtype=float), xs.shape)[0])
    gm1 = _grid_points(kmax, log_beta)
    ends = np.concatenate(([-np.inf], gm1, [np.inf]))  # g_b - lo for b = 0..kmax+1
    out = np.empty((n, m), dtype=np.intp)
    rows = max(1, _BIN_BLOCK // m)
    g, h = np.empty((rows, m)), np.empty((rows, m))
    off, above = np.empty((rows, m), dtype=bool), np.empty((rows, m), dtype=bool)
    bad: list[tuple[np.ndarray, np.ndarray]] = []
    neg = np.empty((rows, m)) if sign < 0 else g
    nexts = ends[1:]  # g_{b+1} - lo
    with np.errstate(over="ignore", invalid="ignore"):
        for r in range(0, n, rows):
            xb, b = xs[r : r + rows], out[r : r + rows]
            k = xb.shape[0]
            if sign < 0:
                xb = np.negative(xb, out=neg[:k])
            gb, hb, ob, ab = g[:k], h[:k], off[:k], above[:k]
            np.subtract(xb, lows, out=gb)
            np.maximum(gb, 0.0, out=gb)
            np.log1p(gb, out=gb)
            gb *= 1.0 / log_beta
            np.floor(gb, out=gb)
            np.minimum(gb, float(kmax), out=gb)  # >= 0 already (log1p of >= 0)
            np.copyto(b, gb, casting="unsafe")
            ends.take(b, out=hb, mode="clip")  # 0 <= b <= kmax: clip is never used
            hb += lows
            np.greater(hb, xb, out=ob)  # guess too high
            nexts.take(b, out=hb, mode="clip")
            hb += lows
            np.less_equal(hb, xb, out=ab)  # guess too low
            ob |= ab
            if ob.any():
                i, j = np.nonzero(ob)
                bad.append((i + r, j))
    if bad:  # grouped by column: one grid per column
        i, j = (np.concatenate(v) for v in zip(*bad, strict=True))
        order = np.argsort(j, kind="stable")
        i, j = i[order], j[order]
        starts = np.flatnonzero(np.diff(j, prepend=-1))
        for s, e in zip(starts, np.append(starts[1:], j.size), strict=True):
            pick = i[s:e]
            vals = sign * xs[pick, j[s]]
            out[pick, j[s]] = np.searchsorted(lows[j[s]] + gm1, vals, side="right")
    if shift is not None:
        out += shift
    return out


def _grid_hist(
    xc: np.ndarray, lo: np.ndarray, kmax: int, log_beta: float, sign: float = 1.0
) -> np.ndarray:
    """``h[j, b] = #{x[:, j] : b(x) = b}`` (:func:`_bin_index`), shape ``(m, kmax + 1)``."""
    _n, m = xc.shape
    b = _bin_index(xc, lo[None, :], kmax, log_beta, sign)
    b += (kmax + 1) * np.arange(m)[None, :]
    return np.bincount(b.ravel(), minlength=m * (kmax + 1)).reshape(m, kmax + 1)


def _grid_counts(xc: np.ndarray, lo: np.ndarray, kmax: int, log_beta: float) -> np.ndarray:
    """Exact counts ``c[j, i-1] = #{x[:, j] < lo_j + beta**i - 1}`` for ``i = 1..kmax``."""
    return np.cumsum(_grid_hist(xc, lo, kmax, log_beta), axis=1)[:, :kmax]


def _runs(
    xc: np.ndarray,
    ext: np.ndarray,
    lo: np.ndarray,
    last: np.ndarray,
    kmax: int,
    log_beta: float,
    sign: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The walk's queries as runs of equal counts, per column of ``sign * xc``:
    ``(counts, lengths)``, each ``(m, R)``.

    With ``b(x)`` the grid index of :func:`_bin_index`, ``c_i = #{b(x) < i}`` is 0 for
    ``i <= min b``, ``n`` for ``i > max b``, and changes only in between: run 0 is grid points
    ``1..min b`` (count 0), then one run per grid point up to ``max b``, then one run of count
    ``n`` up to ``last`` (the last grid point queried, ``K - 1``); runs past ``last`` have
    length 0. ``min b`` and ``max b`` are the indices of the column's extremes ``ext`` (rows: the
    smallest and largest value of ``sign * xc``; ``b`` is monotone), and the histogram is kept
    from ``min b`` to ``max b`` only.
    """
    n, m = xc.shape
    bmin, bmax = _bin_index(ext, lo[None, :], kmax, log_beta)
    width = int((bmax - bmin).max()) + 1
    if _kernels.use_kernels(xc):
        gm1 = _grid_points(kmax, log_beta)
        hist = _kernels_pmwm.grid_histogram(xc, ext, lo, gm1, bmin, bmax, log_beta, sign, width)
    else:
        rel = _bin_index(xc, lo[None, :], kmax, log_beta, sign, shift=width * np.arange(m) - bmin)
        hist = np.bincount(rel.ravel(), minlength=m * width).reshape(m, width)
    below = np.cumsum(hist, axis=1)  # below[j, k]: the count at grid point bmin_j + k + 1
    counts = np.concatenate([np.zeros((m, 1)), below[:, :-1], np.full((m, 1), float(n))], axis=1)
    starts = np.concatenate([np.ones((m, 1), np.int64), bmin[:, None] + np.arange(1, width + 1)], 1)
    ends = np.concatenate([bmin[:, None], starts[:, 1:-1], np.asarray(last)[:, None]], axis=1)
    lengths = np.maximum(np.minimum(ends, np.asarray(last)[:, None]) - starts + 1, 0)
    return counts, lengths


#: Tests only: draw every query's noise (the walk before runs), to compare the two.
_PER_QUERY = False


def _first_stops(
    walk: Any,
    xc: np.ndarray,
    ext: np.ndarray,
    cols: slice,
    lo: np.ndarray,
    K: np.ndarray,
    kmax: int,
    log_beta: float,
    sign: float,
) -> np.ndarray:
    """Per column of ``xc`` (the walk's columns ``cols``), the 0-based index of the first grid
    point whose noisy count is above the walk's threshold, among ``g_1..g_{K-1}`` (-1: none, the
    walk reaches the hard stop).

    Privacy
    -------
    One :meth:`~dpcore.mechanisms.ThresholdWalk.first_above` over the runs of equal counts: the
    same law of the stopping point as noise on every query (see there).
    """
    if _PER_QUERY:
        counts = np.cumsum(_grid_hist(xc, lo, kmax, log_beta, sign), axis=1)[:, :kmax]
        valid = np.arange(kmax)[None, :] < (K - 1)[:, None]
        exceed = valid & (walk.queries(counts) > walk.threshold[cols, None])
        return np.where(exceed.any(axis=1), exceed.argmax(axis=1), -1)
    counts, lengths = _runs(xc, ext, lo, K - 1, kmax, log_beta, sign)
    return np.asarray(walk.first_above(counts, lengths, cols))


def _walk_up(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    q: float,
    beta: float,
    pure: bool,
    budget_t: float,
    budget_q: float,
    gen: Any,
    sign: float = 1.0,
    extremes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UQ_UP of docs/estimators/winsorized.md §2.1 with the hard stop at ``hi``, vectorised over
    columns (on ``sign * X``: ``-1`` walks the mirrored data without copying it). ``extremes``:
    :func:`column_extremes` of ``X`` when the caller has them.

    Privacy
    -------
    One :func:`dpcore.mechanisms.above_threshold` walk per column on the counts ``#{x < g_i}``
    (sensitivity 1, monotone under replace-one), threshold budget ``budget_t`` and query budget
    ``budget_q`` per column; the mechanism charges the active stage ("<stage>: threshold" and
    "<stage>: queries"). The exponential walk is ``(ε_T + ε_Q)``-DP per column (Durfee 2023); the
    Gaussian walk's ``ρ_T + ρ_Q`` per column is the paper's Lemma D.1, unproven accounting.
    """
    n, d = X.shape
    log_beta = math.log(beta)
    K = _grid_size(lo, hi, beta)
    kmax = int(K.max())
    walk = mechanisms.above_threshold(
        np.full(d, q * n),
        threshold_budget=budget_t,
        query_budget=budget_q,
        columns=d,
        rng=gen,
        noise="exponential" if pure else "gaussian",
        note="" if pure else _GAUSSIAN_WALK_NOTE,
    )
    gm1 = _grid_points(kmax, log_beta)
    first = np.empty(d, dtype=np.int64)
    # the extremes of each column of sign * X
    ext = (column_extremes(X) if extremes is None else extremes)[:: 1 if sign > 0 else -1] * sign
    chunk = max(1, min(d, _CHUNK_ELEMENTS // (kmax + n)))
    for s in range(0, d, chunk):  # chunks over columns only, to bound memory for large K * d
        cols = slice(s, min(s + chunk, d))
        first[cols] = _first_stops(
            walk, X[:, cols], ext[:, cols], cols, lo[cols], K[cols], kmax, log_beta, sign
        )
    stopped = first >= 0
    # Grid points g_i < hi are queried; the first g_i >= hi (i = K) is the hard stop.
    value = np.where(stopped, lo + gm1[np.maximum(first, 0)], hi)
    steps = np.where(stopped, first + 1, K)
    hit = ~stopped
    return np.minimum(value, hi), steps, hit


#: Ledger note of a Gaussian walk: its zCDP accounting is the paper's claim, not a proof.
_GAUSSIAN_WALK_NOTE = (
    "Gaussian AboveThreshold walk: unproven accounting (Ramsay and Spicker's Lemma D.1), "
    "not DP-accounted here"
)


def unbounded_quantile(
    x: ArrayLike,
    q: float,
    bounds: Bounds,
    *,
    epsilon_threshold: float | None = None,
    epsilon_query: float | None = None,
    rho_threshold: float | None = None,
    rho_query: float | None = None,
    beta: float = 1.001,
    rng: RngLike = None,
) -> UnboundedQuantile:
    """Private ``q``-quantile of each column by Durfee's AboveThreshold walk on a geometric grid.

    For ``q >= 1/2`` the walk goes up from ``lo`` (UQ_UP): noisy target ``t = q n + E_0``; at
    grid points ``g_i = lo + beta**i - 1``, ``i = 1, 2, ...``, it stops at the first ``i`` with
    ``c_i + E_i > t``, ``c_i = #{x_j < g_i}`` (points below ``lo`` count as below every ``g_i``),
    and returns ``g_i``. When ``g_i >= hi`` it returns ``hi`` (hard stop; every later output would
    be clamped to ``hi`` anyway, so the output distribution is unchanged and the loop has at most
    ``K = ceil(log_beta(hi - lo + 1))`` points, see :func:`grid_size`). For ``q < 1/2`` the
    mirrored wrapper is used: ``max(-UQ_UP(-x, start=-hi, 1 - q, hi=-lo), lo)``, a walk down from
    ``hi``. Pure DP: ``E_0 ~ Exp(rate eps_T)``, ``E_i ~ Exp(rate eps_Q)`` (one-sided, mean
    ``1 / eps``), so the estimate errs outwards. zCDP: ``E_0 ~ N(0, 1/rho_T)``,
    ``E_i ~ N(0, 1/rho_Q)`` (variances).

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
        Data.
    q : float
        Quantile level in (0, 1).
    bounds : (lower, upper)
        Public range, scalars or length-``d`` arrays; the walk starts at one and stops at the
        other. The grid spacing near the data is about ``(beta - 1)`` times the distance from the
        start bound, so a loose start bound coarsens the grid.
    epsilon_threshold, epsilon_query : float
        Total pure-DP budgets of the threshold noise and of the query noise.
    rho_threshold, rho_query : float
        Total zCDP budgets of the Gaussian variant, passed instead of the epsilons (a research
        option whose accounting is unproven; see Privacy).
    beta : float
        Grid ratio, > 1 (default 1.001 as in every experiment of the paper).
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    UnboundedQuantile
        ``(value, steps, hit_bound)``; scalars for 1-D input, arrays of shape ``(d,)`` for 2-D.

    Privacy
    -------
    Replace-one neighbours, ``n`` public (the target ``q n`` uses it). The counts have
    sensitivity 1 and are monotone (replacing a row moves all of them in the same direction), so
    AboveThreshold with one-sided noise is ``(eps_T + eps_Q)``-DP per column (Durfee 2023;
    docs/estimators/winsorized.md §2.1). Budget split: the budgets passed are totals; each of
    the ``d`` columns gets ``eps_T / d`` and ``eps_Q / d``, and the call costs ``eps_T + eps_Q``
    in total.
    The noise is drawn by :func:`dpcore.mechanisms.above_threshold`, which charges the ledger
    stage the caller has open (lines "<stage>: threshold" and "<stage>: queries"; in a zCDP
    ledger the pure walk converts as a whole, ``d (eps_T/d + eps_Q/d)**2 / 2``, split in
    proportion ``eps_T : eps_Q``); outside a stage nothing is charged.

    The Gaussian variant (``rho_threshold``, ``rho_query``) is **not DP-accounted**: its
    ``(rho_T + rho_Q)``-zCDP per column is Ramsay and Spicker's Lemma D.1, which is unproven
    (docs/estimators/winsorized.md §2.4, §10 item 6); its ledger lines say "unproven accounting". It
    is a research option for reproducing the paper's tables, not a registered release.

    The walk is sampled by runs (docs/estimators/winsorized.md §2.6): the counts are constant
    between grid indices of data points, and in a run of ``k`` grid points with count ``c`` the
    number passed before the first noisy count above ``t`` is geometric with
    ``p = P(c + E > t)`` (independent noises of one law), drawn with one variate per run by
    :meth:`dpcore.mechanisms.ThresholdWalk.first_above`. That is the law of the stopping point of
    the walk with noise on every grid point, and the stopping point is all that is released, so
    the guarantee is the same. A release backend draws every grid point's noise.

    Notes
    -----
    Vectorised as in docs/estimators/winsorized.md §2.6: exact counts at every grid point of
    every column as runs (a histogram of grid indices between each column's smallest and largest
    value, equal to ``searchsorted`` on the sorted column), one variate per run, the first run
    that stops by ``argmax``; the same distribution as the sequential loop. Columns are processed
    in chunks when ``n * d`` is large. With few data points or a small ``eps_Q`` the walk may stop below the data
    (premature stopping); :func:`premature_stop_risk` estimates that probability.

    References
    ----------
    Durfee, D. "Unbounded differentially private quantile and maximum estimation." NeurIPS 2023.
    Ramsay and Spicker, "Improved subsample-and-aggregate via the private modified winsorized
    mean", arXiv 2501.14095, Algorithm (private quantile) and Lemma D.1;
    docs/estimators/winsorized.md §2.1, §2.4 and §2.6.
    """
    X, one_d = _as_columns(x)
    res = walk_columns(
        X,
        q,
        bounds,
        beta=beta,
        rng=rng,
        epsilon_threshold=epsilon_threshold,
        epsilon_query=epsilon_query,
        rho_threshold=rho_threshold,
        rho_query=rho_query,
    )
    if one_d:
        value, steps, hit = (np.asarray(v) for v in res)
        return UnboundedQuantile(float(value[0]), int(steps[0]), bool(hit[0]))
    return res


def column_extremes(X: np.ndarray) -> np.ndarray:
    """``[X.min(axis=0), X.max(axis=0)]`` (one read by a compiled kernel for large arrays)."""
    if _kernels.use_kernels(X):
        return np.asarray(_kernels_pmwm.column_extremes(X))
    return np.stack([X.min(axis=0), X.max(axis=0)])


def walk_columns(
    X: np.ndarray,
    q: float,
    bounds: Bounds,
    *,
    beta: float = 1.001,
    rng: RngLike = None,
    extremes: np.ndarray | None = None,
    **budgets: float | None,
) -> UnboundedQuantile:
    """:func:`unbounded_quantile` of every column of ``X``, an ``(n, d)`` float array the caller
    has checked (:func:`dpcore._validation.check_data`): the same arguments (``budgets``: its
    four budget keywords), draws, charges and results (arrays of shape ``(d,)``), without a
    second check of the data. ``extremes``: :func:`column_extremes` of ``X`` when the caller
    has them (PMWM's two walks share one read of the data).

    Privacy
    -------
    As :func:`unbounded_quantile`.
    """
    d = X.shape[1]
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    b = _check_beta(beta)
    pure, budget_t, budget_q = _unbounded_budgets(
        budgets.get("epsilon_threshold"),
        budgets.get("epsilon_query"),
        budgets.get("rho_threshold"),
        budgets.get("rho_query"),
        d,
    )
    gen = mechanisms.generator(rng)
    if qq >= 0.5:
        value, steps, hit = _walk_up(
            X, lo, hi, qq, b, pure, budget_t, budget_q, gen, extremes=extremes
        )
    else:
        v, steps, hit = _walk_up(
            X, -hi, -lo, 1.0 - qq, b, pure, budget_t, budget_q, gen, -1.0, extremes
        )  # the walk up the mirrored data -x
        value = np.maximum(-v, lo)
    return UnboundedQuantile(value, steps, hit)
