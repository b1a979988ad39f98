"""What PLAN's stages read of their options: the protocol :class:`PlanOptions`.

:class:`~dpcore.estimators.plan.spec.PlanSpec` satisfies it (mypy checks this where the spec calls
:func:`~dpcore.estimators.plan.compose.run_plan`). The runner and the stages are typed against the
protocol, so none of them imports the spec: the spec calls the runner, never the other way round.

References
----------
docs/estimators/plan.md §2–§5; docs/architecture.md (the PLAN and IOME packages).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol

from dpcore.quantiles.coordinate import QuantileMethod

VarianceMethod = Literal["private", "oracle", "binary", "none"]
CenterStep = Literal["coarse_to_fine", "coinpress", "paper"]
RadiusStep = Literal["log_grid", "paper"]
#: How the centre is found in a run: CoinPress in scaled space, coarse-to-fine medians, the
#: paper's medians over the whole range, the free private frequencies, or the public box centre.
CentreRun = Literal["coinpress", "coarse_to_fine", "median", "frequencies", "box"]


class PlanOptions(Protocol):
    """The options of one PLAN run as the stages read them (read-only; see ``PlanSpec``)."""

    @property
    def variances(self) -> VarianceMethod: ...
    @property
    def p(self) -> float: ...
    @property
    def scale_exponent(self) -> float | None: ...
    @property
    def budget_split(self) -> Mapping[str, float] | None: ...
    @property
    def quantile(self) -> QuantileMethod: ...
    @property
    def steps(self) -> int: ...
    @property
    def beta(self) -> float: ...
    @property
    def pairs_per_group(self) -> int: ...
    @property
    def radius_universe_kind(self) -> str | float | None: ...
    @property
    def center(self) -> str | None: ...
    @property
    def regularise_sigma(self) -> bool | None: ...
    @property
    def rank_slack_kind(self) -> str | float: ...
    @property
    def center_spread(self) -> float: ...
    @property
    def coinpress_spread_share(self) -> float: ...
    @property
    def variance_cap_share(self) -> float: ...
    @property
    def centre_run(self) -> CentreRun: ...
    @property
    def log_grid_radius(self) -> bool: ...

    def resolved(self) -> PlanOptions:
        """The options with every choice checked and every ``None`` default filled in."""
        ...
