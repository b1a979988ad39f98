"""PLAN's public entry point :func:`plan`: the options as keywords, run by
:func:`~dpcore.estimators.plan.compose.run_plan` through a :class:`~dpcore.estimators.plan.spec.PlanSpec`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore._validation import RngLike
from dpcore.estimate import Estimate
from dpcore.estimators.plan.compose import run_plan
from dpcore.estimators.plan.spec import CenterStep, PlanSpec, RadiusStep, VarianceMethod
from dpcore.estimators.plan.variances import VARIANCE_CAP_SHARE
from dpcore.quantiles.coordinate import QuantileMethod


def plan(
    x: np.ndarray,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    sigma: np.ndarray | None = None,
    variances: VarianceMethod = "private",
    p: float = 2.0,
    scale_exponent: float | None = None,
    budget_split: dict[str, float] | None = None,
    quantile: QuantileMethod = "exponential",
    steps: int = 20,
    beta: float = 0.1,
    pairs_per_group: int = 1,
    radius_universe_kind: str | float | None = None,
    center: str | None = None,
    regularise_sigma: bool | None = None,
    rank_slack_kind: str | float = "plan",
    center_step: CenterStep = "coinpress",
    radius_step: RadiusStep = "log_grid",
    center_spread: float = 0.0,
    coinpress_spread_share: float = 0.1,
    variance_cap_share: float = VARIANCE_CAP_SHARE,
    rng: RngLike = None,
) -> Estimate:
    """PLAN (Algorithm 1) with a private centre, variance-aware scaling and a private clip radius.

    Parameters
    ----------
    x : array (n, d)
        Data, one row per person.
    rho : float
        Total zCDP budget (replace-one neighbours, ``n`` public).
    bounds : (lower, upper)
        Public per-coordinate range (search range of the centre and variance quantiles, and the
        ``"range"`` radius universe).
    sigma : array (d,), optional
        Known per-coordinate standard deviations (only with ``variances="oracle"``).
    variances : {"private", "oracle", "binary", "none"}
        How ``sigma^`` is obtained: Algorithm 2 (real data), the known ``sigma`` (teaching
        oracle, spends nothing), the Gaussian-mechanism frequencies (binary data, §4b), or
        ``sigma^ = 1`` (PLAN without scaling, §5b).
    p : float
        Target ``l_p`` error (PLAN's exponent ``1/(p+2)``).
    scale_exponent : float, optional
        Override ``e`` in ``s = sigma^ ** (-2e)``: 0 no scaling, ``1/(p+2)`` PLAN, ``1/2`` equal split.
    budget_split : dict, optional
        Fractions of ``rho`` per stage (``center``, ``variance``, ``radius``, ``noise``); summing to 1.
        Default: the paper's ``0.0625/0.1875/0.1875/0.5625``; without variance stage the centre
        gets ``0.25``; binary data ``variance 0.25`` (free centre). With the coarse-to-fine centre
        and no explicit split, the centre's share is raised to
        ``min(needed_center_share(n, d, rho), 0.5)`` when that is larger, the difference taken from
        the noise share (a rule on public values; the ledger shows the shares used, summing to
        ``rho`` exactly).
    quantile : {"exponential", "binary_search"}
        Private quantile routine for the centre, the variances and the radius.
    steps : int
        Binary-search steps ``T`` (only for ``quantile="binary_search"``).
    beta : float
        Failure probability in the rank slack and the trimmed universe (0.1 as in the paper).
    pairs_per_group : int
        ``k`` of Algorithm 2.
    radius_universe_kind : {"trimmed", "range"} or float, optional
        ``U``; default ``"trimmed"`` for scaled real data, ``"range"`` otherwise.
    center : {"median", "frequencies", "box"}, optional
        Private coordinate medians (default), the free private frequency vector (binary default),
        or the public box centre (spends nothing).
    regularise_sigma : bool, optional
        Add ``||sigma^||_1 / d``; default True except for the oracle.
    rank_slack_kind : "plan", "error_only" or float
        ``k = sqrt(n) + rank error`` (PLAN), the rank error alone, or ``k`` as given.
    center_step : {"coinpress", "coarse_to_fine", "paper"}
        How the centre is found (``center="median"``): ``"coinpress"`` (default;
        :func:`coinpress_scaled_center`: CoinPress's shrinking ball in the scaled space, run after
        the variances; ``coinpress_spread_share`` of ``rho_center`` for the private l2 spread, the
        rest over the public number of steps), ``"coarse_to_fine"``
        (:func:`coarse_to_fine_median`: two noisy-histogram zooms with half of ``rho_center``, then
        the exponential-mechanism median in the final window with the other half), or the paper's
        exponential mechanism over the whole public range. Both robust steps get the automatic
        centre share. On the paper's wide B/C ranges (``+-50 d sqrt(sigma_max)``) the
        per-coordinate zooms miss where CoinPress does not (docs/estimators/plan.md). With the
        oracle variances ``"coinpress"`` falls back to coarse-to-fine; without scaling
        (``variances="none"``: ``plan_noscale``, ``gaussian_private``) and with
        ``quantile="exponential"`` CoinPress runs on the rows themselves (``s = 1``).
    radius_step : {"log_grid", "paper"}
        How ``C`` is found (``quantile="exponential"``): the exponential mechanism over the public
        log grid ``U 1.002**-k`` on ``[U 1e-9, U]`` (default, :func:`dpcore.quantiles.exponential.log_grid_quantile`,
        rank slack ``sqrt(n) + 2 ln(G / beta) / sqrt(8 rho_radius)``), or the paper's exponential
        mechanism over the gaps of ``[0, U]`` with [R]'s rank slack.
    center_spread : float
        0 (default, honest). A positive value reproduces the authors' code ([R],
        docs/estimators/plan.md §10.10): the centre medians run on the tripled data
        ``{x - c, x, x + c}`` with the centre
        budget as given; one person then moves three points, so the release really costs
        ``9 rho_center`` (group privacy for zCDP, ``k**2 rho``), and the ledger charges that.
    coinpress_spread_share : float
        Share of ``rho_center`` for the private l2 spread of the CoinPress centre (0 takes the spread
        from ``sigma^`` instead, which is itself noisy at large ``d``).
    variance_cap_share : float
        Share of ``rho_variance`` for :func:`variance_cap`, a private bound on every ``sigma_i^2``
        that tops Algorithm 2's search ranges (default 0.1; 0 is the paper's Algorithm 2 alone,
        as in :func:`plan_as_published`). The two parts sum to ``rho_variance`` exactly.
    rng : None, int or Generator

    Returns
    -------
    Estimate
        ``diagnostics``: ``center``, ``scale``, ``clip_radius``, ``clipped`` (rows), ``noise_std``
        (original space), as a :class:`PlanDiagnostics` (``sigma_hat``, ``rank_slack``,
        ``clip_quantile``, ``radius_universe``, ``norms``, ``budgets`` per stage and more; read it
        with ``est.diagnostics_as(PlanDiagnostics)``).

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP in total (``rho + 8 rho_center`` with
    ``center_spread > 0``: ``1.5 rho`` at the paper's split).
    Ledger stages, each charged by the mechanisms that draw in it: "centre (coordinate medians)"
    (``rho_center``: medians of sensitivity 1, coarse-to-fine histograms of l2 sensitivity
    ``sqrt(2 d)``, or CoinPress means of l2 sensitivity ``2 R_t / n``; with ``center_spread > 0``
    the tripled data's sensitivity 3, charged ``9 rho_center``), "variances" (``rho_variance``:
    rank utilities of sensitivity 1, or the frequencies' l2 sensitivity ``||hi - lo||_2 / n``),
    "clip radius" (``rho_radius``: rank utility of sensitivity 1 over the ``n`` scaled norms) and
    "noisy sum" (``rho_noise``: l2 sensitivity ``2C`` of the clipped sum). Everything else is
    post-processing of public values and these releases. Public inputs that are NaN or infinite
    are refused before anything is drawn.

    References
    ----------
    Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1, Algorithm 2;
    docs/estimators/plan.md §2–§5, §10.
    """
    spec = PlanSpec(
        variances=variances,
        p=p,
        scale_exponent=scale_exponent,
        budget_split=budget_split,
        quantile=quantile,
        steps=steps,
        beta=beta,
        pairs_per_group=pairs_per_group,
        radius_universe_kind=radius_universe_kind,
        center=center,
        regularise_sigma=regularise_sigma,
        rank_slack_kind=rank_slack_kind,
        center_step=center_step,
        radius_step=radius_step,
        center_spread=center_spread,
        coinpress_spread_share=coinpress_spread_share,
        variance_cap_share=variance_cap_share,
    )
    return run_plan(x, spec, rho=rho, bounds=bounds, sigma=sigma, rng=rng)
