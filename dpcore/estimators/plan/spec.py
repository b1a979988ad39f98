"""PLAN's options as one frozen value: :class:`PlanSpec`.

Every registered PLAN variant is a :class:`PlanSpec` (``dataclasses.replace`` of ``plan_l2``):
the same stages with other options. A spec is callable like an estimator function,
``spec(x, rho=..., bounds=..., rng=..., **options)``, and its signature lists the options a caller
may change (the ones in ``fixed`` define the variant and are refused).

References
----------
Aumüller, Lebeda, Nelson, Pagh, PLAN (PETS 2024), Algorithm 1, Listing 1; docs/estimators/plan.md
§2–§5.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from dpcore._validation import (
    check_flag,
    check_fractions,
    check_option,
    check_positive,
    check_probability,
    check_real,
    check_work_param,
)
from dpcore.estimate import Estimate
from dpcore.estimators._options import EstimatorOptions
from dpcore.estimators.plan.compose import run_plan
from dpcore.estimators.plan.core import STAGES, default_scale_exponent
from dpcore.estimators.plan.variances import VARIANCE_CAP_SHARE
from dpcore.quantiles.coordinate import QuantileMethod

VarianceMethod = Literal["private", "oracle", "binary", "none"]
CenterStep = Literal["coarse_to_fine", "coinpress", "paper"]
RadiusStep = Literal["log_grid", "paper"]
#: How the centre is found in a run: CoinPress in scaled space, coarse-to-fine medians, the
#: paper's medians over the whole range, the free private frequencies, or the public box centre.
CentreRun = Literal["coinpress", "coarse_to_fine", "median", "frequencies", "box"]


@dataclass(frozen=True, kw_only=True)
class PlanSpec(EstimatorOptions):
    """The options of one PLAN run (see :func:`dpcore.estimators.plan.plan` for each one).

    ``name`` is the function name the spec shows (``spec.__name__``); ``fixed`` lists the options
    that define the variant: they are left out of the signature and a different value is refused.

    Examples
    --------
    >>> import dataclasses
    >>> from dpcore.estimators.plan import plan_l2
    >>> dataclasses.replace(plan_l2, scale_exponent=0.5).scale_exponent
    0.5
    """

    variances: VarianceMethod = "private"
    p: float = 2.0
    scale_exponent: float | None = None
    budget_split: Mapping[str, float] | None = None
    quantile: QuantileMethod = "exponential"
    steps: int = 20
    beta: float = 0.1
    pairs_per_group: int = 1
    radius_universe_kind: str | float | None = None
    center: str | None = None
    regularise_sigma: bool | None = None
    rank_slack_kind: str | float = "plan"
    center_step: CenterStep = "coinpress"
    radius_step: RadiusStep = "log_grid"
    center_spread: float = 0.0
    coinpress_spread_share: float = 0.1
    variance_cap_share: float = VARIANCE_CAP_SHARE
    name: str = field(default="plan", compare=False)
    fixed: tuple[str, ...] = field(default=("variances",), compare=False)

    call_keywords: ClassVar[tuple[str, ...]] = ("sigma",)

    def signature_keywords(self) -> tuple[str, ...]:
        """``sigma`` (the known standard deviations) is shown for the oracle only."""
        return ("sigma",) if self.variances == "oracle" else ()

    def run(
        self,
        x: Any,
        *,
        rho: float,
        bounds: Any = None,
        rng: Any = None,
        sigma: Any = None,
        **extra: Any,
    ) -> Estimate:
        """PLAN with these options (:func:`~dpcore.estimators.plan.compose.run_plan`)."""
        return run_plan(x, self, rho=rho, bounds=bounds, sigma=sigma, rng=rng)

    def resolved(self) -> PlanSpec:
        """The spec with every choice checked and every ``None`` default filled in.

        ``center``: frequencies for binary data, else the medians; ``regularise_sigma``: for
        private and binary variances; ``scale_exponent``: 0 without variances, else ``1/(p+2)``;
        ``radius_universe_kind``: ``"trimmed"`` for scaled real data, else ``"range"``.
        """
        v = self.variances
        if v not in ("private", "oracle", "binary", "none"):
            raise ValueError(
                f"variances must be 'private', 'oracle', 'binary' or 'none'; got {v!r}."
            )
        if self.quantile not in ("exponential", "binary_search"):
            raise ValueError(
                f"quantile must be 'exponential' or 'binary_search'; got {self.quantile!r}."
            )
        p = check_positive(self.p, "p")
        beta = check_probability(self.beta, "beta")
        center = self.center or ("frequencies" if v == "binary" else "median")
        if center not in ("median", "frequencies", "box"):
            raise ValueError(f"center must be 'median', 'frequencies' or 'box'; got {center!r}.")
        if center == "frequencies" and v != "binary":
            raise ValueError(
                "center='frequencies' reuses the private frequencies of variances='binary'."
            )
        self._check_steps()
        self._check_public_options()
        e = self.scale_exponent
        if e is None:
            e = 0.0 if v == "none" else default_scale_exponent(p)
        e = float(e)
        if not math.isfinite(e) or e < 0:
            raise ValueError(
                f"scale_exponent must be a finite number >= 0 (0 = no scaling); got {self.scale_exponent!r}."
            )
        universe = self.radius_universe_kind
        if universe is None:
            universe = "trimmed" if v in ("private", "oracle") and e > 0 else "range"
        regularise = self.regularise_sigma
        return dataclasses.replace(
            self,
            p=p,
            beta=beta,
            center=center,
            scale_exponent=e,
            radius_universe_kind=universe,
            regularise_sigma=v in ("private", "binary") if regularise is None else regularise,
            center_spread=float(self.center_spread),
            variance_cap_share=check_probability(
                self.variance_cap_share, "variance_cap_share", open_interval=False
            ),
        )

    def _check_public_options(self) -> None:
        """Each public option of the wrong type or out of range refused with its name
        (:mod:`dpcore._validation`), before anything is drawn."""
        check_fractions(self.budget_split, "budget_split", STAGES)
        if self.regularise_sigma is not None:  # None: the default for the variances
            check_flag(self.regularise_sigma, "regularise_sigma")
        check_option(self.rank_slack_kind, "rank_slack_kind", ("plan", "error_only"), low=0.0)
        if self.radius_universe_kind is not None:
            check_option(
                self.radius_universe_kind,
                "radius_universe_kind",
                ("trimmed", "range"),
                low=0.0,
                open_low=True,
            )
        check_work_param(self.pairs_per_group, "pairs_per_group")
        check_work_param(self.steps, "steps")
        check_real(self.coinpress_spread_share, "coinpress_spread_share", low=0.0, high=1.0)
        check_real(self.variance_cap_share, "variance_cap_share", low=0.0, high=1.0)
        if self.scale_exponent is not None:
            check_real(self.scale_exponent, "scale_exponent", low=0.0, hint="0 = no scaling.")

    def _check_steps(self) -> None:
        if self.center_step not in ("coarse_to_fine", "coinpress", "paper"):
            raise ValueError(
                "center_step must be 'coarse_to_fine', 'coinpress' or 'paper'; "
                f"got {self.center_step!r}."
            )
        if self.radius_step not in ("log_grid", "paper"):
            raise ValueError(
                f"radius_step must be 'log_grid' or 'paper'; got {self.radius_step!r}."
            )
        spread = float(self.center_spread)
        if not math.isfinite(spread) or spread < 0:
            raise ValueError(
                f"center_spread must be a finite number >= 0 (0 = honest); got {self.center_spread!r}."
            )

    @property
    def centre_run(self) -> CentreRun:
        """Which centre runs (of a :meth:`resolved` spec).

        CoinPress runs with the private variances and without scaling when the quantiles are
        exponential (``s = 1``); the oracle keeps the coarse-to-fine medians; the as-published
        tripled data (``center_spread > 0``) and ``center_step="paper"`` use the paper's medians.
        """
        if self.center != "median":
            return "frequencies" if self.center == "frequencies" else "box"
        honest = self.center_spread == 0
        exponential = self.quantile == "exponential"
        if (
            self.center_step == "coinpress"
            and honest
            and (self.variances == "private" or (self.variances == "none" and exponential))
        ):
            return "coinpress"
        if self.center_step in ("coarse_to_fine", "coinpress") and exponential and honest:
            return "coarse_to_fine"
        return "median"

    @property
    def log_grid_radius(self) -> bool:
        """Whether the clip radius is the log-grid exponential mechanism."""
        return self.radius_step == "log_grid" and self.quantile == "exponential"
