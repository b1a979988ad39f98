"""PLAN: variance-aware private mean estimation (Algorithm 1), with its variance estimators.

Algorithm 1 (docs/estimators/plan.md §2), with the stages as they appear in :func:`run_plan`::

    1. centre   mu~  = coordinate-wise private median               rho_center   (rho_center/d per coordinate)
    2. spread   s_i  = sigma^_i ** (-2 e),  e = 1/(p+2) by default    rho_variance (private sigma^, §4)
    3. radius   C    = private (n-k)/n quantile of ||(x_j - mu~) * s||_2 on [0, U]      rho_radius
    4. noise    eta  ~ N(0, (2C)^2 / (2 rho_noise) I_d)                                rho_noise
    5. output   mu~ + ( sum_j clip_C((x_j - mu~) * s) + eta ) / (n s)

Privacy
-------
* Neighbouring relation: replace-one, ``n`` public (docs/estimators/plan.md §1).
* zCDP composition: the four stages add up to ``rho``. Each stage is a
  :func:`dpcore.mechanisms.stage` of the ledger, and every noise draw inside it is made by a
  mechanism of :mod:`dpcore.mechanisms`, which writes the ledger line itself (sensitivity, scale,
  the calibration ratio, and the budget: an exponential-mechanism draw in ``eps`` is converted to
  ``eps**2 / 8`` rho, so the lines add up to ``rho`` to within a few ulps). Default split of the
  paper's experiments (§2 "Budgets", Listing 1): ``center 0.0625, variance 0.1875, radius 0.1875,
  noise 0.5625``.
* Centre: ``d`` one-dimensional private medians with ``rho_center / d`` each (exponential mechanism,
  ``eps = sqrt(8 rho')``, utility sensitivity 1 under replace-one; or the Gaussian binary search).
  By default (``center_step="coinpress"``): CoinPress in the scaled space, run
  after the variances: a private l2 spread (log-grid exponential mechanism on ``n // 2`` disjoint
  pair distances, one person in one pair, ``0.1 rho_center``) then ``T`` noisy clipped means in
  balls of public radius ``R_t`` (l2 sensitivity ``2 R_t``, Gaussian std ``2 R_t / (n sqrt(2 rho_t))``
  on the mean, ``rho_t``-zCDP, ``sum rho_t = 0.9 rho_center``); see :func:`coinpress_scaled_center`.
* Variances (real data, Algorithm 2 / §4c): one person sits in exactly one group of each column,
  so each private median of group statistics has the replace-one sensitivity of a quantile;
  ``rho_variance / d`` per coordinate. By default ``0.1 rho_variance``
  first buys :func:`variance_cap`, a private bound on every ``sigma_i^2`` (one log-grid
  exponential-mechanism median of ``n // 2`` disjoint pair distances, one person in one pair,
  rank utility with sensitivity 1), which tops the search ranges; the medians then get
  ``0.9 rho_variance / d`` each (the two parts sum to ``rho_variance`` exactly). Binary data
  (§4b): the vector of frequencies has l2 sensitivity ``||hi - lo||_2 / n = sqrt(d) / n``;
  Gaussian mechanism with ``rho_variance``.
* Radius: one 1-D private quantile of the ``n`` scaled norms with ``rho_radius`` (a row changes
  one norm).
* Noise: every clipped scaled row has l2 norm ``<= C``, so replacing one row moves the sum by at
  most ``2C`` (not ``C``: that would be add/remove). Gaussian mechanism: std ``2C / sqrt(2 rho_noise)
  = sqrt(2 C^2 / rho_noise)`` in scaled space; in original space coordinate ``i`` gets
  ``sqrt(2 C^2 / rho_noise) / (n s_i)`` (§2 "Noise", §9.3).

Everything else (the scale vector, the universe ``U``, the rank slack ``k``) is computed from
public values and from outputs of earlier private stages, so it is post-processing.

Decisions where the paper or the spec is silent or wrong (see docs/estimators/plan.md §10)
---------------------------------------------------------------------------------
* Chi-square median correction in the right direction (§10.1): ``sigma^2 = m / (k (1 - 2/(9k))^3)``,
  i.e. ``m * (9/7)^3`` for one pair per group.
* Radius universe: ``"trimmed"`` (the experiments' choice, default for scaled PLAN) is
  ``U = sqrt(ln max(n, d) ln(1/beta) * sum_i sigma^_i^2 s_i^2)``, which equals the spec's
  ``sqrt(ln max(n,d) ln(1/beta) ||sigma^||_1)`` for ``p = 2`` (§10.5) and is the same "expected
  squared scaled norm times a log margin" for any scaling exponent; it is capped at the safe
  ``"range"`` universe ``||(hi - lo) * s||_2`` (the largest scaled norm of a centred point of the
  box). PLAN without scaling and the binary instantiation use ``"range"`` (not the defect of
  §10.8; for 0/1 data it is ``||s||_2``, §10.6).
* Rank slack (§2, §10.16): ``k = sqrt(n) + rank error``; exponential mechanism: [R]'s
  ``sqrt((T/2) ln(T/beta) / rho_radius)`` with ``T = max(ln(width), 1)``, ``width`` the widest
  coordinate range; binary search: Lemma 2.8, ``sqrt(T ln(T/beta) / (2 rho_radius))`` with its
  actual ``T``. The clip quantile ``1 - k/n`` is clamped to ``[0.5, 1)``; a warning when
  ``k / n > 0.1``.
* ``sigma^`` is regularised as ``sigma^ + ||sigma^||_1 / d`` (§4a.3) for private variances; the
  oracle uses the true ``sigma`` as given (``regularise=False``) so the teaching picture shows the
  ideal scaling. A column with ``sigma^ = 0`` is floored at a tiny positive value.
* Binary data: the centre is the private frequency vector ``q~`` itself (clipped to the box),
  which is free post-processing, so the preprocessing share 0.25 goes to the variance stage.
* The variance and centre shares for oracle / no-scaling runs go to the centre (§5b).

Layout
------
One file per stage, each a function ``(inputs, budget part, ledger, generator) -> frozen result``
composed by :func:`~dpcore.estimators.plan.compose.run_plan` (docs/architecture.md):
:mod:`.budget` (:func:`stage_budgets`), :mod:`.frequencies` (:func:`private_frequencies`, binary
data), :mod:`.recentre` (:func:`recenter`, :func:`recenter_scaled`), :mod:`.variances`
(:func:`estimate_variances`, Algorithm 2), :mod:`.scale` (:func:`scale`), :mod:`.threshold`
(:func:`threshold`) and :mod:`.release` (:func:`release`; :func:`plan_core` for a given centre,
``sigma^`` and radius). :mod:`.options` is the protocol the stages read the options through,
:mod:`.spec` the frozen :class:`PlanSpec` that runs them, :mod:`.variants` the family default
``plan`` and the registered variants, :mod:`.risk` the public warnings.

References
----------
Aumüller, Lebeda, Nelson, Pagh. "PLAN: Variance-Aware Private Mean Estimation." PETS 2024
(arXiv 2306.08745v3): Algorithm 1, Listing 1, Algorithm 2 (App. D.1), Sections 4–7.
docs/estimators/plan.md §2–§5, §9, §10.
"""

