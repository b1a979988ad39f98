"""The private quantile by binary search with Gaussian noisy counts (docs/estimators/plan.md §3a).

The ``T x d`` count noises are drawn by :func:`dpcore.mechanisms.gaussian`, which charges the
caller's open ledger stage (:func:`dpcore.mechanisms.stage`); these routines open no stage.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from dpcore import mechanisms
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_positive,
    check_probability,
)
from dpcore.quantiles._common import Bounds, _as_columns, _check_steps, _finish

# ----------------------------------------------------------------------------------------------
# 1. binary search with Gaussian counts (docs/estimators/plan.md §3a)
# ----------------------------------------------------------------------------------------------


class BinarySearchTrace(NamedTuple):
    """Everything the binary search did, for teaching pictures and tests.

    ``counts`` are the exact (non-private) counts: show them on synthetic data only, never release
    them. All arrays have one row per step; 1-D input gives ``(steps,)`` arrays and float scalars.
    """

    value: float | np.ndarray
    lower: float | np.ndarray
    upper: float | np.ndarray
    midpoints: np.ndarray
    counts: np.ndarray
    noisy_counts: np.ndarray
    noise_std: float


def rank_error_bound(steps: int, rho: float, beta: float) -> float:
    """Rank error of the binary-search quantile that holds with probability ``1 - beta``.

    ``sqrt(T ln(T / beta) / (2 rho))`` with ``T = steps`` (PLAN paper, Lemma 2.8): with probability
    at least ``1 - beta`` the final interval of :func:`binary_search_quantile` contains a point
    whose rank differs from the target rank ``q n`` by at most this amount. The lemma holds up to
    constants (docs/estimators/plan.md §10 item 16): a union bound over the ``T`` Gaussian counts
    with the tail ``2 exp(-r**2 / (2 s**2))``, ``s**2 = T / (2 rho)``, gives the rigorous but larger
    ``sqrt(T ln(2 T / beta) / rho)``. This helper returns the paper's form, as used for the PLAN
    clip quantile (docs/estimators/plan.md §2).

    Parameters
    ----------
    steps : int
        Number of binary-search steps ``T``.
    rho : float
        zCDP budget of **one column** (``rho / d`` for a ``d``-column call).
    beta : float
        Failure probability, in (0, 1).

    Returns
    -------
    float
        The rank error bound (a number of data points).

    References
    ----------
    Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Lemma 2.8; docs/estimators/plan.md §3a.
    """
    t = _check_steps(steps)
    r = check_positive(rho, "rho")
    b = check_probability(beta, "beta")
    return math.sqrt(t * math.log(t / b) / (2.0 * r))


def _use_sorted_counts(n: int, steps: int) -> bool:
    # One comparison pass over the data costs about 1.2 ns per value; sorting the columns once
    # costs about 2.8 ns per value per log2(n) (measured with numpy 2.4). Sort when cheaper.
    return steps > 2.5 * math.log2(max(n, 2))


def _vector_searchsorted_right(sorted_t: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row ``i`` of ``sorted_t`` (shape ``(d, n)``, rows ascending): ``#{v <= values[i]}``."""
    d, n = sorted_t.shape
    rows = np.arange(d)
    lo = np.zeros(d, dtype=np.intp)
    hi = np.full(d, n, dtype=np.intp)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        le = sorted_t[rows, np.minimum(mid, n - 1)] <= values
        lo = np.where(active & le, mid + 1, lo)
        hi = np.where(active & ~le, mid, hi)


#: Values per block of columns when the columns are contiguous (``x`` in Fortran order): every
#: step of the search runs on one cache-sized block before the next block is read.
_BLOCK_ELEMENTS = 1 << 18


