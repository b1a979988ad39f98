"""Private localisation in high dimension: CoinPress's shrinking ball and a private l2 spread.

Used as the centre step of IOME (rotated space) and of PLAN (scaled space) when the per-coordinate
medians are too thin. Both steps are rotation invariant and spend their budget on the
whole vector at once, so a thin budget shrinks every coordinate a little instead of sending a few
coordinates across the whole public range.

CoinPress (Biswas, Dong, Kamath, Ullman 2020, Algorithm 1 "MVM" with known spread), with
``y`` the rows in the space the caller chooses::

    c_0 = public centre, r_0 = public radius of a ball holding every possible row
    for t = 1..T (rho_t = rho / T):
        R_t = r_{t-1} + gamma                        (public: gamma is public or an earlier output)
        c_t = mean_j proj_{B(c_{t-1}, R_t)}(y_j) + N(0, s_t^2 I),  s_t = 2 R_t / (n sqrt(2 rho_t))
        r_t = s_t * tb(d, beta / T) + gamma / sqrt(n)    (tb: chi tail bound; public)

``gamma`` bounds ``||y_j - mu||`` for most rows (the l2 spread). The number of steps ``T`` is a
public function of ``(n, d, r_0, gamma, rho)``: the ``T`` in ``1..MAX_STEPS`` whose predicted final
radius ``r_T`` is smallest.

Privacy (replace-one, ``n`` public): each projected row lies in a ball of radius ``R_t``, so
replacing one row moves the sum by at most ``2 R_t`` in l2; the Gaussian noise of std
``2 R_t / sqrt(2 rho_t)`` on the sum is ``rho_t``-zCDP (Bun and Steinke 2016, Prop. 1.6). The balls
depend only on public values and earlier outputs; ``T`` steps compose to ``sum rho_t = rho``.
Every draw goes through :mod:`dpcore.mechanisms` and is charged to the caller's open ledger stage
(:func:`dpcore.mechanisms.stage`); these functions open no stage of their own.

:func:`private_spread` estimates ``gamma`` without a centre: the rows are cut into ``n // 2``
disjoint public pairs, and the exponential mechanism over a log grid
(:func:`dpcore.quantiles.log_grid_quantile`) returns the median of ``||y_a - y_b||``; one
person sits in one pair, so one value changes (rank utility, sensitivity 1): ``rho``-zCDP.

References
----------
Biswas, S., Dong, Y., Kamath, G., Ullman, J. "CoinPress: Practical Private Mean and Covariance
Estimation." NeurIPS 2020 (Algorithm 1, Theorem 3.1). Bun, M. and Steinke, T. "Concentrated
Differential Privacy." TCC 2016. docs/estimators/plan.md §2 line 4, §5a.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from dpcore import _kernels, mechanisms, quantiles
from dpcore._validation import RngLike, check_positive, check_probability

#: Largest number of CoinPress steps the public schedule may choose.
MAX_STEPS = 12


def chi_tail(d: int, beta: float) -> float:
    """``sqrt(d + 2 sqrt(d ln(1/beta)) + 2 ln(1/beta))``: ``||N(0, I_d)||`` exceeds it with
    probability at most ``beta`` (Laurent and Massart 2000), as in CoinPress."""
    lb = math.log(1.0 / beta)
    return math.sqrt(d + 2.0 * math.sqrt(d * lb) + 2.0 * lb)


def coinpress_radii(
    n: int, d: int, r0: float, gamma: float, rho: float, steps: int, beta: float = 0.1
) -> list[float]:
    """Predicted radii ``r_0, ..., r_T`` of the CoinPress balls (public; equal budget per step)."""
    rho_t = rho / steps
    tb = chi_tail(d, beta / steps)
    per = n * math.sqrt(2.0 * rho_t)  # the loop's constants, formed once: the same doubles
    floor = gamma / math.sqrt(n)
    r = [float(r0)]
    last = r[0]
    for _ in range(steps):
        last = 2.0 * (last + gamma) / per * tb + floor
        r.append(last)
    return r


def coinpress_steps(n: int, d: int, r0: float, gamma: float, rho: float, beta: float = 0.1) -> int:
    """The public number of steps: the ``T <= MAX_STEPS`` with the smallest predicted ``r_T``."""
    finals = [coinpress_radii(n, d, r0, gamma, rho, t, beta)[-1] for t in range(1, MAX_STEPS + 1)]
    return int(np.argmin(finals)) + 1


#: Values per block of rows in a CoinPress step (the block's differences stay in cache between
#: the norms and the clipped sum). With ``columns=True`` a block reads a strip of each of the ``d``
#: rows of ``Y``, at least :data:`_STRIP` values wide (whole cache lines and fewer pages per block:
#: at d = 2048, 128 values instead of 32 made a step about 1.3x faster), and under ``2^19`` values
#: so that the block's product runs on one BLAS thread.
_STEP_BLOCK = 1 << 16
_STRIP = 128


def _centred_blocks(
    Y: np.ndarray, c: np.ndarray, columns: bool, scale: np.ndarray | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(diff, norms)`` block by block of rows: the rows ``y_j - c`` of the block (``y_j``
    the row times ``scale`` when given, as in ``(Y * scale)[block] - c``, value for value) in one
    reused buffer, and their l2 norms.

    One pass over ``Y`` with nothing of its size allocated: the block's differences stay in cache
    between the norms and what the caller does with them (three passes over an ``(n, d)`` array of
    differences cost about three times as much at n = 10^4, d = 2048). The norms are those of the
    whole-array computation, value for value.
    """
    n, d = Y.shape[::-1] if columns else Y.shape
    rows = max(1, _STEP_BLOCK // d)
    if columns:
        rows = max(rows, min(_STRIP, (1 << 19) // d))
    buf = np.empty((d, rows) if columns else (rows, d))
    for s in range(0, n, rows):
        if columns:
            diff = buf[:, : min(rows, n - s)]
            np.subtract(Y[:, s : s + rows], c[:, None], out=diff)
            yield diff, np.sqrt(np.einsum("kj,kj->j", diff, diff))
        else:
            diff = buf[: min(rows, n - s)]
            if scale is None:
                np.subtract(Y[s : s + rows], c[None, :], out=diff)
            else:
                np.multiply(Y[s : s + rows], scale, out=diff)
                diff -= c
            yield diff, np.sqrt(np.einsum("jk,jk->j", diff, diff))


def centred_norms(Y: np.ndarray, c: np.ndarray, *, columns: bool = False) -> np.ndarray:
    """``||y_j - c||`` for every row ``y_j`` of ``Y`` (columns of ``Y`` with ``columns=True``),
    without an array of differences of ``Y``'s size: one compiled pass on large arrays
    (:mod:`dpcore._kernels`), else block by block."""
    if _kernels.use_kernels(Y):
        if columns:
            return _kernels.centred_norms_columns(Y, c)
        return _kernels.scaled_norms(Y, c, np.ones(Y.shape[1]))
    return np.concatenate([norms for _, norms in _centred_blocks(Y, c, columns)])


def clipped_sum(
    Y: np.ndarray,
    c: np.ndarray,
    R: float,
    *,
    columns: bool = False,
    scale: np.ndarray | None = None,
    norms: np.ndarray | None = None,
) -> np.ndarray:
    """``sum_j min(1, R / ||y_j - c||) (y_j - c)``: the sum of the rows clipped to the ball
    ``B(c, R)``, minus ``c`` (one CoinPress step; IOME's clipped sum). ``scale`` multiplies every
    row first (``y_j = x_j * scale``, PLAN's scaled space) without a scaled copy of ``Y``.

    On large arrays one compiled pass over ``Y`` (:func:`dpcore._kernels.clipped_sum_rows`; two
    sequential reads in the column layout, :func:`dpcore._kernels.clipped_sum_columns`), else one
    pass block by block (:func:`_centred_blocks`). Either adds in another order than one
    matrix-vector product, so the sum can differ from it in the last bits only. ``norms``, when
    given, must be :func:`centred_norms` of the same ``Y`` and ``c`` (the same values as formed
    here); the column kernel then skips its read for them.
    """
    if _kernels.use_kernels(Y):
        if columns and norms is not None:  # the norms are known: one read for the sum
            f = np.minimum(1.0, R / np.maximum(norms, 1e-300))
            return _kernels.weighted_sum_columns(Y, c, f)
        if columns:
            return _kernels.clipped_sum_columns(Y, c, R)
        s = np.ones(Y.shape[1]) if scale is None else scale  # x * 1.0 == x exactly
        return _kernels.clipped_sum_rows(Y, s, c, R)
    total = np.zeros(c.shape[0])
    for diff, norms in _centred_blocks(Y, c, columns, scale):
        f = np.minimum(1.0, R / np.maximum(norms, 1e-300))
        total += diff @ f if columns else f @ diff
    return total


def coinpress_center(
    y: np.ndarray,
    c0: np.ndarray,
    r0: float,
    gamma: float,
    *,
    rho: float,
    steps: int | None = None,
    beta: float = 0.1,
    columns: bool = False,
    scale: np.ndarray | None = None,
    rng: RngLike = None,
) -> tuple[np.ndarray, dict]:
    """CoinPress centre of the rows of ``y`` (``rho``-zCDP, replace-one; see the module docstring).

    Parameters
    ----------
    y : array (n, d), or (d, n) with ``columns=True``
    c0, r0 : public starting ball (must hold every possible row).
    gamma : float
        l2 spread: public, or the output of an earlier private step.
    rho : float
        Total zCDP budget, split equally over the steps.
    steps : int, optional
        ``T``; default :func:`coinpress_steps`.
    beta : float
        Failure probability of the radius bounds.
    scale : array (d,), optional
        Run on the rows ``y_j * scale`` (rows layout only), formed block by block: the same
        numbers as passing ``y * scale``, without that copy.

    Returns
    -------
    (centre, info) with ``info = {"steps", "radii", "clip_radii", "budget_per_step"}``.

    Privacy
    -------
    Replace-one, ``n`` public: step ``t`` releases the mean of rows projected onto a public ball
    of radius ``R_t`` (l2 sensitivity ``2 R_t / n``) with Gaussian noise of std
    ``2 R_t / (n sqrt(2 rho_t))`` (:func:`dpcore.mechanisms.gaussian`, ``rho_t = rho / T``-zCDP);
    the ``T`` steps charge ``rho`` to the caller's open stage.

    References
    ----------
    Biswas, Dong, Kamath, Ullman (NeurIPS 2020), Algorithm 1.
    """
    Y = np.asarray(y, dtype=float)
    if columns:
        d, n = Y.shape
    else:
        n, d = Y.shape
    rho = check_positive(rho, "rho")
    gamma = check_positive(gamma, "gamma")
    r0 = check_positive(r0, "r0")
    beta = check_probability(beta, "beta")
    T = coinpress_steps(n, d, r0, gamma, rho, beta) if steps is None else int(steps)
    if T < 1:
        raise ValueError(f"steps must be >= 1; got {steps!r}.")
    if scale is not None and columns:
        raise ValueError("scale= works on rows (columns=False) only.")
    radii = coinpress_radii(n, d, r0, gamma, rho, T, beta)
    rho_t = rho / T
    g = mechanisms.generator(rng)
    c = np.array(c0, dtype=float).reshape(d)
    clip = []
    for t in range(T):
        R = radii[t] + gamma
        shift = clipped_sum(Y, c, R, columns=columns, scale=scale) / n
        step = mechanisms.gaussian(
            c + shift,
            sensitivity=2.0 * R / n,
            rho=rho_t,
            rng=g,
            scale=2.0 * R / (n * math.sqrt(2.0 * rho_t)),
            note=f"CoinPress step {t + 1} of {T}: clipped mean in a ball of radius {R:.4g}",
        )
        c = np.asarray(step.value, dtype=float)
        clip.append(R)
    return c, {"steps": T, "radii": radii, "clip_radii": clip, "budget_per_step": rho_t}


def private_spread(
    y: np.ndarray,
    upper: float,
    *,
    rho: float,
    beta: float = 0.1,
    columns: bool = False,
    scale: np.ndarray | None = None,
    rng: RngLike = None,
) -> float:
    """A private bound ``gamma`` on the l2 spread ``||y_j - mu||`` that needs no centre (``rho``-zCDP).

    ``m~`` = the private median of ``||y_{2j} - y_{2j+1}||`` over ``n // 2`` disjoint pairs (rows pair
    in their given order; any fixed pairing works), then
    ``gamma = m~ / sqrt(2) * chi_tail(d, beta / n) / sqrt(d)``: for Gaussian rows with covariance
    ``sigma^2 I`` the pair distance is ``sqrt(2) sigma chi_d`` with median about ``sqrt(2 d) sigma``,
    and ``chi_tail(d, beta / n) sigma`` bounds every ``||y_j - mu||`` with probability ``1 - beta``.
    The median (not a high quantile) is the robust target: on the log grid a high quantile of a
    narrow band of distances has about the utility of the empty grid above the data, which the
    exponential mechanism then picks as often (measured: 4 of 10 draws far above the data at
    A, d = 1024, rho = 0.003 with the 0.9-quantile). ``upper`` is the public largest distance (the
    diameter of the public range). ``scale`` (rows only) runs on ``y * scale`` without that copy.

    Privacy
    -------
    That of :func:`pair_distance_median`: ``rho``-zCDP, charged to the caller's open stage.

    References
    ----------
    :func:`dpcore.quantiles.log_grid_quantile`.
    """
    Y = np.asarray(y, dtype=float)
    n, d = (Y.shape[::-1]) if columns else Y.shape
    med = pair_distance_median(Y, upper, rho=rho, columns=columns, scale=scale, rng=rng)
    return med / math.sqrt(2.0) * chi_tail(d, check_probability(beta, "beta") / n) / math.sqrt(d)


def pair_distance_median(
    y: np.ndarray,
    upper: float,
    *,
    rho: float,
    columns: bool = False,
    scale: np.ndarray | None = None,
    rng: RngLike = None,
) -> float:
    """Private median of ``||y_{2j} - y_{2j+1}||`` over the ``n // 2`` disjoint public pairs (``rho``-zCDP).

    The exponential mechanism over the log grid below ``upper``
    (:func:`dpcore.quantiles.log_grid_quantile`).

    Privacy
    -------
    Replace-one, ``n`` public; one person sits in one pair, so one distance changes and the rank
    utility has sensitivity 1: ``eps = sqrt(8 rho)``, ``rho``-zCDP, charged by
    :func:`dpcore.mechanisms.exponential` to the caller's open stage.

    References
    ----------
    McSherry and Talwar (FOCS 2007).
    """
    Y = np.asarray(y, dtype=float)
    if scale is not None and columns:
        raise ValueError("scale= works on rows (columns=False) only.")
    if _kernels.use_kernels(Y):  # one compiled pass
        dist = (
            _kernels.pair_distances_columns(Y)
            if columns
            else _kernels.pair_distances_rows(Y, np.ones(Y.shape[1]) if scale is None else scale)
        )
        return quantiles.log_grid_quantile(dist, 0.5, upper, rho=rho, rng=rng)
    m = Y.shape[1 if columns else 0] // 2
    dist = np.empty(m)
    # Pairs in blocks through one buffer instead of an (m, d) temporary; each distance is the same
    # sum as over the whole difference array, bit for bit. Rows: about _STEP_BLOCK values a block
    # (a row's sum does not depend on the block). Columns: 256 pairs, as always (einsum adds a
    # one-column block in another order, so the blocks must stay where they were).
    size = 256 if columns else max(256, _STEP_BLOCK // Y.shape[1])
    buf = np.empty((Y.shape[0], size) if columns else (size, Y.shape[1]))
    buf2 = buf if scale is None else np.empty_like(buf)  # the second rows, scaled
    for j in range(0, m, size):
        b = min(size, m - j)
        if columns:
            diff = buf[:, :b]
            np.subtract(Y[:, 2 * j : 2 * (j + b) : 2], Y[:, 2 * j + 1 : 2 * (j + b) : 2], out=diff)
            dist[j : j + b] = np.einsum("kj,kj->j", diff, diff)
        elif scale is None:
            diff = buf[:b]
            np.subtract(Y[2 * j : 2 * (j + b) : 2], Y[2 * j + 1 : 2 * (j + b) : 2], out=diff)
            dist[j : j + b] = np.einsum("jk,jk->j", diff, diff)
        else:  # (x_a * s) - (x_b * s), as on the scaled copy
            diff, other = buf[:b], buf2[:b]
            np.multiply(Y[2 * j : 2 * (j + b) : 2], scale, out=diff)
            np.multiply(Y[2 * j + 1 : 2 * (j + b) : 2], scale, out=other)
            diff -= other
            dist[j : j + b] = np.einsum("jk,jk->j", diff, diff)
    np.sqrt(dist, out=dist)
    return quantiles.log_grid_quantile(dist, 0.5, upper, rho=rho, rng=rng)
