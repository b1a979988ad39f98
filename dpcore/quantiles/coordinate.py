"""Coordinate-wise private quantiles: one routine per call, chosen by name, and the coarse-to-fine
private median.

Both charge the caller's open ledger stage (:func:`dpcore.mechanisms.stage`) through the
mechanisms they call; they open no stage of their own.

References
----------
Karwa, V. and Vadhan, S. "Finite sample differentially private confidence intervals." ITCS 2018.
Kaplan, H., Schnapp, S. and Stemmer, U. "Differentially private approximate quantiles." ICML 2022.
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Lemma 2.8; docs/estimators/plan.md §2 line 4, §3.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from dpcore import mechanisms
from dpcore._validation import (
    RngLike,
    check_bounds,
    check_data,
    check_positive,
    check_probability,
)
from dpcore.quantiles.binary_search import binary_search_quantile
from dpcore.quantiles.exponential import exponential_quantile_fast, log_grid_quantile

QuantileMethod = Literal["exponential", "binary_search"]

_TINY = 1e-300


def private_quantile(
    x: np.ndarray,
    q: float,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    method: QuantileMethod = "exponential",
    steps: int = 20,
    rng: RngLike = None,
    points_per_person: int = 1,
) -> float | np.ndarray:
    """``PrivQuantile`` of docs/estimators/plan.md §3 on each column of ``x`` with total budget
    ``rho``.

    ``"exponential"``: :func:`~dpcore.quantiles.exponential.exponential_quantile_fast`, the
    exponential mechanism over the gaps (``eps = sqrt(8 rho/d)`` per column, utility sensitivity
    1); ``"binary_search"``: :func:`~dpcore.quantiles.binary_search.binary_search_quantile`,
    ``steps`` Gaussian noisy counts per column.

    Privacy
    -------
    Replace-one, ``n`` public: ``rho``-zCDP in total (``rho / d`` per column), charged to the
    caller's open stage; ``points_per_person = k`` values per person: ``k**2 rho``.
    """
    if method == "exponential":
        return exponential_quantile_fast(
            x, q, bounds, rho=rho, rng=rng, points_per_person=points_per_person
        )
    if method == "binary_search":
        return binary_search_quantile(
            x, q, bounds, rho=rho, steps=steps, rng=rng, points_per_person=points_per_person
        )
    raise ValueError(f"quantile must be 'exponential' or 'binary_search'; got {method!r}.")


def norm_quantile(
    norms: np.ndarray,
    q: float,
    upper: float,
    *,
    rho: float,
    method: Literal["log_grid", "exponential", "binary_search"],
    steps: int = 20,
    rng: RngLike = None,
) -> float:
    """A private ``q``-quantile of ``n`` row norms below a public ``upper`` end: a clip radius.

    ``"log_grid"``: the exponential mechanism over the public grid ``upper * 1.002**-k`` on
    ``[upper 1e-9, upper]`` (:func:`~dpcore.quantiles.exponential.log_grid_quantile`; a thin
    budget costs rank, never scale); ``"exponential"`` or ``"binary_search"``:
    :func:`private_quantile` on ``[0, upper]``.

    Privacy
    -------
    Replace-one, ``n`` public: one row changes one norm, so the rank utility (or each noisy count)
    has sensitivity 1; ``rho``-zCDP, charged to the caller's open stage.

    Examples
    --------
    >>> from dpcore import mechanisms
    >>> from dpcore.privacy import Ledger
    >>> led = Ledger("zcdp")
    >>> with mechanisms.stage(led, "clip radius"):
    ...     r = norm_quantile(np.arange(1.0, 101.0), 0.9, 200.0, rho=4.0, method="log_grid", rng=0)
    >>> 80 < r < 100, round(led.total(), 12)
    (True, 4.0)
    """
    if method == "log_grid":
        return log_grid_quantile(norms, q, upper, rho=rho, rng=rng)
    return float(
        private_quantile(norms, q, (0.0, upper), rho=rho, method=method, steps=steps, rng=rng)
    )


#: Coarse-to-fine centre defaults: bins per level, zoom levels, share of the centre budget spent
#: on the histograms (the rest goes to the exponential-mechanism median inside the final window).
C2F_BINS = 64
C2F_LEVELS = 2
C2F_HISTOGRAM_SHARE = 0.5
#: Zoom bars: three bins become the next window when their noisy count reaches ``bar * n``; the
#: first level uses :data:`C2F_FIRST_BAR`, later ones :data:`C2F_BAR`. Any interval holding more
#: than half of the values holds the median, so a bar a margin above ``n/2`` keeps the median
#: inside the window. A missed first zoom leaves the median to the exponential mechanism over the
#: whole range (A, d = 256, rho = 1/8, seed 61: one coordinate 207 off, error 400x the median), so
#: the first bar is 0.6 (margin ``0.4 n`` against the noise instead of ``n/4``); a missed later
#: zoom only keeps a window three coarse bins wide, and 0.6 there was measured worse (A, d = 256,
#: rho = 1/16, 20 seeds: median 0.84 against 0.65 with 3/4).
C2F_FIRST_BAR = 0.6
C2F_BAR = 0.75


def _zoom(
    X: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    rho_l: float,
    bins: int,
    threshold: float,
    floor: np.ndarray | None,
    rng: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """One level of :func:`coarse_to_fine_median`: a noisy histogram per column, the next window."""
    n, d = X.shape
    B = bins
    Bi = (
        np.full(d, B)
        if floor is None
        else np.clip(np.floor((b - a) / np.maximum(floor, _TINY)), 0, B)
    )
    Bi = Bi.astype(np.intp)
    w = (b - a) / np.maximum(Bi, 1)
    idx = np.floor((X - a) / w)
    ok = (idx >= 0) & (idx < Bi)
    offsets = (B * np.arange(d))[None, :]
    counts = np.bincount((idx + offsets)[ok].astype(np.intp), minlength=B * d).reshape(d, B)
    hist = mechanisms.gaussian(
        counts,
        sensitivity=math.sqrt(2.0 * d),
        rho=rho_l,
        rng=rng,
        scale=math.sqrt(d / rho_l),
        note=f"{d} noisy {B}-bin histograms (one value per column moves two counts by 1)",
    )
    noisy = np.asarray(hist.value, dtype=float)
    tri = noisy.copy()
    tri[:, 1:] += noisy[:, :-1]
    tri[:, :-1] += noisy[:, 1:]
    tri[np.arange(B)[None, :] >= Bi[:, None]] = -np.inf  # bins beyond a coordinate's own count
    j = np.argmax(tri, axis=1)
    zoom = (Bi >= 3) & (tri[np.arange(d), j] >= threshold * n)
    return (
        np.where(zoom, a + np.maximum(j - 1, 0) * w, a),
        np.where(zoom, a + np.minimum(j + 2, Bi) * w, b),
    )


def coarse_to_fine_median(
    x: np.ndarray,
    bounds: tuple[Any, Any],
    *,
    rho: float,
    bins: int = C2F_BINS,
    levels: int = C2F_LEVELS,
    histogram_share: float = C2F_HISTOGRAM_SHARE,
    min_bin_width: Any = None,
    rng: RngLike = None,
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Private coordinate medians located coarse to fine; ``rho``-zCDP in total.

    Per coordinate, ``levels`` times: a noisy histogram of the values over ``bins`` equal public
    bins of the current window; the three adjacent bins with the largest noisy sum become the next
    window when that sum is at least ``0.6 n`` at the first level and ``3n/4`` later
    (:data:`C2F_FIRST_BAR`, :data:`C2F_BAR`; ``n/4`` with ``min_bin_width``; otherwise the window
    stays: the data are wider than three bins, or the counts too noisy to tell). Then the
    exponential-mechanism median (:func:`~dpcore.quantiles.exponential.exponential_quantile_fast`)
    of the values clipped to the final window. This is the private-range step of Karwa and Vadhan
    (2018) before a median: the empty stretch of the public range, which is what makes the plain
    exponential mechanism land far from the data at thin budgets, is cut down by
    ``(bins / 3)**levels`` before the median sees it.

    ``min_bin_width`` (per coordinate, public or an earlier private output such as ``2 sigma^``)
    caps the number of bins of a level at ``window / min_bin_width``; with fewer than 3 bins the
    coordinate stops zooming. It keeps the last windows at least ``3 min_bin_width`` wide, so they
    cannot be narrower than the data (where noisy counts decide nothing).

    Returns
    -------
    (median, (window_lo, window_hi))

    Privacy
    -------
    Replace-one, ``n`` public. A histogram of one coordinate changes in two bins by one each, l2
    sensitivity ``sqrt(2)``; over ``d`` coordinates ``sqrt(2 d)``. Each level adds
    ``N(0, d / rho_l)`` to every count (Gaussian mechanism, ``rho_l``-zCDP for the ``d``
    histograms together), ``rho_l = histogram_share * rho / levels``. The windows are
    post-processing of the noisy counts. The final median is ``(1 - histogram_share) rho``-zCDP
    (``eps = sqrt(8 rho' / d)`` per coordinate, sensitivity 1). Total ``rho``, charged by the
    mechanisms to the caller's open stage.

    References
    ----------
    Karwa, V. and Vadhan, S. "Finite sample differentially private confidence intervals." ITCS 2018
    (private range by a histogram, then clipping). Kaplan, Schnapp, Stemmer (ICML 2022) for the
    median. docs/estimators/plan.md §2 line 4, §3b.
    """
    X = check_data(x, ndim=2)
    d = X.shape[1]
    rho = check_positive(rho, "rho")
    h = check_probability(histogram_share, "histogram_share")
    if int(bins) < 3 or int(levels) < 0:
        raise ValueError(
            f"bins must be >= 3 and levels >= 0; got bins={bins!r}, levels={levels!r}."
        )
    B, L = int(bins), int(levels)
    a, b = (np.array(v, dtype=float) for v in check_bounds(bounds, d))
    g = mechanisms.generator(rng)
    if L > 0 and h > 0:
        floor = (
            None
            if min_bin_width is None
            else np.broadcast_to(np.asarray(min_bin_width, dtype=float), (d,))
        )
        # Without a bin floor a narrow window could be narrower than the data: zoom only when three
        # bins clearly hold most of it. With the floor they hold the data whenever they hold its
        # middle, and the argmax alone decides (a low bar guards against a badly low sigma^).
        for level in range(L):
            threshold = (C2F_FIRST_BAR if level == 0 else C2F_BAR) if floor is None else 0.25
            a, b = _zoom(
                X, a, b, rho_l=h * rho / L, bins=B, threshold=threshold, floor=floor, rng=g
            )
        rho_m = rho - h * rho
    else:
        rho_m = rho
    med = np.asarray(exponential_quantile_fast(X, 0.5, (a, b), rho=rho_m, rng=g), dtype=float)
    return med, (a, b)
