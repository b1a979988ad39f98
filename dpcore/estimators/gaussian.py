"""The Gaussian-mechanism clipped mean: the baseline every other estimator is compared with.

Spec: docs/estimators/plan.md §5c. Centre ``c``, clip each ``x_j - c`` to the l2 ball of radius
``C``, release

    c + ( sum_j clip_C(x_j - c) + N(0, (2C)² / (2 rho) I) ) / n.

Privacy
-------
* Neighbouring relation: replace-one, ``n`` public (docs/estimators/plan.md §1).
* Sensitivity: each clipped row has norm <= C, so replacing one row moves the sum by at most
  ``2C`` in l2 (not ``C``: that would be add/remove).
* Budget: the whole ``rho`` goes to the one Gaussian release when ``c`` and ``C`` are public.
  Output noise std per coordinate: ``2C / (n sqrt(2 rho))``.

With public bounds and no radius given, ``c`` is the centre of the box and ``C`` its half diagonal,
so nothing inside the box is clipped (the worst case the PLAN paper's Theorem 1.1 compares with).

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), §1 and §4.5; docs/estimators/plan.md §5c.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore._validation import (
    RngLike,
    check_data,
    check_fractions,
    check_option,
    check_positive,
)
from dpcore.estimate import Cost, Default, Diagnostics, Estimate
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.estimators.plan.spec import PlanSpec
from dpcore.privacy import Ledger
from dpcore.quantiles._common import check_public_bounds


def clip_rows(y: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scale each row of ``y`` onto the l2 ball of ``radius`` if it lies outside.

    Returns the clipped rows, the boolean mask of clipped rows, and the row norms.
    """
    norms = np.sqrt(np.einsum("ij,ij->i", y, y))
    factor = np.minimum(1.0, radius / np.maximum(norms, np.finfo(float).tiny))
    return y * factor[:, None], norms > radius, norms


@dataclass(frozen=True, kw_only=True)
class ClippedGaussianOptions(EstimatorOptions):
    """Clipped mean with Gaussian noise, public centre and radius (rho-zCDP, replace-one), called
    as ``gaussian_clipped_mean(x, rho=..., bounds=..., center=..., radius=..., rng=...)``.

    Attributes
    ----------
    center, radius : optional
        Public centre and l2 clip radius overriding those from ``bounds``.

    A call also takes the data ``x`` (shape (n, d) or (n,)), ``rho`` (the zCDP budget, all spent
    on the noisy sum), ``bounds = (lower, upper)`` (the public per-coordinate range; it gives the
    default centre, the box centre, and radius, the half diagonal) and ``rng``.

    Returns
    -------
    Estimate
        ``diagnostics.noise_std`` is ``2C / (n sqrt(2 rho))`` in every coordinate.

    Raises
    ------
    ValueError
        Before anything is spent, for a centre, bounds or radius that is not finite (NaN or
        infinity) or a radius that is not positive.

    Privacy
    -------
    Replace-one, ``n`` public; ``c`` and ``C`` public. Each clipped row has norm ``<= C``, so the
    clipped sum has l2 sensitivity ``2C``; one Gaussian release of std ``2C / sqrt(2 rho)``
    (:func:`dpcore.mechanisms.gaussian`) is ``rho``-zCDP, the ledger's one stage "noisy sum". The
    mechanism adds the noise to the clipped sum itself, so a release backend draws the noisy sum
    exactly (no floating-point addition of noise to a data value outside the mechanism); the mean
    is ``c + noisy sum / n``, post-processing.
    """

    center: Any = None
    radius: float | None = None

    def run(self, x: Any, *, rng: RngLike, rho: float, bounds: Any = None) -> Estimate:
        """The clipped Gaussian mean with these options."""
        return _clipped_gaussian_mean(x, rho, bounds, self.center, self.radius, rng)


gaussian_clipped_mean = ClippedGaussianOptions(name="gaussian_clipped_mean")