from __future__ import annotations

from dpcore.estimators.plan.budget import (
    BINARY_SPLIT,
    DEFAULT_SPLIT,
    MAX_AUTO_CENTER_SHARE,
    NO_VARIANCE_SPLIT,
    STAGE_LABELS,
    STAGES,
    StageBudgets,
    needed_center_share,
    stage_budgets,
)
from dpcore.estimators.plan.compose import run_plan
from dpcore.estimators.plan.diagnostics import PlanDiagnostics
from dpcore.estimators.plan.frequencies import Frequencies, binary_frequencies, private_frequencies
from dpcore.estimators.plan.options import CenterStep, PlanOptions, RadiusStep, VarianceMethod
from dpcore.estimators.plan.recentre import (
    Centre,
    coinpress_scaled_center,
    recenter,
    recenter_scaled,
)
from dpcore.estimators.plan.release import PlanCore, Release, plan_core, release
from dpcore.estimators.plan.risk import (
    LOW_VARIANCE_ALERT,
    expected_low_variances,
    thin_budget_risk,
)
from dpcore.estimators.plan.scale import Scale, default_scale_exponent, scale, scale_vector
from dpcore.estimators.plan.spec import PlanSpec
from dpcore.estimators.plan.threshold import (
    Threshold,
    clip_slack,
    radius_universe,
    rank_slack,
    threshold,
)
from dpcore.estimators.plan.variances import (
    VARIANCE_CAP_SHARE,
    binary_variances,
    chi_square_median_factor,
    estimate_variances,
    regularise,
    variance_cap,
    variance_estimate,
    variance_floor_ratio,
)
from dpcore.estimators.plan.variants import (
    plan,
    plan_as_published,
    plan_binary,
    plan_equal_split,
    plan_l2,
    plan_noscale,
    plan_oracle,
)
from dpcore.quantiles.coordinate import (  # PLAN's names for the shared routines
    C2F_BAR,
    C2F_BINS,
    C2F_FIRST_BAR,
    C2F_HISTOGRAM_SHARE,
    C2F_LEVELS,
    QuantileMethod,
    coarse_to_fine_median,
    private_quantile,
)
from dpcore.quantiles.exponential import exponential_quantile_fast

__all__ = [
    "BINARY_SPLIT",
    "C2F_BAR",
    "C2F_BINS",
    "C2F_FIRST_BAR",
    "C2F_HISTOGRAM_SHARE",
    "C2F_LEVELS",
    "DEFAULT_SPLIT",
    "LOW_VARIANCE_ALERT",
    "MAX_AUTO_CENTER_SHARE",
    "NO_VARIANCE_SPLIT",
    "STAGES",
    "STAGE_LABELS",
    "VARIANCE_CAP_SHARE",
    "CenterStep",
    "Centre",
    "Frequencies",
    "PlanCore",
    "PlanDiagnostics",
    "PlanOptions",
    "PlanSpec",
    "QuantileMethod",
    "RadiusStep",
    "Release",
    "Scale",
    "StageBudgets",
    "Threshold",
    "VarianceMethod",
    "binary_frequencies",
    "binary_variances",
    "chi_square_median_factor",
    "clip_slack",
    "coarse_to_fine_median",
    "coinpress_scaled_center",
    "default_scale_exponent",
    "estimate_variances",
    "expected_low_variances",
    "exponential_quantile_fast",
    "needed_center_share",
    "plan",
    "plan_as_published",
    "plan_binary",
    "plan_core",
    "plan_equal_split",
    "plan_l2",
    "plan_noscale",
    "plan_oracle",
    "private_frequencies",
    "private_quantile",
    "radius_universe",
    "rank_slack",
    "recenter",
    "recenter_scaled",
    "regularise",
    "release",
    "run_plan",
    "scale",
    "scale_vector",
    "stage_budgets",
    "thin_budget_risk",
    "threshold",
    "variance_cap",
    "variance_estimate",
    "variance_floor_ratio",
]
