"""The exponential-mechanism quantiles: over the gaps of the sorted data, and over a log grid.

Every draw goes through :func:`dpcore.mechanisms.exponential`, which charges the active ledger
stage of the caller (:func:`dpcore.mechanisms.stage`); these routines open no stage of their own.
:func:`exponential_quantile` and :func:`exponential_quantile_fast` are the same mechanism with two
samplers (Gumbel keys, or one uniform per column against the cumulative weights), kept side by side
because each estimator's seeded numbers depend on its own.

In a release (the backend of :mod:`dpcore.release`) both are the exponential mechanism over the
public grid of :data:`GRID_BITS`: the released quantile is a grid point fixed by the public range
and a privately chosen integer, never a float computed from data values (docs/privacy-contract.md).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from dpcore import _kernels, mechanisms
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_data,
    check_positive,
    check_probability,
)
from dpcore.quantiles._common import Bounds, _as_columns, _finish
from dpcore.quantiles._envelope import envelope_pick
from dpcore.quantiles._window import window, window_pick

# ----------------------------------------------------------------------------------------------
# 2. exponential-mechanism quantile (docs/estimators/plan.md §3b)
# ----------------------------------------------------------------------------------------------

#: In a release, a quantile is a point of the public grid ``a + j·(b − a)·2^-GRID_BITS``,
#: ``j = 0..2^GRID_BITS``, of its public range ``[a, b]``.
GRID_BITS = 32


def grid_step(lower: Any, upper: Any) -> np.ndarray:
    """The spacing ``(upper − lower)·2^-GRID_BITS`` of the release grid (public values only)."""
    return (np.asarray(upper, dtype=float) - np.asarray(lower, dtype=float)) * 2.0**-GRID_BITS


def _to_grid(z: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Rows of sorted, clipped data padded with ``lo`` and ``hi`` as grid indices, in place.

    A value ``x`` becomes ``floor((x − lo) / step)`` (a monotone map of each row, so one changed row
    still moves the rank of any grid point by at most one); the pads become ``-1`` and
    ``N = 2^GRID_BITS``. Gap ``z[i + 1] − z[i]`` is then the number of grid points with exactly
    ``i`` data values below them, the integer base measure of the mechanism over the grid.
    """
    top = 2.0**GRID_BITS
    inner = z[:, 1:-1]
    inner -= lo[:, None]
    inner /= grid_step(lo, hi)[:, None]
    np.clip(np.floor(inner, out=inner), 0.0, top, out=inner)
    z[:, 0], z[:, -1] = -1.0, top