def _clipped_gaussian_mean(
    x: Any, rho: float, bounds: Any, center: Any, radius: float | None, rng: RngLike
) -> Estimate:
    arr = check_data(x)
    X = arr.reshape(arr.shape[0], -1)
    n, d = X.shape
    rho = check_positive(rho, "rho")
    c, C = _public_ball(bounds, center, radius, d)
    ledger = Ledger("zcdp")
    clipped, mask, _ = clip_rows(X - c, C)
    clipped_sum = clipped.sum(axis=0)
    noiseless = c + clipped.mean(axis=0)
    sensitivity = 2.0 * C  # replace-one: ||clip(x) - clip(x')|| <= 2C
    std_sum = sensitivity / np.sqrt(2.0 * rho)
    with mechanisms.stage(ledger, "noisy sum"):
        noisy_sum = mechanisms.gaussian(
            clipped_sum,
            sensitivity=sensitivity,
            rho=rho,
            rng=mechanisms.generator(rng),
            scale=std_sum,
            note=f"Gaussian mechanism, l2 sensitivity 2C = {sensitivity:.4g}",
        ).value
    mean = c + noisy_sum / n
    diag = Diagnostics(
        noiseless_mean=noiseless,
        center=c,
        scale=np.ones(d),
        clip_radius=C,
        clipped=mask,
        noise_std=np.full(d, std_sum / n),
    )
    return Estimate(mean=mean, ledger=ledger, diagnostics=diag)


def _public_ball(bounds: Any, center: Any, radius: Any, d: int) -> tuple[np.ndarray, float]:
    """The public centre and clip radius: given, or the centre and half diagonal of the box.

    Refuses a non-finite centre, bounds or radius with a ``ValueError`` saying what to pass.
    """
    if center is not None:
        try:
            c = np.broadcast_to(np.asarray(center, dtype=float), (d,)).copy()
        except (TypeError, ValueError, OverflowError) as err:
            raise ValueError(
                f"center must be a number or an array of length d = {d}; got {center!r}."
            ) from err
        if not np.all(np.isfinite(c)):
            raise ValueError(
                "center must be finite in every coordinate (no NaN or infinity): pass a public "
                "point chosen without the data, or leave center=None to use the centre of bounds."
            )
    if radius is not None:
        try:
            r = float(radius)
        except (TypeError, ValueError, OverflowError) as err:
            raise ValueError(f"radius must be a positive number; got {radius!r}.") from err
        if not (math.isfinite(r) and r > 0):
            raise ValueError(
                f"radius must be a positive finite number (the public l2 clip radius); got "
                f"{radius!r}. Pass e.g. the half diagonal of the public box, or leave radius=None "
                "to take it from bounds."
            )
    if center is None or radius is None:
        lo, hi = check_public_bounds(bounds, d)
        if center is None:
            c = (lo + hi) / 2.0
        if radius is None:
            r = float(np.linalg.norm((hi - lo) / 2.0))
    return c, check_positive(r, "radius")


#: The Gaussian-mechanism baselines.
GAUSSIAN = Family(
    family="baseline",
    data_kinds=frozenset({"real", "bounded", "binary"}),
    cost=Cost(per_value_us=0.2, overhead_ms=2.0),
)

GAUSSIAN.register(
    "gaussian_public",
    "Gaussian (public bounds)",
    300,
    gaussian_clipped_mean,
    color="#8c564b",
    detail="Gaussian mechanism (public bounds)",
    description="Clip to the ball around the centre of the public box, add Gaussian noise to the sum.",
)


