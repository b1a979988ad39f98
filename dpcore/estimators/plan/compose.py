"""PLAN composed from its stages: :func:`run_plan` (Algorithm 1 with a private centre, private
variances and a private clip radius).

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1, Algorithm 2;
docs/estimators/plan.md §2–§5, §10.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_data, check_positive, check_vector
from dpcore.estimate import Estimate
from dpcore.estimators.plan.centre import recenter, recenter_scaled
from dpcore.estimators.plan.core import scale_vector
from dpcore.estimators.plan.diagnostics import PlanDiagnostics
from dpcore.estimators.plan.stages import (
    PlanRun,
    Release,
    Threshold,
    estimate_variances,
    private_frequencies,
    release,
    stage_budgets,
    threshold,
)
from dpcore.estimators.plan.variances import _floor_positive, regularise
from dpcore.privacy import Ledger
from dpcore.quantiles._common import check_public_bounds

if TYPE_CHECKING:
    from dpcore.estimators.plan.spec import PlanSpec


def run_plan(
    x: np.ndarray,
    spec: PlanSpec,
    *,
    rho: float,
    bounds: tuple[Any, Any] | None = None,
    sigma: np.ndarray | None = None,
    rng: RngLike = None,
) -> Estimate:
    """PLAN with the options of ``spec``: split, centre, variances, radius, release.

    The stages run in this order (the generator's draws follow it, so the outputs are fixed by
    ``rng``): the binary frequencies, the centre when it comes first, the variances, the scale
    ``s = sigma^ ** (-2e)``, the CoinPress centre in scaled space when it comes after, the clip
    radius and the noisy sum. See :func:`dpcore.estimators.plan.plan` for the options.

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
    fractions, budgets, auto = stage_budgets(spec, n, d, rho)
    sigma_known = _oracle_sigma(sigma, d) if spec.variances == "oracle" else None
    run = PlanRun(
        X, lo, hi, spec, rho, fractions, budgets, auto, Ledger("zcdp"), mechanisms.generator(rng)
    )

    q_tilde = private_frequencies(run)  # binary data: drawn first, charged as the variances
    mu = recenter(run, q_tilde)  # None: CoinPress, after the variances
    raw = estimate_variances(run, q_tilde, sigma_known)
    sigma_hat = regularise(raw) if spec.regularise_sigma else _floor_positive(raw)
    s = scale_vector(sigma_hat, spec.p, spec.scale_exponent)
    if mu is None:
        mu = recenter_scaled(run, sigma_hat, s)
    thr = threshold(run, mu, sigma_hat, s)
    out = release(run, mu, s, thr)
    diag = _diagnostics(run, mu, raw, sigma_hat, s, thr, out)
    return Estimate(mean=out.mean, ledger=run.ledger, diagnostics=diag)


def _diagnostics(
    run: PlanRun,
    mu: np.ndarray,
    raw: np.ndarray,
    sigma_hat: np.ndarray,
    s: np.ndarray,
    thr: Threshold,
    out: Release,
) -> PlanDiagnostics:
    """What the run reports (public outputs, the data's norms for the pictures)."""
    spec, n = run.spec, run.X.shape[0]
    assert spec.scale_exponent is not None and spec.center is not None
    assert spec.radius_universe_kind is not None
    return PlanDiagnostics(
        noiseless_mean=out.noiseless,
        center=mu,
        scale=s,
        clip_radius=thr.radius,
        clipped=thr.norms > thr.radius,
        noise_std=out.tau / (n * s),
        warnings=run.warnings,
        sigma_hat=sigma_hat,
        sigma_hat_raw=raw,
        scale_exponent=spec.scale_exponent,
        p=spec.p,
        rank_slack=thr.rank_slack,
        clip_quantile=thr.clip_quantile,
        radius_universe=thr.universe,
        radius_universe_kind=spec.radius_universe_kind,
        norms=thr.norms,
        noise_std_scaled=out.tau,
        budgets=dict(run.budgets),
        fractions=dict(run.fractions),
        quantile=spec.quantile,
        variances=spec.variances,
        center_method=spec.center,
        noise=out.eta / (n * s),
        **run.extra,
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