def _grid_value(
    gen: Any, left: np.ndarray, right: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    """A uniform grid point of each chosen gap ``(left, right]`` of grid indices, as a value.

    The index is an exact uniform integer of the backend; the value ``lo + j·step`` is a function
    of public values and that index only (post-processing), and what the mechanism releases
    (:func:`dpcore.mechanisms.released`). A chosen gap always holds a grid point (an empty gap
    has weight 0); ``max(·, 1)`` only keeps a replayed choice of the probe drawable.
    """
    picks = np.array([gen.integers(max(int(b - a), 1)) for a, b in zip(left, right, strict=True)])
    value = np.clip(lo + (left + 1.0 + picks) * grid_step(lo, hi), lo, hi)
    return np.asarray(mechanisms.released(gen, value), dtype=float)


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
    Kaplan, Schnapp, Stemmer (ICML 2022); docs/estimators/plan.md §3b.
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
    ``Δu = 1`` (the default) and the mechanism is ``eps_col``-DP per column. The draw is made by
    :func:`dpcore.mechanisms.exponential`, which charges the caller's open ledger stage
    (``epsilon``, or ``rho`` in a zCDP ledger). Kaplan et al.'s code
    uses ``Δu = max(q, 1 - q)``, the add/remove constant (0.5 for the median); under replace-one it
    would double the real privacy loss at the median (docs/estimators/plan.md §10 item 9), so only
    pass it if you use add/remove neighbours. Budget split: with ``epsilon`` each column gets
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
    (ALT 2021); Aumüller et al., PLAN (PETS 2024) §7; docs/estimators/plan.md §3b and §10 item 9.
    """
    X, one_d = _as_columns(x)
    n, d = X.shape
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    eps_col = _em_epsilon(rho, epsilon, d)
    du = check_positive(utility_sensitivity, "utility_sensitivity")
    gen = mechanisms.generator(rng)

    # Work on the transposed layout (d, n + 2): every per-column operation is then contiguous.
    z = np.empty((d, n + 2))
    z[:, 0], z[:, -1] = lo, hi
    inner = z[:, 1:-1]
    inner[...] = X.T
    inner.sort(axis=1)
    if np.any(inner[:, 0] < lo) or np.any(inner[:, -1] > hi):
        np.clip(inner, lo[:, None], hi[:, None], out=inner)  # sort and clip commute
    release = mechanisms.is_release(gen)
    if release:
        _to_grid(z, lo, hi)  # a release: the mechanism over the public grid's points
    log_len = np.diff(z, axis=1)  # interval lengths L_i, shape (d, n + 1)
    with np.errstate(divide="ignore"):
        np.log(log_len, out=log_len)  # log 0 = -inf for ties: never chosen
    # argmax_i (log L_i - log E_i) + eps u_i / (2 du): -log E_i is standard Gumbel noise
    idx = mechanisms.exponential(
        np.broadcast_to(_em_log_utility(n, qq, eps_col, du), log_len.shape),
        sensitivity=du,
        epsilon=eps_col * d if epsilon is None else float(epsilon),
        coefficient=eps_col / (2.0 * du),
        rng=gen,
        columns=d,
        sampler="exponential",
        base=log_len,
        note=f"{d} exponential-mechanism {qq:g}-quantiles over the gaps of the data",
    )
    rows = np.arange(d)
    left, right = z[rows, idx], z[rows, idx + 1]
    if release:
        return _finish(_grid_value(gen, left, right, lo, hi), one_d)
    value = left + gen.random(d) * (right - left)
    return _finish(np.clip(value, lo, hi), one_d)


#: Simulations draw the full-sort medians of a call with at least :data:`ENVELOPE_MIN_VALUES`
#: values without a sort (:mod:`dpcore.quantiles._envelope`): the same law, other draws than the
#: sort's (docs/speed.md, "PLAN, round 8"). ``False`` puts every call back on the sorted draw.
ENVELOPE_MEDIANS = True
#: The envelope's compiled kernel runs only on calls of at least this many values (``n d``), as
#: every kernel of :mod:`dpcore._kernels` does: a small run imports no numba and keeps the sorted
#: draw, whose numbers (the fingerprints, Compare's default sweep, the presets) are unchanged.
ENVELOPE_MIN_VALUES = _kernels.MIN_SIZE

#: Values per block of columns in :func:`exponential_quantile_fast` (two ``(b, n)`` buffers that
#: stay in cache); at least 32 columns, so that reading a block of ``x`` uses whole cache lines.
_BLOCK_VALUES = 1 << 17


def _columns_into(dst: np.ndarray, X: np.ndarray, cols: slice) -> None:
    """``dst[...] = X[:, cols].T``, 256 rows of ``X`` at a time.

    numpy's strided copy of a whole transposed block misses the cache on every read; tiles of
    256 rows are about 2x faster at n = 10^4..10^5, d = 256..2048.
    """
    for j in range(0, X.shape[0], 256):
        dst[:, j : j + 256] = X[j : j + 256, cols].T


def exponential_quantile_fast(
    x: ArrayLike,
    q: float,
    bounds: Bounds,
    *,
    rho: float,
    rng: RngLike = None,
    points_per_person: int = 1,
) -> float | np.ndarray:
    """The exponential-mechanism quantile of :func:`exponential_quantile`, sampled by the inverse
    CDF in log space instead of noise on every interval.

    Interval ``I_i`` of the clipped sorted column padded with the bounds is chosen with probability
    ``∝ L_i exp(eps u_i / 2)``, ``u_i = -|i - q n|``, ``eps = sqrt(8 rho / d)``, then a uniform
    point of it. The log-weights ``log L_i + eps u_i / 2`` are formed per block of columns and
    handed to :func:`dpcore.mechanisms.exponential` (``sampler="inverse_cdf"``), which shifts each
    column by its own maximum before exponentiating, so a weight is rounded to 0 only when its
    probability relative to the most likely interval is below ``e^-745``, far under the ``2^-53``
    resolution of the uniform that picks the interval. Zero-length intervals (ties) have log-weight
    ``-inf`` and are never chosen. The bounds are validated (finite, ``lower < upper``), so every
    column has an interval of positive length and a positive total weight. The output distribution
    is that of :func:`exponential_quantile` (tested by a chi-square test); the random stream differs.
    When the weights fall off within a window of ranks much narrower than the column (large ``n``
    or budget), only that window is put in order (``numpy.partition``) and the gaps beyond it are
    drawn by a rejection step (:mod:`dpcore.quantiles._window`, docs/speed.md): the same
    distribution, the same draws from ``rng`` (the rejection step, about ``e^-120`` of the time,
    draws from a child generator). With :data:`ENVELOPE_MEDIANS` set (the default), a
    simulation's full-sort blocks are drawn without a sort instead when the call holds at least
    :data:`ENVELOPE_MIN_VALUES` values (:func:`dpcore.mechanisms.exponential_by_envelope`): the
    same distribution, other draws. A release and a smaller call keep the sort.

    Parameters
    ----------
    x : array (n,) or (n, d)
        Data; values outside ``bounds`` are clipped.
    q : float
        Quantile level in (0, 1).
    bounds : (lower, upper)
        Public range, scalars or length-``d`` arrays.
    rho : float
        The zCDP budget the weights are computed for (``eps = sqrt(8 rho / d)`` per column).
    rng : None, int, Generator or release backend
    points_per_person : int
        How many of the ``n`` values one person contributes (1; 3 for the tripled data of the
        as-published PLAN). The weights do not change; the sensitivity does.

    Returns
    -------
    float or ndarray (d,)
        The private quantile, inside ``bounds``.

    Privacy
    -------
    Replace-one, ``n`` public. The rank utility has sensitivity ``k = points_per_person`` (one
    person moves at most ``k`` values across any point), so each column is ``k eps``-DP and the
    call is charged ``k**2 rho`` (zCDP, bounded range: ``d (k eps)**2 / 8``) to the caller's open
    stage; with ``k = 1``, ``rho``-zCDP. In a release the candidates are the public grid's points,
    as in :func:`exponential_quantile`.

    References
    ----------
    Kaplan, Schnapp, Stemmer (ICML 2022); Cesar and Rogers (ALT 2021); docs/estimators/plan.md §3b,
    §9.17, §10.10.
    """
    arr = check_data(x, name="x")
    one_d = arr.ndim == 1
    X = arr[:, None] if one_d else arr
    n, d = X.shape

    def fill(dst: np.ndarray, cols: slice) -> None:
        _columns_into(dst, X, cols)

    value = _fast(fill, None, n, d, q, bounds, rho, rng, points_per_person)
    return float(value[0]) if one_d else value


def exponential_quantile_columns(
    V: np.ndarray, q: float, bounds: Bounds, *, rho: float, rng: RngLike = None
) -> np.ndarray:
    """:func:`exponential_quantile_fast` of the data whose column ``j`` is row ``j`` of ``V``
    (``(d, n)``): the same mechanism, the same draws, the same numbers, without copying a
    column-major view of ``(n, d)`` data block by block.

    ``V`` must hold finite values only (the caller has checked them, e.g. PLAN's pair statistics of
    checked data, :mod:`dpcore.estimators.plan.variances`); its rows may be reordered in place.

    Privacy
    -------
    As :func:`exponential_quantile_fast` with one point per person: ``rho``-zCDP, charged by
    :func:`dpcore.mechanisms.exponential` to the caller's open stage.
    """
    d, n = V.shape

    def fill(dst: np.ndarray, cols: slice) -> None:
        dst[...] = V[cols]

    return _fast(fill, V, n, d, q, bounds, rho, rng, 1)


def _fast(
    fill: Any,
    own: np.ndarray | None,
    n: int,
    d: int,
    q: float,
    bounds: Bounds,
    rho: float,
    rng: RngLike,
    points: int,
) -> np.ndarray:
    """The ``d`` private quantiles of :func:`exponential_quantile_fast`, block by block of columns:
    ``fill(dst, cols)`` writes the data of columns ``cols`` into the rows of ``dst``; ``own``, when
    given, holds them as rows that the windowed path may reorder where they are."""
    qq = check_probability(q, "q")
    lo, hi = check_bounds(bounds, d)
    eps = math.sqrt(8.0 * check_positive(rho, "rho") / d)
    k = _check_points(points)
    g = mechanisms.generator(rng)
    release = mechanisms.is_release(g)
    log_u = -(eps / 2.0) * np.abs(np.arange(n + 1) - qq * n)  # eps u_i / 2, shared by all columns
    left, right = np.empty(d), np.empty(d)
    ends = None if release else window(n, qq, eps / 2.0)
    envelope = ENVELOPE_MEDIANS and not release and n * d >= ENVELOPE_MIN_VALUES
    # Column blocks that stay in cache: sort, interval lengths, log-weights, pick.
    width = min(d, max(32, _BLOCK_VALUES // (n + 2)))
    zbuf, wbuf = np.empty((width, n + 2)), np.empty((width, n + 1))
    for s in range(0, d, width):
        cols = slice(s, min(s + width, d))
        m = cols.stop - s
        z, w = zbuf[:m], wbuf[:m]
        z[:, 0], z[:, -1] = lo[cols], hi[cols]
        charge = {
            "sensitivity": float(k),
            "epsilon": k * eps * m,
            "coefficient": eps / 2.0,
            "columns": m,
            "note": f"{m} exponential-mechanism {qq:g}-quantiles over the gaps of the data"
            + (f" ({k} points per person)" if k > 1 else ""),
        }
        if ends is not None or envelope:  # no full sort
            inner = z[:, 1:-1] if own is None else own[cols]
            if own is None:
                fill(inner, cols)
            if ends is not None:  # selection of the ranks that matter
                left[cols], right[cols] = window_pick(
                    inner, lo[cols], hi[cols], qq, eps, ends, g, **charge
                )
            else:  # drawn without a sort: left = right = the point
                left[cols] = right[cols] = envelope_pick(
                    inner, lo[cols], hi[cols], log_u, eps / 2.0, g, charge, _sorted_gaps
                )
            continue
        fill(z[:, 1:-1], cols)
        idx = _sorted_pick(z, w, lo[cols], hi[cols], log_u, g, release, charge)
        rows = np.arange(m)
        left[cols], right[cols] = z[rows, idx], z[rows, idx + 1]
    if release:
        return np.asarray(_grid_value(g, left, right, lo, hi), dtype=float)
    value = left + g.random(d) * (right - left)  # a uniform point of the chosen interval
    return np.clip(value, lo, hi)


def _sorted_pick(
    z: np.ndarray,
    w: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    log_u: np.ndarray,
    g: Any,
    release: bool,
    charge: dict[str, Any],
) -> np.ndarray:
    """The interval chosen in each row of a block of :func:`exponential_quantile_fast` after a full
    sort: ``z`` holds a column's values between its bounds (sorted and clipped here, on the public
    grid in a release), ``w`` receives the log-lengths of the intervals, the base measure of
    :func:`dpcore.mechanisms.exponential`."""
    _sorted_gaps(z, w, lo, hi, release)
    return mechanisms.exponential(
        np.broadcast_to(log_u, w.shape), base=w, rng=g, sampler="inverse_cdf", **charge
    )


def _sorted_gaps(
    z: np.ndarray, w: np.ndarray, lo: np.ndarray, hi: np.ndarray, release: bool
) -> None:
    """Sort and clip the values of ``z`` between its bounds (on the public grid in a release) and
    write the log-lengths of its gaps into ``w`` (``-inf`` for ties)."""
    inner = z[:, 1:-1]
    inner.sort(axis=1)
    if np.any(inner[:, 0] < lo) or np.any(inner[:, -1] > hi):
        np.clip(inner, lo[:, None], hi[:, None], out=inner)
    if release:
        _to_grid(z, lo, hi)  # a release: the public grid's points
    np.subtract(z[:, 1:], z[:, :-1], out=w)  # interval lengths L_i, (m, n + 1)
    with np.errstate(divide="ignore"):
        np.log(w, out=w)  # log L_i (-inf for ties): the base measure


def _check_points(points: object) -> int:
    if isinstance(points, bool) or not isinstance(points, int | np.integer) or points < 1:
        raise ValueError(
            f"points_per_person must be a positive integer (1 unless each person contributes "
            f"several values); got {points!r}."
        )
    return int(points)


# ----------------------------------------------------------------------------------------------
# 4. exponential mechanism over a public log-spaced grid (robust radius)
# ----------------------------------------------------------------------------------------------

#: Default ratio between neighbouring grid radii and span ``upper / lowest`` of the log grid.
#: The ratio is 1.002: in high dimension the norms of the rows sit in a band
#: only ``1 / sqrt(2 d)`` wide (2% at d = 1024); with a 2% step the best grid point near the data was
#: often 70+ ranks off the target while the empty grid above the data was only 93 ranks off, and
#: the mechanism returned a radius 5-12x the largest norm in about one run in four (PLAN, A,
#: d = 1024, rho = 1/4). At 0.2% the grid resolves the band; the rank error grows by ln G only.
LOG_GRID_RATIO = 1.002


LOG_GRID_SPAN = 1e9


def log_grid_size(span: float = LOG_GRID_SPAN, ratio: float = LOG_GRID_RATIO) -> int:
    """Number ``G`` of points of the grid ``upper * ratio**-k``, ``k = 0..G-1``, covering ``span``."""
    sp, r = check_positive(span, "span"), check_positive(ratio, "ratio")
    if sp <= 1 or r <= 1:
        raise ValueError(f"span and ratio must exceed 1; got span={span!r}, ratio={ratio!r}.")
    return int(math.ceil(math.log(sp) / math.log(r))) + 1


def log_grid_rank_error(
    rho: float, beta: float, span: float = LOG_GRID_SPAN, ratio: float = LOG_GRID_RATIO
) -> float:
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


@functools.lru_cache(maxsize=8)
def _log_grid_powers(size: int, ratio: float) -> np.ndarray:
    """``ratio ** -k`` for ``k = size-1, ..., 0`` (ascending; read-only): the public log grid of
    :func:`log_grid_quantile` without its top, made once per grid."""
    powers = ratio ** -np.arange(size, dtype=float)[::-1]
    powers.flags.writeable = False
    return powers


def log_grid_quantile(
    x: ArrayLike,
    q: float,
    upper: float,
    *,
    rho: float,
    span: float = LOG_GRID_SPAN,
    ratio: float = LOG_GRID_RATIO,
    rng: RngLike = None,
) -> float:
    """Private ``q``-quantile of non-negative values by the exponential mechanism over the public
    log-spaced grid ``r_k = upper * ratio**-k``, ``k = 0..G-1`` (``r_{G-1} ~ upper / span``).

    Utility ``u_k = -|#{x_j <= r_k} - q n|`` (rank based). Under replace-one a count changes by at
    most 1, so the sensitivity is 1; the mechanism samples ``k`` with probability
    ``∝ exp(eps u_k / 2)``, ``eps = sqrt(8 rho)``: ``eps``-DP, hence ``eps**2 / 8 = rho``-zCDP by
    the bounded-range argument (docs/estimators/plan.md §1, as for the other exponential-mechanism
    quantile).

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

    Privacy
    -------
    Replace-one, ``n`` public: a count moves by at most 1, so the rank utility has sensitivity 1;
    ``eps = sqrt(8 rho)``-DP, ``rho``-zCDP, charged by :func:`dpcore.mechanisms.exponential` to
    the caller's open stage.

    References
    ----------
    McSherry and Talwar (FOCS 2007); Smith (STOC 2011) for rank utilities;
    docs/estimators/plan.md §3b.
    """
    arr = check_data(x, name="x")
    if arr.ndim != 1:
        raise ValueError("x must be 1-D (one value per person) for log_grid_quantile.")
    qq = check_probability(q, "q")
    top = check_positive(upper, "upper")
    eps = math.sqrt(8.0 * check_positive(rho, "rho"))
    G = log_grid_size(span, ratio)
    grid = top * _log_grid_powers(G, float(ratio))  # ascending
    # The count #{x_j <= r_k} is j on the grid points from the (j-1)-th smallest value's first
    # grid point at or above it up to the j-th's: the utility of each count, repeated that often.
    first = np.searchsorted(grid, np.sort(arr))
    repeats = np.diff(first, prepend=0, append=G)
    log_w = np.repeat(-(eps / 2.0) * np.abs(np.arange(arr.size + 1) - qq * arr.size), repeats)
    k = mechanisms.exponential(
        log_w,
        sensitivity=1.0,
        epsilon=eps,
        coefficient=eps / 2.0,
        rng=mechanisms.generator(rng),
        note=f"exponential-mechanism {qq:g}-quantile on a log grid of {G} radii below {top:.4g}",
    )
    return float(grid[int(k)])
