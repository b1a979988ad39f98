"""Private quantiles, vectorised over the columns of a data matrix.

Three routines, each used by several estimators:

* :func:`binary_search_quantile` -- noisy binary search with Gaussian counts, ``rho``-zCDP
  (Smith 2011; Huang, Liang & Yi 2021; PLAN paper Lemma 2.8; specs/plan.md §3a).
* :func:`exponential_quantile` -- the exponential mechanism over the gaps of the sorted data
  (Smith 2011; Kaplan, Schnapp & Stemmer 2022), pure ``epsilon``-DP or ``rho``-zCDP
  (specs/plan.md §3b).
* :func:`unbounded_quantile` -- Durfee's AboveThreshold walk over a geometric grid with one-sided
  exponential noise, pure DP (or Gaussian noise for zCDP) (Durfee 2023; Ramsay & Spicker 2025;
  specs/winsorized.md §2.1, §2.4, §2.6).

Conventions shared by all three (DESIGN.md):

* ``x`` is 1-D (``n`` values; the result is a ``float``) or 2-D (``n`` rows by ``d`` columns; the
  result is an array of shape ``(d,)``, one quantile per column).
* The budget passed is the **total** for the call. With ``d`` columns each column gets
  ``budget / d`` (``rho / d``, ``epsilon / d``), and basic composition over the columns gives the
  total back.
* Neighbouring relation: replace-one (bounded DP). ``n`` is public and two data sets are neighbours
  when they differ in exactly one row (so in at most one value of every column).
* ``bounds=(lower, upper)`` are public, chosen without looking at the data; scalars or per-column
  arrays.
* Randomness comes only from the keyword-only ``rng`` (``None``, an int seed or a
  ``numpy.random.Generator``), never from global numpy state.

References
----------
Smith, A. "Privacy-preserving statistical estimation with optimal convergence rates." STOC 2011.
Huang, Z., Liang, Y. and Yi, K. "Instance-optimal mean estimation under differential privacy."
NeurIPS 2021.
Aumüller, M., Lebeda, C. J., Nelson, B. and Pagh, R. "PLAN: Variance-aware private mean
estimation." PETS 2024 (arXiv 2306.08745), Lemma 2.8; specs/plan.md §3.
Kaplan, H., Schnapp, S. and Stemmer, U. "Differentially private approximate quantiles." ICML 2022.
Durfee, D. "Unbounded differentially private quantile and maximum estimation." NeurIPS 2023.
Ramsay, K. and Spicker, D. "Improved subsample-and-aggregate via the private modified winsorized
mean." arXiv 2501.14095 (2025); specs/winsorized.md §2.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from dpcore._validation import (
    RngLike,
    as_generator,
    check_bounds,
    check_data,
    check_positive,
    check_probability,
)

__all__ = [
    "BinarySearchTrace",
    "UnboundedQuantile",
    "binary_search_quantile",
    "binary_search_trace",
    "exponential_quantile",
    "exponential_quantile_probabilities",
    "grid_size",
    "log_grid_quantile",
    "log_grid_rank_error",
    "log_grid_size",
    "premature_stop_risk",
    "rank_error_bound",
    "unbounded_quantile",
]

Bounds = tuple[ArrayLike, ArrayLike]

#: Largest number of grid points the unbounded quantile will build per column.
MAX_GRID_SIZE = 10_000_000
#: Elements per working array of the unbounded quantile before columns are processed in chunks.
_CHUNK_ELEMENTS = 1 << 22


# ----------------------------------------------------------------------------------------------
# shared helpers
# ----------------------------------------------------------------------------------------------


def _as_columns(x: ArrayLike) -> tuple[np.ndarray, bool]:
    """Return ``x`` as an ``(n, d)`` float array and whether the input was 1-D."""
    arr = check_data(x, name="x")
    if arr.ndim == 1:
        return arr[:, None], True
    return arr, False


def _finish(values: np.ndarray, one_d: bool) -> float | np.ndarray:
    return float(values[0]) if one_d else values


def _check_steps(steps: Any) -> int:
    if isinstance(steps, (bool, np.bool_)) or not isinstance(steps, (int, np.integer)):
        raise ValueError(
            f"steps must be a positive integer number of binary-search steps; got {steps!r}."
        )
    if steps < 1:
        raise ValueError(f"steps must be at least 1 (typically 10 to 40); got {steps}.")
    return int(steps)


def _check_beta(beta: Any) -> float:
    try:
        b = float(beta)
    except (TypeError, ValueError) as err:
        raise ValueError(f"beta must be a number greater than 1; got {beta!r}.") from err
    if not (math.isfinite(b) and b > 1.0):
        raise ValueError(
            f"beta must be a finite grid ratio greater than 1 (the papers use 1.001); got {beta!r}."
        )
    return b


# ----------------------------------------------------------------------------------------------
# 1. binary search with Gaussian counts (specs/plan.md §3a)
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
    constants (specs/plan.md §10 item 16): a union bound over the ``T`` Gaussian counts with the
    tail ``2 exp(-r**2 / (2 s**2))``, ``s**2 = T / (2 rho)``, gives the rigorous but larger
    ``sqrt(T ln(2 T / beta) / rho)``. This helper returns the paper's form, as used for the PLAN
    clip quantile (specs/plan.md §2).

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
    Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Lemma 2.8; specs/plan.md §3a.
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
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    n, d = X.shape
    rho_col = rho / d
    noise_std = math.sqrt(steps / (2.0 * rho_col))
    target = q * n
    # All T x d count noises at once: exactly `steps` Gaussian counts per column, no early stop.
    noise = noise_std * gen.standard_normal((steps, d))
    if sorted_counts is None:
        sorted_counts = _use_sorted_counts(n, steps)
    # Three ways to get the same exact counts (so the same output for the same seed):
    if sorted_counts:  # one sort, then a vectorised binary search per step
        sorted_t = np.empty((d, n))
        sorted_t[...] = X.T
        sorted_t.sort(axis=1)
        low, up, mids, counts = _search_steps(
            lambda mid: _vector_searchsorted_right(sorted_t, mid), lo.copy(), hi.copy(), noise, target
        )
    elif d > 1 and X.flags.f_contiguous:  # contiguous columns: all T steps per cache-sized block
        cols = X.T
        width = max(1, _BLOCK_ELEMENTS // n)
        buf = np.empty((min(width, d), n), dtype=bool)
        parts = []
        for s in range(0, d, width):
            block = cols[s: s + width]
            bb = buf[: block.shape[0]]

            def count(mid: np.ndarray, block: np.ndarray = block, bb: np.ndarray = bb) -> np.ndarray:
                np.less_equal(block, mid[:, None], out=bb)
                return np.count_nonzero(bb, axis=1)

            parts.append(_search_steps(count, lo[s: s + width], hi[s: s + width], noise[:, s: s + width], target))
        low, up, mids, counts = (np.concatenate([p[i] for p in parts], axis=-1) for i in range(4))
    else:  # one comparison pass over the data per step
        buf = np.empty(X.shape, dtype=bool)

        def count(mid: np.ndarray) -> np.ndarray:
            np.less_equal(X, mid, out=buf)
            return np.add.reduce(buf.view(np.uint8), axis=0, dtype=np.intp)

        low, up, mids, counts = _search_steps(count, lo.copy(), hi.copy(), noise, target)
    return low, up, mids, counts, counts + noise, noise_std


def binary_search_trace(
    x: ArrayLike,
    q: float,
    bounds: Bounds,
    *,
    rho: float,
    steps: int,
    rng: RngLike = None,
    return_top: bool = False,
) -> BinarySearchTrace:
    """Run :func:`binary_search_quantile` and return every intermediate step.

    Same arguments, same random draws and same privacy guarantee for ``value`` as
    :func:`binary_search_quantile` (which calls this function). The trace also holds the exact
    counts, which are **not** private: they are for teaching pictures on synthetic data and for
    tests.

    Privacy: replace-one neighbours, ``n`` public; ``value``, ``lower``, ``upper``,
    ``midpoints`` and ``noisy_counts`` are ``rho``-zCDP in total (each count has sensitivity 1
    and gets ``rho / (d T)``; ``rho / d`` per column). ``counts`` are not private.

    Returns
    -------
    BinarySearchTrace
        ``value``, final ``lower``/``upper`` interval ends, and per step the ``midpoints``,
        exact ``counts`` #{x <= mid}, ``noisy_counts`` (arrays of shape ``(steps,)`` for 1-D
        input, ``(steps, d)`` for 2-D) and the count noise standard deviation
        ``noise_std = sqrt(steps * d / (2 rho))``.

    References
    ----------
    specs/plan.md §3a; see :func:`binary_search_quantile`.
    """
    X, one_d = _as_columns(x)
    n, d = X.shape
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    r = check_positive(rho, "rho")
    t = _check_steps(steps)
    low, up, mids, counts, noisy, std = _binary_search(X, qq, lo, hi, r, t, as_generator(rng))
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
) -> float | np.ndarray:
    """Private ``q``-quantile of each column by binary search with Gaussian noisy counts.

    Per column, starting from ``[l, u] = bounds``, each of ``T = steps`` pre-declared steps
    releases ``c = #{x_j <= mid} + N(0, T / (2 rho_col))`` at ``mid = (l + u) / 2`` and moves
    ``l = mid`` if ``c <= q n``, else ``u = mid``. The result is ``(l + u) / 2`` (or ``u``).

    Privacy: replace-one neighbours, ``n`` public. A count has sensitivity 1 (replacing one row
    moves every count by at most 1), so each Gaussian count with variance ``T / (2 rho_col)`` is
    ``rho_col / T``-zCDP; the ``T`` adaptive steps compose to ``rho_col = rho / d`` per column and
    the ``d`` columns to ``rho``-zCDP in total. Exactly ``steps`` noisy counts are made per column
    (no early stopping), whatever the data.

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
    (PETS 2024), Lemmas 2.8-2.9; specs/plan.md §3a.
    """
    return binary_search_trace(
        x, q, bounds, rho=rho, steps=steps, rng=rng, return_top=return_top
    ).value


# ----------------------------------------------------------------------------------------------
# 2. exponential-mechanism quantile (specs/plan.md §3b)
# ----------------------------------------------------------------------------------------------


def _em_epsilon(rho: Any, epsilon: Any, d: int) -> float:
    if (rho is None) == (epsilon is None):
        raise ValueError(
            "pass exactly one of rho (zCDP budget) or epsilon (pure-DP budget); "
            f"got rho={rho!r}, epsilon={epsilon!r}."
        )
    if rho is not None:
        return math.sqrt(8.0 * check_positive(rho, "rho") / d)
    return check_positive(epsilon, "epsilon") / d


def _em_log_utility(n: int, q: float, epsilon_col: float, sensitivity: float) -> np.ndarray:
    return -(epsilon_col / (2.0 * sensitivity)) * np.abs(np.arange(n + 1) - q * n)


def exponential_quantile_probabilities(
    x_col: ArrayLike,
    q: float,
    bounds: tuple[float, float],
    epsilon_col: float,
    utility_sensitivity: float = 1.0,
) -> np.ndarray:
    """Exact interval probabilities of the exponential-mechanism quantile for one column.

    Parameters
    ----------
    x_col : array_like, shape (n,)
        One column of data.
    q : float
        Quantile level in (0, 1).
    bounds : (float, float)
        Public range ``[a, b]``.
    epsilon_col : float
        The pure-DP parameter used for this column (``epsilon / d``, or ``sqrt(8 rho / d)``).
    utility_sensitivity : float
        ``Δu`` (1 under replace-one; see :func:`exponential_quantile`).

    Privacy: this is the output distribution of the ``epsilon_col``-DP mechanism of
    :func:`exponential_quantile` for one column (replace-one neighbours, ``n`` public, utility
    sensitivity ``Δu``); the probabilities themselves depend on the data and are not private.

    Returns
    -------
    ndarray of shape (n + 1,)
        ``p[i]`` is the probability of interval ``I_i = [z_i, z_{i+1}]`` of the clipped, sorted
        data padded with ``z_0 = a`` and ``z_{n+1} = b``: ``p_i ∝ L_i exp(eps u_i / (2 Δu))``
        with ``L_i = z_{i+1} - z_i`` and ``u_i = -|i - q n|``. Zero-length intervals get 0.

    References
    ----------
    Kaplan, Schnapp, Stemmer (ICML 2022); specs/plan.md §3b.
    """
    arr = check_data(x_col, name="x_col", ndim=1)
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds)
    if lo.ndim or hi.ndim:
        raise ValueError("bounds must be two scalars for a single column.")
    eps = check_positive(epsilon_col, "epsilon_col")
    du = check_positive(utility_sensitivity, "utility_sensitivity")
    z = np.concatenate(([float(lo)], np.sort(np.clip(arr, lo, hi)), [float(hi)]))
    with np.errstate(divide="ignore"):
        logw = np.log(np.diff(z)) + _em_log_utility(arr.size, qq, eps, du)
    logw -= logw.max()
    w = np.exp(logw)
    return w / w.sum()


def exponential_quantile(
    x: ArrayLike,
    q: float,
    bounds: Bounds,
    *,
    rho: float | None = None,
    epsilon: float | None = None,
    rng: RngLike = None,
    utility_sensitivity: float = 1.0,
) -> float | np.ndarray:
    """Private ``q``-quantile of each column by the exponential mechanism (single quantile).

    Per column: clip to ``[a, b]``, sort, pad with ``a`` and ``b``; interval ``I_i`` between the
    ``i``-th and ``(i+1)``-th padded points (exactly ``i`` data points below it) has length
    ``L_i`` and utility ``u_i = -|i - q n|``. Choose ``i`` with probability
    ``∝ L_i exp(eps_col u_i / (2 Δu))``, then a uniform point of ``I_i``. Sampling is done in log
    space with the Gumbel-max trick, ``argmax_i(log L_i + eps_col u_i / (2 Δu) + G_i)`` with
    ``G_i = -log E_i``, ``E_i ~ Exp(1)`` standard Gumbel; zero-length intervals (ties) get
    ``log 0 = -inf`` and are never chosen (no flooring of lengths, unlike Kaplan's code).

    Privacy: replace-one neighbours, ``n`` public. For every output point ``y`` the number of data
    points below ``y`` moves by at most 1 when one row is replaced, so the utility has sensitivity
    ``Δu = 1`` (the default) and the mechanism is ``eps_col``-DP per column. Kaplan et al.'s code
    uses ``Δu = max(q, 1 - q)``, the add/remove constant (0.5 for the median); under replace-one it
    would double the real privacy loss at the median (specs/plan.md §10 item 9), so only pass it
    if you use add/remove neighbours. Budget split: with ``epsilon`` each column gets
    ``eps_col = epsilon / d`` (total ``epsilon``-DP by composition); with ``rho`` each column
    gets ``eps_col = sqrt(8 rho / d)``, because the exponential mechanism is a bounded-range
    mechanism and ``eps``-DP EM is ``eps**2 / 8``-zCDP (Cesar and Rogers 2021), i.e.
    ``rho / d`` per column and ``rho``-zCDP in total (as in the PLAN authors' code).

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
        Data; values outside ``bounds`` are clipped.
    q : float
        Quantile level in (0, 1).
    bounds : (lower, upper)
        Public range, scalars or length-``d`` arrays.
    rho, epsilon : float
        Total budget of the call, zCDP or pure DP; pass exactly one.
    rng : None, int or numpy.random.Generator
        Source of randomness.
    utility_sensitivity : float
        ``Δu``; 1 under replace-one (default).

    Returns
    -------
    float or ndarray of shape (d,)
        The private quantile, always inside ``bounds``.

    See Also
    --------
    exponential_quantile_probabilities : the exact interval probabilities for one column.

    References
    ----------
    McSherry and Talwar (FOCS 2007); Smith (STOC 2011); Kaplan, Schnapp and Stemmer,
    "Differentially private approximate quantiles" (ICML 2022); Cesar and Rogers, "Bounding,
    concentrating, and truncating: unifying privacy loss composition for data analytics"
    (ALT 2021); Aumüller et al., PLAN (PETS 2024) §7; specs/plan.md §3b and §10 item 9.
    """
    X, one_d = _as_columns(x)
    n, d = X.shape
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    eps_col = _em_epsilon(rho, epsilon, d)
    du = check_positive(utility_sensitivity, "utility_sensitivity")
    gen = as_generator(rng)

    # Work on the transposed layout (d, n + 2): every per-column operation is then contiguous.
    z = np.empty((d, n + 2))
    z[:, 0], z[:, -1] = lo, hi
    inner = z[:, 1:-1]
    inner[...] = X.T
    inner.sort(axis=1)
    if np.any(inner[:, 0] < lo) or np.any(inner[:, -1] > hi):
        np.clip(inner, lo[:, None], hi[:, None], out=inner)  # sort and clip commute
    key = np.diff(z, axis=1)  # interval lengths L_i, shape (d, n + 1)
    gumbel = gen.standard_exponential(key.shape)
    with np.errstate(divide="ignore"):
        np.log(key, out=key)  # log 0 = -inf for ties
        np.log(gumbel, out=gumbel)  # -G_i
    key -= gumbel
    key += _em_log_utility(n, qq, eps_col, du)
    idx = np.argmax(key, axis=1)
    rows = np.arange(d)
    left, right = z[rows, idx], z[rows, idx + 1]
    value = left + gen.random(d) * (right - left)
    return _finish(np.clip(value, lo, hi), one_d)


# ----------------------------------------------------------------------------------------------
# 3. unbounded quantile, AboveThreshold on a geometric grid (specs/winsorized.md §2)
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
    Durfee (NeurIPS 2023); specs/winsorized.md §2.6.
    """
    lo, hi = check_bounds(bounds)
    k = _grid_size(np.atleast_1d(lo), np.atleast_1d(hi), _check_beta(beta))
    lo_b, hi_b = np.broadcast_arrays(lo, hi)
    return int(k[0]) if lo_b.ndim == 0 else k.reshape(lo_b.shape)


def premature_stop_risk(
    n: int, q: float, epsilon_query: float | np.ndarray, K: int | np.ndarray
) -> float | np.ndarray:
    """Approximate probability that the pure unbounded quantile stops before reaching the data.

    Below the data every count is 0, so each of the ``K`` grid points there stops the walk when
    its query noise exceeds the target ``q n`` (plus the non-negative threshold noise):
    ``P(early) ≈ 1 - exp(-K exp(-eps_Q q n))`` (specs/winsorized.md §2.6). It ignores the
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
    specs/winsorized.md §2.6.
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


def _bin_index(xc: np.ndarray, lo: np.ndarray, kmax: int, log_beta: float) -> np.ndarray:
    """``b(x) = #{i in 1..kmax : lo + beta**i - 1 <= x}`` per value (columns share ``lo`` by column).

    Then ``#{x < g_i} = #{x : b(x) < i}``. A logarithm gives the index up to rounding; the
    comparisons against the grid as computed make it exact.
    """
    with np.errstate(invalid="ignore"):
        est = np.floor(np.log(np.maximum(xc - lo + 1.0, 1.0)) / log_beta)
    k = np.clip(est, 0, kmax).astype(np.int64)
    while True:  # move up while the next grid point is <= x
        nxt = np.minimum(k, kmax - 1)
        up = (k < kmax) & (lo + _grid_minus_one(nxt + 1, log_beta) <= xc)
        if not up.any():
            break
        k += up
    while True:  # move down while the current grid point is > x
        cur = np.maximum(k, 1)
        down = (k > 0) & (lo + _grid_minus_one(cur, log_beta) > xc)
        if not down.any():
            break
        k -= down
    return k


def _grid_counts(xc: np.ndarray, lo: np.ndarray, kmax: int, log_beta: float) -> np.ndarray:
    """Exact counts ``c[j, i-1] = #{x[:, j] < lo_j + beta**i - 1}`` for ``i = 1..kmax``."""
    n, m = xc.shape
    b = _bin_index(xc, lo[None, :], kmax, log_beta)
    flat = (b + (kmax + 1) * np.arange(m)[None, :]).ravel()
    hist = np.bincount(flat, minlength=m * (kmax + 1)).reshape(m, kmax + 1)
    return np.cumsum(hist, axis=1)[:, :kmax]


def _walk_up(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    q: float,
    beta: float,
    pure: bool,
    budget_t: float,
    budget_q: float,
    gen: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """UQ_UP of specs/winsorized.md §2.1 with the hard stop at ``hi``, vectorised over columns."""
    n, d = X.shape
    log_beta = math.log(beta)
    K = _grid_size(lo, hi, beta)
    kmax = int(K.max())
    if pure:
        threshold = q * n + gen.standard_exponential(d) / budget_t
    else:
        threshold = q * n + gen.standard_normal(d) / math.sqrt(budget_t)
    value = np.empty(d)
    steps = np.empty(d, dtype=np.int64)
    hit = np.empty(d, dtype=bool)
    gm1 = _grid_minus_one(np.arange(1, kmax + 1), log_beta)
    chunk = max(1, min(d, _CHUNK_ELEMENTS // (kmax + n)))
    for s in range(0, d, chunk):  # chunks over columns only, to bound memory for large K * d
        cols = slice(s, min(s + chunk, d))
        counts = _grid_counts(X[:, cols], lo[cols], kmax, log_beta)  # (m, kmax)
        m = counts.shape[0]
        if pure:
            noisy = counts + gen.standard_exponential((m, kmax)) / budget_q
        else:
            noisy = counts + gen.standard_normal((m, kmax)) / math.sqrt(budget_q)
        # Grid points g_i < hi are queried; the first g_i >= hi (i = K) is the hard stop.
        valid = np.arange(kmax)[None, :] < (K[cols] - 1)[:, None]
        exceed = valid & (noisy > threshold[cols, None])
        stopped = exceed.any(axis=1)
        first = exceed.argmax(axis=1)
        value[cols] = np.where(stopped, lo[cols] + gm1[first], hi[cols])
        steps[cols] = np.where(stopped, first + 1, K[cols])
        hit[cols] = ~stopped
    return np.minimum(value, hi), steps, hit


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

    Privacy: replace-one neighbours, ``n`` public (the target ``q n`` uses it). The counts have
    sensitivity 1 and are monotone (replacing a row moves all of them in the same direction), so
    AboveThreshold with one-sided noise is ``(eps_T + eps_Q)``-DP per column (Durfee 2023;
    specs/winsorized.md §2.1). The zCDP variant is ``(rho_T + rho_Q)``-zCDP per column, as claimed
    by Ramsay and Spicker, Lemma D.1 (specs/winsorized.md §2.4, §10 item 6). Budget split: the
    budgets passed are totals; each of the ``d`` columns gets ``eps_T / d`` and ``eps_Q / d`` (or
    ``rho_T / d`` and ``rho_Q / d``), and the call costs ``eps_T + eps_Q`` (or
    ``rho_T + rho_Q``) in total.

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
        Total zCDP budgets (pass these instead of the epsilons for the Gaussian variant).
    beta : float
        Grid ratio, > 1 (default 1.001 as in every experiment of the paper).
    rng : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    UnboundedQuantile
        ``(value, steps, hit_bound)``; scalars for 1-D input, arrays of shape ``(d,)`` for 2-D.

    Notes
    -----
    Vectorised as in specs/winsorized.md §2.6: exact counts for all ``K`` grid points of all
    columns at once (a histogram of grid indices, equal to ``searchsorted`` on the sorted
    column), all noises drawn at once, and the first exceedance by ``argmax`` on a boolean array;
    the same distribution as the sequential loop. Columns are processed in chunks when ``K * d``
    is large. With few data points or a small ``eps_Q`` the walk may stop below the data
    (premature stopping); :func:`premature_stop_risk` estimates that probability.

    References
    ----------
    Durfee, D. "Unbounded differentially private quantile and maximum estimation." NeurIPS 2023.
    Ramsay and Spicker, "Improved subsample-and-aggregate via the private modified winsorized
    mean", arXiv 2501.14095, Algorithm (private quantile) and Lemma D.1; specs/winsorized.md
    §2.1, §2.4 and §2.6.
    """
    X, one_d = _as_columns(x)
    n, d = X.shape
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    b = _check_beta(beta)
    pure, budget_t, budget_q = _unbounded_budgets(
        epsilon_threshold, epsilon_query, rho_threshold, rho_query, d
    )
    gen = as_generator(rng)
    if qq >= 0.5:
        value, steps, hit = _walk_up(X, lo, hi, qq, b, pure, budget_t, budget_q, gen)
    else:
        v, steps, hit = _walk_up(-X, -hi, -lo, 1.0 - qq, b, pure, budget_t, budget_q, gen)
        value = np.maximum(-v, lo)
    if one_d:
        return UnboundedQuantile(float(value[0]), int(steps[0]), bool(hit[0]))
    return UnboundedQuantile(value, steps, hit)


# ----------------------------------------------------------------------------------------------
# 4. exponential mechanism over a public log-spaced grid (robust radius; issue 12)
# ----------------------------------------------------------------------------------------------

#: Default ratio between neighbouring grid radii and span ``upper / lowest`` of the log grid.
LOG_GRID_RATIO = 1.02
LOG_GRID_SPAN = 1e9


def log_grid_size(span: float = LOG_GRID_SPAN, ratio: float = LOG_GRID_RATIO) -> int:
    """Number ``G`` of points of the grid ``upper * ratio**-k``, ``k = 0..G-1``, covering ``span``."""
    sp, r = check_positive(span, "span"), check_positive(ratio, "ratio")
    if sp <= 1 or r <= 1:
        raise ValueError(f"span and ratio must exceed 1; got span={span!r}, ratio={ratio!r}.")
    return int(math.ceil(math.log(sp) / math.log(r))) + 1


def log_grid_rank_error(rho: float, beta: float, span: float = LOG_GRID_SPAN,
                        ratio: float = LOG_GRID_RATIO) -> float:
    """Rank error of :func:`log_grid_quantile` that holds with probability ``1 - beta``.

    The exponential mechanism with ``eps = sqrt(8 rho)`` and utility sensitivity 1 picks a grid
    point whose utility is ``t`` below the best one with probability at most ``G exp(-eps t / 2)``
    (McSherry and Talwar 2007), so the rank error beyond the grid's own resolution is at most
    ``2 ln(G / beta) / eps``.

    References
    ----------
    McSherry, F. and Talwar, K. "Mechanism design via differential privacy." FOCS 2007.
    """
    r = check_positive(rho, "rho")
    b = check_probability(beta, "beta")
    return 2.0 * math.log(log_grid_size(span, ratio) / b) / math.sqrt(8.0 * r)


def log_grid_quantile(x: ArrayLike, q: float, upper: float, *, rho: float, span: float = LOG_GRID_SPAN,
                      ratio: float = LOG_GRID_RATIO, rng: RngLike = None) -> float:
    """Private ``q``-quantile of non-negative values by the exponential mechanism over the public
    log-spaced grid ``r_k = upper * ratio**-k``, ``k = 0..G-1`` (``r_{G-1} ~ upper / span``).

    Utility ``u_k = -|#{x_j <= r_k} - q n|`` (rank based). Under replace-one a count changes by at
    most 1, so the sensitivity is 1; the mechanism samples ``k`` with probability
    ``∝ exp(eps u_k / 2)``, ``eps = sqrt(8 rho)``: ``eps``-DP, hence ``eps**2 / 8 = rho``-zCDP by
    the bounded-range argument (specs/plan.md §1, as for the other exponential-mechanism quantile).

    Unlike a noisy binary search (one wrong turn early on is never undone) or the exponential
    mechanism over the gaps of ``[0, upper]`` (the empty stretch above the data carries weight
    proportional to its length), every grid point weighs the same: a radius far above the data has
    the utility of the largest norm, so it is chosen with probability at most
    ``G exp(-eps k / 2)`` for a rank slack ``k`` (:func:`log_grid_rank_error`). The answer degrades
    in rank, never in scale.

    Parameters
    ----------
    x : array (n,)
        Non-negative values (norms); values above ``upper`` count as above every grid point.
    q : float
        Target quantile in [0, 1].
    upper : float
        Public top of the grid.
    rho : float
        zCDP budget of the call.
    span, ratio : float
        Grid span ``upper / lowest`` and ratio between neighbours (public).
    rng : None, int or Generator

    Returns
    -------
    float
        A grid radius.

    References
    ----------
    McSherry and Talwar (FOCS 2007); Smith (STOC 2011) for rank utilities; issue 12 of this
    project; specs/plan.md §3b.
    """
    arr = check_data(x, name="x")
    if arr.ndim != 1:
        raise ValueError("x must be 1-D (one value per person) for log_grid_quantile.")
    qq = check_probability(q, "q")
    top = check_positive(upper, "upper")
    eps = math.sqrt(8.0 * check_positive(rho, "rho"))
    G = log_grid_size(span, ratio)
    grid = top * ratio ** -np.arange(G, dtype=float)[::-1]  # ascending
    counts = np.searchsorted(np.sort(arr), grid, side="right")
    log_w = -(eps / 2.0) * np.abs(counts - qq * arr.size)
    gumbel = as_generator(rng).gumbel(size=G)
    return float(grid[int(np.argmax(log_w + gumbel))])