def _search_steps(
    count: Callable[[np.ndarray], np.ndarray],
    low: np.ndarray,
    up: np.ndarray,
    noise: np.ndarray,
    target: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``T = len(noise)`` bisection steps for a set of columns, ``count(mid) = #{x <= mid}``."""
    steps, d = noise.shape
    mids = np.empty((steps, d))
    counts = np.empty((steps, d), dtype=np.intp)
    for t in range(steps):  # T is about 10-40; every step is vectorised over the columns
        mid = 0.5 * (low + up)
        c = count(mid)
        go_up = c + noise[t] <= target
        low = np.where(go_up, mid, low)
        up = np.where(go_up, up, mid)
        mids[t], counts[t] = mid, c
    return low, up, mids, counts


def _binary_search(
    X: np.ndarray,
    q: float,
    lo: np.ndarray,
    hi: np.ndarray,
    rho: float,
    steps: int,
    gen: np.random.Generator,
    sorted_counts: bool | None = None,
    points_per_person: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    n, d = X.shape
    rho_col = rho / d
    noise_std = math.sqrt(steps / (2.0 * rho_col))
    target = q * n
    k = points_per_person
    # All T x d count noises at once: exactly `steps` Gaussian counts per column, no early stop.
    # Each count has sensitivity k (1 unless a person holds k values): T d queries of std noise_std.
    noise = mechanisms.gaussian(
        None,
        sensitivity=float(k),
        rho=k * k * rho,
        rng=gen,
        scale=noise_std,
        columns=steps * d,
        shape=(steps, d),
        note=f"{d} binary searches of {steps} Gaussian counts (count sensitivity {k})",
    ).noise
    if sorted_counts is None:
        sorted_counts = _use_sorted_counts(n, steps)
    # Three ways to get the same exact counts (so the same output for the same seed):
    if sorted_counts:  # one sort, then a vectorised binary search per step
        sorted_t = np.empty((d, n))
        sorted_t[...] = X.T
        sorted_t.sort(axis=1)
        low, up, mids, counts = _search_steps(
            lambda mid: _vector_searchsorted_right(sorted_t, mid),
            lo.copy(),
            hi.copy(),
            noise,
            target,
        )
    elif d > 1 and X.flags.f_contiguous:  # contiguous columns: all T steps per cache-sized block
        low, up, mids, counts = _search_blocks(X, lo, hi, noise, target)
    else:  # one comparison pass over the data per step
        low, up, mids, counts = _search_passes(X, lo.copy(), hi.copy(), noise, target)
    return low, up, mids, counts, counts + noise, noise_std


def _search_blocks(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, noise: np.ndarray, target: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_search_steps` on blocks of contiguous columns of ``X`` (Fortran order), all steps of
    one cache-sized block before the next."""
    n, d = X.shape
    cols = X.T
    width = max(1, _BLOCK_ELEMENTS // n)
    buf = np.empty((min(width, d), n), dtype=bool)
    parts = []
    for s in range(0, d, width):
        block = cols[s : s + width]
        bb = buf[: block.shape[0]]

        def count(mid: np.ndarray, block: np.ndarray = block, bb: np.ndarray = bb) -> np.ndarray:
            np.less_equal(block, mid[:, None], out=bb)
            return np.count_nonzero(bb, axis=1)

        parts.append(
            _search_steps(
                count, lo[s : s + width], hi[s : s + width], noise[:, s : s + width], target
            )
        )
    low, up, mids, counts = (np.concatenate([p[i] for p in parts], axis=-1) for i in range(4))
    return low, up, mids, counts


def _search_passes(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, noise: np.ndarray, target: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_search_steps` with one comparison pass over all of ``X`` per step."""
    buf = np.empty(X.shape, dtype=bool)

    def count(mid: np.ndarray) -> np.ndarray:
        np.less_equal(X, mid, out=buf)
        return np.add.reduce(buf.view(np.uint8), axis=0, dtype=np.intp)

    return _search_steps(count, lo, hi, noise, target)


def binary_search_trace(
    x: ArrayLike,
    q: float,
    bounds: Bounds,
    *,
    rho: float,
    steps: int,
    rng: RngLike = None,
    return_top: bool = False,
    points_per_person: int = 1,
) -> BinarySearchTrace:
    """Run :func:`binary_search_quantile` and return every intermediate step.

    Same arguments, same random draws and same privacy guarantee for ``value`` as
    :func:`binary_search_quantile` (which calls this function). The trace also holds the exact
    counts, which are **not** private: they are for teaching pictures on synthetic data and for
    tests.

    Privacy
    -------
    Replace-one neighbours, ``n`` public; ``value``, ``lower``, ``upper``, ``midpoints`` and
    ``noisy_counts`` are ``rho``-zCDP in total (each count has sensitivity 1 and gets
    ``rho / (d T)``; ``rho / d`` per column), charged to the caller's open ledger stage. With
    ``points_per_person = k`` a count moves by up to ``k``: the same noise is ``k**2 rho``-zCDP and
    is charged so. ``counts`` are not private.

    Returns
    -------
    BinarySearchTrace
        ``value``, final ``lower``/``upper`` interval ends, and per step the ``midpoints``,
        exact ``counts`` #{x <= mid}, ``noisy_counts`` (arrays of shape ``(steps,)`` for 1-D
        input, ``(steps, d)`` for 2-D) and the count noise standard deviation
        ``noise_std = sqrt(steps * d / (2 rho))``.

    References
    ----------
    docs/estimators/plan.md §3a; see :func:`binary_search_quantile`.
    """
    X, one_d = _as_columns(x)
    _n, d = X.shape
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    r = check_positive(rho, "rho")
    t = _check_steps(steps)
    k = points_per_person
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(
            f"points_per_person must be a positive integer (1 unless each person contributes "
            f"several values); got {k!r}."
        )
    low, up, mids, counts, noisy, std = _binary_search(
        X, qq, lo, hi, r, t, mechanisms.generator(rng), points_per_person=int(k)
    )
    value = up if return_top else 0.5 * (low + up)
    if one_d:
        mids, counts, noisy = mids[:, 0], counts[:, 0], noisy[:, 0]
    return BinarySearchTrace(
        _finish(value, one_d), _finish(low, one_d), _finish(up, one_d), mids, counts, noisy, std
    )


def binary_search_quantile(
    x: ArrayLike,
    q: float,
    bounds: Bounds,
    *,
    rho: float,
    steps: int,
    rng: RngLike = None,
    return_top: bool = False,
    points_per_person: int = 1,
) -> float | np.ndarray:
    """Private ``q``-quantile of each column by binary search with Gaussian noisy counts.

    Per column, starting from ``[l, u] = bounds``, each of ``T = steps`` pre-declared steps
    releases ``c = #{x_j <= mid} + N(0, T / (2 rho_col))`` at ``mid = (l + u) / 2`` and moves
    ``l = mid`` if ``c <= q n``, else ``u = mid``. The result is ``(l + u) / 2`` (or ``u``).

    Privacy
    -------
    Replace-one neighbours, ``n`` public. A count has sensitivity 1 (replacing one row moves
    every count by at most 1), so each Gaussian count with variance ``T / (2 rho_col)`` is
    ``rho_col / T``-zCDP; the ``T`` adaptive steps compose to ``rho_col = rho / d`` per column and
    the ``d`` columns to ``rho``-zCDP in total, charged by :func:`dpcore.mechanisms.gaussian` to
    the caller's open ledger stage. Exactly ``steps`` noisy counts are made per column (no early
    stopping), whatever the data. ``points_per_person = k`` (a person holds ``k`` of the values):
    a count moves by up to ``k`` and the same draw is charged ``k**2 rho``.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
        Data; values outside ``bounds`` behave as if clipped to them (the counts are identical).
    q : float
        Quantile level in (0, 1); the target rank is ``m = q n``.
    bounds : (lower, upper)
        Public search range, scalars or length-``d`` arrays.
    rho : float
        Total zCDP budget of the call; each column gets ``rho / d``.
    steps : int
        Number of search steps ``T`` (fixed in advance; the final interval has width
        ``(upper - lower) 2**-T``).
    rng : None, int or numpy.random.Generator
        Source of randomness.
    return_top : bool
        Return the top ``u`` of the final interval (the analysis variant of PLAN, so that no point
        of the final interval is clipped) instead of its midpoint.
    points_per_person : int
        How many of the values one person contributes (1).

    Returns
    -------
    float or ndarray of shape (d,)
        The private quantile, always inside ``bounds``.

    Notes
    -----
    Counting uses one comparison pass per step, or one sort of the columns followed by a
    vectorised binary search when ``steps`` is large compared with ``log2 n``, or, when the
    columns of ``x`` are contiguous in memory (Fortran order, e.g. the transpose of a
    ``(d, n)`` array), all ``steps`` comparisons on one cache-sized block of columns at a time;
    all give the same exact counts and so the same output for the same seed. See :func:`rank_error_bound`
    for the accuracy guarantee (Lemma 2.8).

    References
    ----------
    Smith (STOC 2011); Huang, Liang and Yi (NeurIPS 2021); Aumüller, Lebeda, Nelson, Pagh, PLAN
    (PETS 2024), Lemmas 2.8-2.9; docs/estimators/plan.md §3a.
    """
    return binary_search_trace(
        x,
        q,
        bounds,
        rho=rho,
        steps=steps,
        rng=rng,
        return_top=return_top,
        points_per_person=points_per_person,
    ).value
