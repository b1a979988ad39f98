"""PLAN's family default ``plan`` and its registered variants: each the same stages with other
options (a :class:`PlanSpec`, ``dataclasses.replace`` of ``plan``).

==================  ===========================================================================
``plan_l2``         private variances (Algorithm 2), ``p = 2`` (the paper's §4a)
``plan_binary``     binary data, ``p = 1``: Gaussian-mechanism frequencies give the centre and
                    ``sigma^2 = q~ (1 - q~)`` floored at ``d^(-2/5)``; bounds default to the unit box
``plan_as_published``  the authors' code: the paper's centre and radius steps, the centre medians
                    on the tripled data ``{x - 0.1, x, x + 0.1}`` (charged ``9 rho_center``, so
                    ``1.5 rho`` in all at the default split; docs/estimators/plan.md §10.10), no
                    variance cap
``plan_oracle``     the true standard deviations (teaching oracle, not a private estimate)
``plan_noscale``    ``sigma^ = 1`` (the paper's Section 6, §5b)
``plan_equal_split``  ``s = sigma^^(-1)`` (Mahalanobis-style teaching contrast)
==================  ===========================================================================

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), §4–§7; docs/estimators/plan.md §4–§5, §10.10.
"""

from __future__ import annotations

import dataclasses

from dpcore.estimate import Cost, DataKind, Default
from dpcore.estimators._options import Family
from dpcore.estimators.plan.risk import thin_budget_risk
from dpcore.estimators.plan.spec import PlanSpec

#: The family default: every option free (``plan(x, rho=..., bounds=..., variances=..., ...)``).
plan = PlanSpec(name="plan", fixed=())
plan_l2 = dataclasses.replace(
    plan, variances="private", p=2.0, name="plan_l2", fixed=("variances", "p")
)
plan_binary = dataclasses.replace(plan_l2, variances="binary", p=1.0, name="plan_binary")
plan_as_published = dataclasses.replace(
    plan_l2,
    center_step="paper",
    radius_step="paper",
    center_spread=0.1,
    variance_cap_share=0.0,
    name="plan_as_published",
)
plan_oracle = dataclasses.replace(
    plan, variances="oracle", name="plan_oracle", fixed=("variances",)
)
plan_noscale = dataclasses.replace(
    plan, variances="none", name="plan_noscale", fixed=("variances",)
)
plan_equal_split = dataclasses.replace(
    plan,
    variances="private",
    scale_exponent=0.5,
    name="plan_equal_split",
    fixed=("variances", "scale_exponent"),
)

_REAL: frozenset[DataKind] = frozenset({"real", "bounded"})

#: What every registered variant shares (zCDP, replace-one; units and relations follow).
PLAN_FAMILY = Family(family="PLAN", data_kinds=_REAL, cost=Cost(per_value_us=0.2, overhead_ms=2.0))

PLAN_FAMILY.register(
    "plan",
    "PLAN",
    600,
    plan_l2,
    color="#0072B2",
    cost=Cost(per_value_us=0.35, overhead_ms=2.0),
    detail="PLAN (ℓ2, private variances)",
    prerun_warning=thin_budget_risk,
    default=Default(rank=10),
    description="Private centre, scale coordinate i by σ̂ᵢ^(-1/2), clip at a private norm quantile, "
    "Gaussian noise.",
)

PLAN_FAMILY.register(
    "plan_as_published",
    "PLAN as published",
    610,
    plan_as_published,
    color="#9ecae1",
    detail="PLAN as published (spends 9× centring budget)",
    spend_factor=1.5,
    description="Reproduction of the authors' code: the centre medians run on the tripled data "
    "{x−0.1, x, x+0.1}, so one person moves three points and the centre really costs 9× "
    "its share (1.5 ρ in total); the ledger shows the true spend. The paper's radius "
    "step.",
)

PLAN_FAMILY.register(
    "plan_l1",
    "PLAN ℓ1 (binary)",
    620,
    plan_binary,
    color="#56B4E9",
    data_kinds=frozenset({"binary"}),
    cost=Cost(per_value_us=0.06, overhead_ms=2.0),
    detail="PLAN (ℓ1, binary data)",
    default=Default(rank=10),
    description="PLAN for 0/1 data and total-variation error: private frequencies, scale by σ̂ᵢ^(-2/3).",
)

PLAN_FAMILY.register(
    "plan_oracle",
    "PLAN, known σ (oracle)",
    630,
    plan_oracle,
    color="#6baed6",
    cost=Cost(per_value_us=0.12, overhead_ms=2.0),
    detail="PLAN with known variances (oracle)",
    uses_oracle=True,
    description="PLAN scaled with the true σ (teaching only: the variances are not estimated "
    "privately).",
)

PLAN_FAMILY.register(
    "plan_noscale",
    "PLAN without scaling",
    640,
    plan_noscale,
    color="#238b45",
    cost=Cost(per_value_us=0.15, overhead_ms=2.0),
    detail="PLAN without scaling",
    prerun_warning=thin_budget_risk,
    description="PLAN with every σ̂ᵢ = 1: private centre and radius, isotropic noise (the paper's "
    "Section 6).",
)

PLAN_FAMILY.register(
    "plan_equal_split",
    "Equal split (σ̂⁻¹)",
    650,
    plan_equal_split,
    color="#a1d99b",
    detail="Equal split (scale by σ̂⁻¹)",
    prerun_warning=thin_budget_risk,
    description="Mahalanobis-style scaling s = 1/σ̂: a teaching contrast that over-corrects the "
    "variance skew.",
)
