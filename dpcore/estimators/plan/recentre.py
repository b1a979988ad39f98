"""PLAN's centre stage (Algorithm 1, line 4, "recentering"): :func:`recenter` and its steps.

The centre is found before the variances (coordinate medians, coarse to fine or over the whole
range; the free private frequencies of binary data; the public box centre) or, by default, after
them by CoinPress in the scaled space (:func:`recenter_scaled`).

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1 line 4; Biswas, Dong, Kamath,
Ullman, "CoinPress" (NeurIPS 2020); docs/estimators/plan.md §2, §3, §10.10.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import _kernels, mechanisms
from dpcore._validation import RngLike
from dpcore.estimators._localise import coinpress_center, private_spread
from dpcore.estimators.plan.budget import STAGE_LABELS, StageBudgets
from dpcore.estimators.plan.options import PlanOptions
from dpcore.estimators.plan.risk import thin_centre_warnings
from dpcore.estimators.plan.scale import Scale
from dpcore.privacy import Ledger
from dpcore.quantiles.coordinate import (
    C2F_BINS,
    C2F_HISTOGRAM_SHARE,
    C2F_LEVELS,
    QuantileMethod,
    coarse_to_fine_median,
    private_quantile,
)


@dataclass(frozen=True)
class Centre:
    """The centre stage's output: ``mu~``, what its step reports and its public warnings.

    ``window`` is the coarse-to-fine step's final window, ``coinpress`` CoinPress's steps, radii
    and budgets (each ``None`` when that step did not run).
    """

    mu: np.ndarray
    window: tuple[np.ndarray, np.ndarray] | None = None
    coinpress: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()


def recenter(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    spec: PlanOptions,
    budget: StageBudgets,
    q_tilde: np.ndarray | None,
    ledger: Ledger,
    g: Any,
) -> Centre | None:
    """The centre ``mu~`` found before the variances, or ``None`` when CoinPress finds it after.

    Privacy
    -------
    Replace-one, ``n`` public. Medians: stage "centre (coordinate medians)", ``rho_center``
    (``9 rho_center`` with the as-published tripled data). The frequencies (an earlier release)
    and the box centre (public) are free.
    """
    how = spec.centre_run
    if how == "coinpress":
        return None
    if how == "frequencies":
        assert q_tilde is not None  # the frequencies run before the centre for binary data
        return Centre(np.clip(q_tilde, lo, hi))
    if how == "box":
        return Centre((lo + hi) / 2.0)
    rho_c = budget.budgets["center"]
    if how == "coarse_to_fine":
        mu, window = _c2f_centre(X, lo, hi, rho_c, ledger, g)
        n, d = X.shape
        thin = thin_centre_warnings(n, d, budget.total, lo, hi, budget.thin_share)
        return Centre(mu, window=window, warnings=thin)
    spread = spec.center_spread
    mu, warnings_ = _median_centre(X, lo, hi, rho_c, spread, spec.quantile, spec.steps, ledger, g)
    if spread > 0:
        rho = budget.total
        warnings_ += (
            f"as published: the centre spends 9x its share ({9 * rho_c:.4g} instead of "
            f"{rho_c:.4g}), so the total is {rho + 8 * rho_c:.4g}, not {rho:.4g}.",
        )
    return Centre(mu, warnings=warnings_)


def recenter_scaled(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    scale: Scale,
    spec: PlanOptions,
    budget: StageBudgets,
    ledger: Ledger,
    g: Any,
) -> Centre:
    """The centre by CoinPress in the scaled space, once ``sigma^`` and ``s`` are known.

    Privacy
    -------
    Replace-one, ``n`` public: stage "centre (coordinate medians)", ``rho_center`` in all
    (:func:`coinpress_scaled_center`).
    """
    share = spec.coinpress_spread_share
    note = (
        f"CoinPress in scaled space: a private l2 spread ({share:g} of the "
        "centre's rho), then noisy clipped means in shrinking public balls"
    )
    with mechanisms.stage(ledger, STAGE_LABELS["center"], note=note):
        mu, cp = coinpress_scaled_center(
            X,
            lo,
            hi,
            scale.sigma_hat,
            scale.s,
            rho=budget.budgets["center"],
            beta=spec.beta,
            spread_share=share,
            rng=g,
        )
    n, d = X.shape
    thin = thin_centre_warnings(n, d, budget.total, lo, hi, budget.thin_share)
    return Centre(mu, coinpress=cp, warnings=thin)


def coinpress_scaled_center(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    sigma_hat: np.ndarray,
    s: np.ndarray,
    *,
    rho: float,
    beta: float = 0.1,
    spread_share: float = 0.0,
    rng: RngLike = None,
) -> tuple[np.ndarray, dict]:
    """PLAN's centre by CoinPress in the scaled space ``y = x * s`` (``rho``-zCDP, replace-one).

    Runs :func:`dpcore.estimators._localise.coinpress_center` on the rows ``x_j * s`` from the public
    ball around the box centre that holds the scaled box (radius ``||(hi - lo) / 2 * s||_2``), with
    the l2 spread ``gamma`` from the private ``sigma^`` (an earlier output, so post-processing): for
    ``y - mu`` with independent coordinates of std ``a_i = sigma^_i s_i``, Laurent and Massart's bound
    ``||y - mu||^2 <= sum a_i^2 + 2 sqrt(sum a_i^4 L) + 2 max a_i^2 L``, ``L = ln(n / beta)``, holds
    for every row with probability ``1 - beta``. The privacy of each step is CoinPress's (l2
    sensitivity ``2 R_t`` of the clipped sum); the steps share ``rho`` equally. Returns the centre in
    original units and CoinPress's info (plus ``gamma``).

    Privacy
    -------
    Replace-one, ``n`` public: ``spread_share rho`` for the private spread (log-grid exponential
    mechanism, sensitivity 1), the rest over CoinPress's ``T`` Gaussian steps (l2 sensitivity
    ``2 R_t / n`` of the clipped mean); ``rho``-zCDP in all, charged by the mechanisms to the
    caller's open stage.

    References
    ----------
    Biswas, Dong, Kamath, Ullman, "CoinPress" (NeurIPS 2020), Algorithm 1; Laurent and Massart (2000),
    Lemma 1.
    """
    n = X.shape[0]
    g = mechanisms.generator(rng)
    m0 = (lo + hi) / 2.0
    r0 = float(np.linalg.norm((hi - lo) / 2.0 * s))
    # The scaled rows y = x * s: formed block by block inside the passes on large arrays (no
    # scaled copy), once on small ones (the same values; the steps then skip a product each).
    Y, scale = (X, s) if _kernels.use_kernels(X) else (X * s, None)
    if spread_share > 0:
        rho_sp = rho - (rho - rho * spread_share)  # the CoinPress steps get rho - rho_sp exactly
        gamma = private_spread(Y, 2.0 * r0, rho=rho_sp, beta=beta, scale=scale, rng=g)
    else:
        rho_sp = 0.0
        a2 = (sigma_hat * s) ** 2
        L = math.log(n / beta)
        gamma = math.sqrt(
            float(a2.sum())
            + 2.0 * math.sqrt(float(np.sum(a2 * a2)) * L)
            + 2.0 * float(a2.max()) * L
        )
    c, info = coinpress_center(
        Y, m0 * s, r0, gamma, rho=rho - rho_sp, beta=beta, scale=scale, rng=g
    )
    return np.clip(c / s, lo, hi), {**info, "gamma": gamma, "spread_budget": rho_sp}


def _c2f_centre(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, rho_c: float, ledger: Ledger, g: Any
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The centre stage by :func:`~dpcore.quantiles.coarse_to_fine_median` (``rho_c``-zCDP).

    Privacy
    -------
    Replace-one: ``C2F_LEVELS`` noisy histograms (l2 sensitivity ``sqrt(2 d)``) with
    ``C2F_HISTOGRAM_SHARE rho_c`` together, then ``d`` exponential-mechanism medians (utility
    sensitivity 1) with the rest; the mechanisms charge the stage ``rho_c`` in all.
    """
    d = X.shape[1]
    note = (
        f"{d} coarse-to-fine private medians: {C2F_LEVELS} noisy {C2F_BINS}-bin histograms "
        f"(rho {C2F_HISTOGRAM_SHARE * rho_c:.4g}) then the exponential mechanism "
        f"in the window (rho {rho_c - C2F_HISTOGRAM_SHARE * rho_c:.4g})"
    )
    with mechanisms.stage(ledger, STAGE_LABELS["center"], note=note):
        return coarse_to_fine_median(X, (lo, hi), rho=rho_c, rng=g)