#: Gaussian-mechanism clipped mean with a private centre and a private radius (rho-zCDP): PLAN's
#: stages with no scaling, as an options record; called as ``gaussian_private_radius(x, rho=...,
#: bounds=..., quantile=..., budget_split=..., rank_slack_kind=..., steps=..., beta=..., rng=...)``.
#:
#: docs/estimators/plan.md §5c with both public quantities replaced by private ones: a private
#: centre ``c`` (``rho_center``), ``C`` = private ``(n - k)/n``-quantile of ``||x_j - c||_2`` below
#: ``||hi - lo||_2`` (``rho_radius``), then the clipped sum with ``N(0, (2C)^2 / (2 rho_noise) I)``
#: (l2 sensitivity ``2C`` under replace-one). No scaling: the noise is the same in every
#: coordinate (the classical Gaussian mechanism's "noise shape"). Default split ``center 0.25,
#: radius 0.1875, noise 0.5625`` (the PLAN split with the variance share given to the centre).
#:
#: By default ``k`` is the quantile's rank error only (``rank_slack_kind="error_only"``): the
#: radius aims at the data diameter, ``C ≈ Θ(||sigma||_2)`` as in the Theorem 1.1 comparison, and
#: clips only a handful of rows.
#:
#: Steps with ``quantile="exponential"`` (the default; PLAN's robust steps
#: with ``s = 1``):
#:
#: * centre: CoinPress (:func:`dpcore.estimators.plan.coinpress_scaled_center` with ``s = 1``):
#:   ``0.1 rho_center`` for the private l2 spread (log-grid exponential mechanism on ``n // 2``
#:   disjoint pair distances; one person in one pair, rank utility with sensitivity 1), then ``T``
#:   noisy clipped means in public balls of radius ``R_t`` (l2 sensitivity ``2 R_t``, ``rho_t``-zCDP
#:   each, ``sum rho_t = 0.9 rho_center``). PLAN's public rule raises the centre's share on wide
#:   ranges, taken from the noise share;
#: * radius: the exponential mechanism over the public log grid below ``||hi - lo||_2``
#:   (:func:`dpcore.quantiles.exponential.log_grid_quantile`, utility sensitivity 1,
#:   ``rho_radius``-zCDP; ``k`` = :func:`dpcore.quantiles.exponential.log_grid_rank_error`).
#:
#: ``quantile="binary_search"`` is the earlier default: ``d`` coordinate medians by binary search
#: (``rho_center / d`` each) and the radius by ``steps`` noisy halvings of ``[0, ||hi - lo||_2]``
#: (Lemma 2.8). Its radius search never recovers from one wrong noisy comparison early on: on the
#: Home setting (Gaussian, ``sigma_i^2 = (d/i)^2``, n = 4000, d = 128, rho = 1/4, data seeds
#: 0-39) it returned ``C = 72 000`` and ``4 500`` where the rows' largest distance is about 500
#: (errors 729 and 54 against a median 4.5; 8% of runs beyond 3x the median); the default's worst
#: run on these settings stays within 2x its median. With ``rank_slack_kind="plan"`` this
#: estimator is exactly PLAN without scaling (``plan_noscale``).
#:
#: Privacy: replace-one neighbours, ``n`` public; the three stages compose to ``rho`` (ledger).
#:
#: References
#: ----------
#: Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), §1, §4.5, Theorem 1.1; docs/estimators/plan.md
#: §5b–§5c.
@dataclass(frozen=True, kw_only=True)
class GaussianRadiusOptions(PlanSpec):
    """PLAN's stages without scaling (the private-radius Gaussian mechanism); its options are
    checked before the data (a bad ``budget_split`` is named before a missing ``bounds``)."""

    def run(self, *args: Any, **kwargs: Any) -> Estimate:
        """PLAN's run, after checking the split and the slack rule."""
        check_fractions(
            self.budget_split, "budget_split", ("center", "variance", "radius", "noise")
        )
        check_option(self.rank_slack_kind, "rank_slack_kind", ("plan", "error_only"), low=0.0)
        return super().run(*args, **kwargs)


gaussian_private_radius = GaussianRadiusOptions(
    variances="none",
    scale_exponent=0.0,
    rank_slack_kind="error_only",
    radius_universe_kind="range",
    name="gaussian_private_radius",
    fixed=(
        "variances",
        "p",
        "scale_exponent",
        "pairs_per_group",
        "radius_universe_kind",
        "center",
        "regularise_sigma",
        "center_step",
        "radius_step",
        "center_spread",
        "coinpress_spread_share",
        "variance_cap_share",
    ),
)


GAUSSIAN.register(
    "gaussian_private",
    "Gaussian mechanism",
    310,
    gaussian_private_radius,
    color="#CC79A7",
    cost=Cost(per_value_us=0.17, overhead_ms=6.0),
    detail="Gaussian mechanism (private centre and radius)",
    default=Default(rank=50),
    description="Private centre (CoinPress shrinking ball), private radius near the largest distance, "
    "isotropic Gaussian noise on the clipped sum.",
)
