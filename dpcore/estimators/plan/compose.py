"""PLAN composed from its stages: :func:`run_plan` (Algorithm 1 with a private centre, private
variances and a private clip radius).

Each stage takes its inputs, its part of the budget, the ledger and the generator, and returns a
frozen result (:mod:`.budget`, :mod:`.frequencies`, :mod:`.recentre`, :mod:`.variances`,
:mod:`.scale`, :mod:`.threshold`, :mod:`.release`); the diagnostics and the warnings are assembled
from those results at the end.

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1, Algorithm 2;
docs/estimators/plan.md §2–§5, §10.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_data, check_positive, check_vector
from dpcore.estimate import Estimate
from dpcore.estimators.plan.budget import StageBudgets, stage_budgets
from dpcore.estimators.plan.diagnostics import PlanDiagnostics
from dpcore.estimators.plan.frequencies import Frequencies, private_frequencies
from dpcore.estimators.plan.options import PlanOptions
from dpcore.estimators.plan.recentre import Centre, recenter, recenter_scaled
from dpcore.estimators.plan.release import Release, release
from dpcore.estimators.plan.scale import Scale, scale
from dpcore.estimators.plan.threshold import Threshold, threshold
from dpcore.estimators.plan.variances import estimate_variances
from dpcore.privacy import Ledger
from dpcore.quantiles._common import check_public_bounds


def run_plan(
    x: np.ndarray,
    spec: PlanOptions,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    sigma: np.ndarray | None = None,
    rng: RngLike = None,
) -> Estimate:
    """PLAN with the options ``spec``: budgets, centre, variances, scale, radius, release.

    The stages run in this order (the generator's draws follow it, so the outputs are fixed by
    ``rng``): the binary frequencies, the centre when it comes first, the variances, the scale
    ``s = sigma^ ** (-2e)``, the CoinPress centre in scaled space when it comes after, the clip
    radius and the noisy sum. See :class:`~dpcore.estimators.plan.spec.PlanSpec` for the options.

    Privacy
    -------
    Replace-one, ``n`` public; ``rho``-zCDP (``rho + 8 rho_center`` with ``center_spread > 0``).
    Each stage is a ledger stage whose mechanisms write their own lines; everything else is
    post-processing of public values and earlier releases. Public inputs are checked before
    anything is drawn.
    """
    X = check_data(x, ndim=2, min_rows=2)
    n, d = X.shape
    rho = check_positive(rho, "rho")
    if bounds is None and spec.variances == "binary":
        bounds = (np.zeros(d), np.ones(d))  # binary data: the unit box
    lo, hi = check_public_bounds(bounds, d)
    spec = spec.resolved()
    budget = stage_budgets(spec, n, d, rho)
    part = budget.budgets
    sigma_known = _oracle_sigma(sigma, d) if spec.variances == "oracle" else None
    ledger, g = Ledger("zcdp"), mechanisms.generator(rng)

    freq = None  # binary data: the frequencies are drawn first, charged as the variances
    if spec.variances == "binary":
        freq = private_frequencies(X, lo, hi, part["variance"], g)
    first = recenter(X, lo, hi, spec, budget, None if freq is None else freq.q, ledger, g)
    rho_v = part.get("variance", 0.0)
    raw = estimate_variances(X, lo, hi, spec, rho_v, freq, sigma_known, ledger, g)
    sc = scale(raw, spec)
    centre = first if first else recenter_scaled(X, lo, hi, sc, spec, budget, ledger, g)
    thr = threshold(X, lo, hi, centre.mu, sc, spec, part["radius"], ledger, g)
    out = release(X, centre.mu, sc.s, thr.radius, thr.norms, part["noise"], ledger, g, thr.rows)
    diag = _diagnostics(spec, budget, freq, centre, sc, thr, out)
    return Estimate(mean=out.mean, ledger=ledger, diagnostics=diag)


def _diagnostics(
    spec: PlanOptions,
    budget: StageBudgets,
    freq: Frequencies | None,
    centre: Centre,
    sc: Scale,
    thr: Threshold,
    out: Release,
) -> PlanDiagnostics:
    """What the run reports, from the stages' results (public outputs, and the data's norms for
    the pictures); the warnings in stage order."""
    n = thr.norms.size
    assert spec.scale_exponent is not None and spec.center is not None
    assert spec.radius_universe_kind is not None
    return PlanDiagnostics(
        noiseless_mean=out.noiseless,
        center=centre.mu,
        scale=sc.s,
        clip_radius=thr.radius,
        clipped=thr.norms > thr.radius,
        noise_std=out.tau / (n * sc.s),
        warnings=[*centre.warnings, *thr.warnings, *out.warnings],
        sigma_hat=sc.sigma_hat,
        sigma_hat_raw=sc.sigma_raw,
        scale_exponent=spec.scale_exponent,
        p=spec.p,
        rank_slack=thr.rank_slack,
        clip_quantile=thr.clip_quantile,
        radius_universe=thr.universe,
        radius_universe_kind=spec.radius_universe_kind,
        norms=thr.norms,
        noise_std_scaled=out.tau,
        budgets=dict(budget.budgets),
        fractions=dict(budget.fractions),
        quantile=spec.quantile,
        variances=spec.variances,
        center_method=spec.center,
        noise=out.eta / (n * sc.s),
        frequencies=None if freq is None else freq.q,
        frequency_noise_std=None if freq is None else freq.noise_std,
        center_window=centre.window,
        coinpress=centre.coinpress,
    )


def _oracle_sigma(sigma: Any, d: int) -> np.ndarray:
    """The known standard deviations of ``variances="oracle"``, checked before anything is spent."""
    if sigma is None:
        raise ValueError(
            "variances='oracle' needs the known standard deviations: pass sigma=(d,) array."
        )
    raw = check_vector(sigma, "sigma", d)
    if not np.all(np.isfinite(raw)) or np.any(raw < 0):
        raise ValueError(
            "sigma must be finite and >= 0 in every coordinate (no NaN or infinity); pass the "
            "known per-coordinate standard deviations."
        )
    return raw