def _median_centre(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rho_c: float,
    spread: float,
    quantile: QuantileMethod,
    steps: int,
    ledger: Ledger,
    g: Any,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """The centre stage by ``d`` private medians over the whole public range, and its public
    warning when the budget per coordinate is thin for the range.

    Privacy
    -------
    Replace-one: ``rho_c / d`` per coordinate, utility (or count) sensitivity 1, ``rho_c`` in all.
    With ``spread > 0`` (the authors' code, docs/estimators/plan.md §10.10) the medians run on the
    tripled data ``{x - spread, x, x + spread}`` with the noise of ``rho_c``; one person moves three
    points, so the sensitivity is 3 and the mechanisms charge the true ``9 rho_c``.
    """
    n, d = X.shape
    if spread > 0:
        data, k = np.concatenate([X - spread, X, X + spread]), 3
        note = (
            f"as published: {d} medians of the tripled data {{x - {spread:g}, x, x + {spread:g}}} "
            f"run with rho {rho_c:.4g}; one person moves 3 points, so the true cost is "
            f"9 x {rho_c:.4g} (docs/estimators/plan.md §10.10)"
        )
    else:
        data, k = X, 1
        note = f"{d} private medians ({quantile}), rho/d = {rho_c / d:.4g} each"
    with mechanisms.stage(ledger, STAGE_LABELS["center"], note=note):
        mu_t = private_quantile(
            data, 0.5, (lo, hi), rho=rho_c, method=quantile, steps=steps, rng=g, points_per_person=k
        )
    warnings_: tuple[str, ...] = ()
    if spread == 0 and quantile == "exponential":
        # Public check: the empty stretch of the range beside the data (length up to the width)
        # outweighs the median's utility advantage eps n / 4 when eps n / 4 < ln(width n).
        eps_col = math.sqrt(8.0 * rho_c / d)
        if eps_col * n / 4.0 < math.log(float(np.max(hi - lo)) * n):
            warnings_ = (
                f"the centre's budget is thin: rho/d = {rho_c / d:.2g} per coordinate over a range "
                f"{float(np.max(hi - lo)):.3g} wide, so some private medians may land far from the data "
                f"(PLAN needs n >> sqrt(d / rho); more n, more budget or a tighter public range fixes it).",
            )
    return np.asarray(mu_t, dtype=float), warnings_
