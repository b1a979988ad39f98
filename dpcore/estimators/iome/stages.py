"""IOME's stages: the budget split, rotate, centre, radius and noise (each a function).

The rotation, the box centre ``m0`` and the search ranges are public; every noise draw is a
:mod:`dpcore.mechanisms` call inside a ledger stage.

References
----------
Huang, Liang, Yi (NeurIPS 2021); PLAN paper §7; docs/estimators/plan.md §5a, §9.8, §10.17.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from dpcore import mechanisms, quantiles
from dpcore._validation import check_bounds, check_positive
from dpcore.estimators._localise import coinpress_center, private_spread
from dpcore.privacy import Ledger, split_budget
from dpcore.rotation import RandomizedHadamard

if TYPE_CHECKING:
    from dpcore.estimators.iome import IomeSpec


class IdentityRotation:
    """Stand-in for :class:`~dpcore.rotation.RandomizedHadamard` that does nothing (``rotate=False``)."""

    def __init__(self, d: int) -> None:
        self.d = self.dim = int(d)
        self.rounds = 0
        self.signs = np.ones((0, self.dim))

    def forward(self, x: np.ndarray) -> np.ndarray:
        return np.array(x, dtype=float)

    def forward_columns(self, x: np.ndarray, *, center: np.ndarray | None = None) -> np.ndarray:
        X = np.asarray(x, dtype=float)
        return np.ascontiguousarray((X if center is None else X - center).T)

    def inverse(self, y: np.ndarray, *, keep_padding: bool = False) -> np.ndarray:
        return np.array(y, dtype=float)


def stage_budgets(rho: float, spec: IomeSpec) -> dict[str, float]:
    """``prop rho`` for the centre, then ``p1`` (radius) and ``p2`` (noise) of the rest, summing
    to ``rho`` exactly (:func:`dpcore.privacy.split_budget`). Public values only."""
    prop, p1 = spec.median_share, spec.radius_share
    fractions = {"center": prop, "radius": (1.0 - prop) * p1, "noise": (1.0 - prop) * (1.0 - p1)}
    return split_budget(rho, fractions)


@dataclass
class Rotated:
    """The rotated rows and what the rotation needs to go back.

    ``xr[k, j]`` is coordinate ``k`` of ``R (x_j - m0)``: one row per rotated coordinate, the
    layout in which the coordinate medians, the norms and the clipped mean are cheapest.
    """

    R: RandomizedHadamard | IdentityRotation
    m0: np.ndarray
    hw: np.ndarray
    xr: np.ndarray
    median_bounds: tuple[Any, Any]

    @property
    def dim(self) -> int:
        return int(self.R.dim)


def rotate(X: np.ndarray, lo: np.ndarray, hi: np.ndarray, spec: IomeSpec, g: Any) -> Rotated:
    """Shift by the box centre ``m0`` and rotate: ``xr = R (x - m0)`` (public, data independent).

    The rotated median range is ``[-h, h]``, ``h = ||hw||_2 sqrt(2 ln(2 D n / beta) / D)`` (the
    IOME paper's bound on a rotated coordinate), or the box's half widths without rotation.
    """
    n, d = X.shape
    m0, hw = (lo + hi) / 2.0, (hi - lo) / 2.0
    R: RandomizedHadamard | IdentityRotation = (
        RandomizedHadamard(d, rng=g) if spec.rotate else IdentityRotation(d)
    )
    D = R.dim
    bounds = spec.median_bounds
    if bounds is not None:
        check_bounds(bounds, D, name="median_bounds")
    xr = R.forward_columns(X, center=m0)  # (D, n)
    if bounds is None and spec.rotate:
        h = float(np.linalg.norm(hw)) * math.sqrt(2.0 * math.log(2.0 * D * n / spec.beta) / D)
        bounds = (-h, h)
    elif bounds is None:
        bounds = (-hw, hw)
    return Rotated(R, m0, hw, xr, bounds)


def centre(rot: Rotated, spec: IomeSpec, rho_med: float, ledger: Ledger, g: Any) -> np.ndarray:
    """The private centre ``c`` in rotated space (``rho_med``-zCDP): CoinPress or ``D`` medians."""
    if spec.center_step == "coinpress":
        return _coinpress_centre(
            rot.xr, rot.hw, rho_med, spec.spread, spec.spread_share, spec.beta, ledger, g
        )
    return _median_centre(
        rot.xr, rot.median_bounds, rho_med, spec.center_step, spec.steps, ledger, g
    )


@dataclass(frozen=True)
class Radius:
    """The clip radius stage's outputs: ``C``, the clip rank ``m``, the quantile aimed at, the
    universe ``U`` and the norms ``||R x_j - c||`` (data, never released)."""

    C: float
    rank: float
    quantile: float
    universe: float
    norms: np.ndarray


def radius(
    rot: Rotated,
    c: np.ndarray,
    spec: IomeSpec,
    budgets: dict[str, float],
    ledger: Ledger,
    warnings_: list[str],
    g: Any,
) -> Radius:
    """The clip radius: a private ``m/n``-quantile of ``||R x_j - c||`` on ``[0, U]``.

    Leaves ``rot.xr`` centred at ``c`` (in place). ``U = ||hw||_2 + ||max(|lo_m|, |hi_m|)||_2``
    (the largest ``||xr - c||`` for a row in the box) unless ``radius_upper`` is given.

    Privacy
    -------
    Replace-one: one row changes one norm (rank sensitivity 1); stage "clip radius", ``p1``
    (log-grid exponential mechanism or ``T`` Gaussian halvings).
    """
    xr, D = rot.xr, rot.dim
    n = xr.shape[1]
    p1 = budgets["radius"]
    xr -= c[:, None]
    norms = np.sqrt(np.einsum("kj,kj->j", xr, xr))
    m = clip_rank(
        n, D, spec.steps, p1, budgets["noise"], spec.offset_factor, spec.radius_step, spec.beta
    )
    q_clip = m / n
    if q_clip < 0.5:
        warnings_.append(
            f"IOME's clip rank m = {m:.0f} is below n/2 (n = {n} is small for this budget); "
            "clamped to the median norm."
        )
    q_clip = min(max(q_clip, 0.5), 1.0 - 0.5 / n)
    U = spec.radius_upper
    if U is None:
        mlo, mhi = check_bounds(rot.median_bounds, D)
        U = float(np.linalg.norm(rot.hw)) + float(
            np.linalg.norm(np.maximum(np.abs(mlo), np.abs(mhi)))
        )
    U = check_positive(U, "radius_upper")
    what = f"the {q_clip:.4f}-quantile of ||R x - c||"
    if spec.radius_step == "log_grid":
        how = f"exponential mechanism on a log grid for {what} in [{U * 1e-9:.3g}, {U:.4g}]"
    else:
        how = f"binary search for {what} on [0, {U:.4g}]"
    method: Literal["log_grid", "binary_search"] = (
        "log_grid" if spec.radius_step == "log_grid" else "binary_search"
    )
    with mechanisms.stage(ledger, "clip radius", note=how):
        C = quantiles.norm_quantile(
            norms, q_clip, U, rho=p1, method=method, steps=spec.steps, rng=g
        )
    if method == "binary_search":
        C = max(C, U * 2.0 ** (-spec.steps - 1))
    return Radius(C, m, q_clip, U, norms)


def noise(
    rot: Rotated, c: np.ndarray, rad: Radius, rho_noise: float, ledger: Ledger, g: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The shifted clipped mean with Gaussian noise, rotated back: ``(noisy, noiseless, padded
    centre)`` in rotated space mapped by ``R^T`` (padding kept), and the noise std ``tau``.

    Privacy
    -------
    Replace-one: each clipped row has norm ``<= C``, so the clipped mean moves by ``<= 2C / n``;
    stage "noisy sum", std ``tau = 2C / (n sqrt(2 p2))``, ``p2``-zCDP. ``c`` is an earlier release.
    """
    C, n = rad.C, rot.xr.shape[1]
    factor = np.minimum(1.0, C / np.maximum(rad.norms, 1e-300))
    z = (rot.xr @ factor) / n
    tau = math.sqrt(2.0 * C * C / rho_noise) / n
    with mechanisms.stage(ledger, "noisy sum"):
        rel = mechanisms.gaussian(
            z + c,  # c is an earlier release: the sensitivity is that of the clipped mean z
            sensitivity=2.0 * C / n,
            rho=rho_noise,
            rng=g,
            scale=tau,
            note=f"Gaussian mechanism, l2 sensitivity 2C = {2 * C:.4g} on the sum",
        )
    back = rot.R.inverse(np.vstack([z + c, rel.value, c]), keep_padding=True)
    return back[1], back[0], back[2], tau


def clip_rank(
    n: int,
    D: int,
    steps: int,
    rho_radius: float,
    rho_noise: float,
    offset_factor: float,
    radius_step: str = "binary_search",
    beta: float = 0.1,
) -> float:
    """IOME's clip rank ``m = n - f (2 sqrt(D / (2 p2)) + r)`` (docs/estimators/plan.md §5a).

    ``r`` is the rank error of the radius step: ``sqrt(T / (2 p1))`` for the binary search (IOME's
    own term), ``2 ln(G / beta) / sqrt(8 p1)`` for the log-grid exponential mechanism
    (:func:`dpcore.quantiles.exponential.log_grid_rank_error`).
    """
    if radius_step == "log_grid":
        r = quantiles.log_grid_rank_error(rho_radius, beta)
    else:
        r = math.sqrt(steps / (2.0 * rho_radius))
    return n - offset_factor * (2.0 * math.sqrt(D / (2.0 * rho_noise)) + r)


def _coinpress_centre(
    xr: np.ndarray,
    hw: np.ndarray,
    rho_med: float,
    spread: float | None,
    spread_share: float,
    beta: float,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """IOME's centre by CoinPress in rotated space (``rho_med``-zCDP in all).

    Privacy
    -------
    Replace-one, ``n`` public. Stage "centre: l2 spread" (only when ``spread`` is not given): the
    log-grid exponential-mechanism median of ``n // 2`` disjoint pair distances (one person in one
    pair, sensitivity 1), ``spread_share rho_med``. Stage "centre (CoinPress)": ``T`` noisy
    clipped means in public balls of radius ``R_t`` (l2 sensitivity ``2 R_t / n``), the rest of
    ``rho_med`` split equally.
    """
    D, n = xr.shape
    r0 = float(np.linalg.norm(hw))
    if spread is None:
        rho_sp = rho_med - (rho_med - rho_med * spread_share)  # the two parts sum to rho_med
        note = f"exponential mechanism on a log grid for the median of {n // 2} pair distances"
        with mechanisms.stage(ledger, "centre: l2 spread", note=note):
            gamma = private_spread(xr, 2.0 * r0, rho=rho_sp, beta=beta, columns=True, rng=g)
    else:
        rho_sp, gamma = 0.0, spread
    note = "CoinPress: noisy clipped means in shrinking public balls"
    with mechanisms.stage(ledger, "centre (CoinPress)", note=note):
        c, _ = coinpress_center(
            xr, np.zeros(D), r0, gamma, rho=rho_med - rho_sp, beta=beta, columns=True, rng=g
        )
    return c


def _median_centre(
    xr: np.ndarray,
    median_bounds: tuple[Any, Any],
    rho_med: float,
    center_step: str,
    steps: int,
    ledger: Ledger,
    g: Any,
) -> np.ndarray:
    """IOME's centre as ``D`` private coordinate medians in rotated space (``rho_med``-zCDP).

    Privacy
    -------
    Replace-one, ``n`` public: ``rho_med / D`` per rotated coordinate, stage "centre (rotated
    coordinate medians)". ``"binary_search"``: ``steps`` Gaussian counts of sensitivity 1 per
    coordinate; ``"coarse_to_fine"``: :func:`dpcore.quantiles.coarse_to_fine_median` (noisy
    histograms of l2 sensitivity ``sqrt(2 D)``, then exponential-mechanism medians).
    """
    D = xr.shape[0]
    if center_step == "coarse_to_fine":
        note = (
            f"{D} coarse-to-fine medians (noisy histograms, then the exponential mechanism), "
            f"rho/D = {rho_med / D:.4g} each"
        )
    else:
        note = f"{D} binary searches with {steps} noisy counts, rho/D = {rho_med / D:.4g} each"
    with mechanisms.stage(ledger, "centre (rotated coordinate medians)", note=note):
        if center_step == "coarse_to_fine":
            c, _ = quantiles.coarse_to_fine_median(xr.T, median_bounds, rho=rho_med, rng=g)
            return c
        return np.asarray(
            quantiles.binary_search_quantile(
                xr.T, 0.5, median_bounds, rho=rho_med, steps=steps, rng=g
            ),
            dtype=float,
        )
