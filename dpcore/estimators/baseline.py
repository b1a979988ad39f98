"""The non-private empirical mean: the sampling-error floor every private estimator is measured against."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dpcore._validation import RngLike, check_data
from dpcore.estimate import Cost, Default, Diagnostics, Estimate
from dpcore.estimators._options import EstimatorOptions, Family
from dpcore.privacy import Ledger


@dataclass(frozen=True, kw_only=True)
class EmpiricalOptions(EstimatorOptions):
    """The plain sample mean (not private; spends nothing), called as ``empirical_mean(x)``.

    Its error is the sampling error alone, the floor no private estimator can beat on average.
    It has no options; it takes no budget and no bounds.

    References
    ----------
    docs/estimators/plan.md §5d ("Empirical mean (non-private sampling floor)").
    """

    name: str = field(default="empirical_mean", compare=False)

    notion: ClassVar[str] = "none"
    takes_bounds: ClassVar[bool] = False

    def run(self, x: Any, *, rng: RngLike) -> Estimate:
        """The sample mean of ``x``."""
        arr = check_data(x)
        m = np.atleast_1d(arr.mean(axis=0))
        return Estimate(
            mean=m,
            ledger=Ledger("none"),
            diagnostics=Diagnostics(noiseless_mean=m.copy(), noise_std=np.zeros_like(m)),
        )


empirical_mean = EmpiricalOptions()

#: The non-private reference.
REFERENCE = Family(
    family="reference",
    data_kinds=frozenset({"real", "bounded", "binary"}),
    notion="none",
    neighbouring="none",
    cost=Cost(per_value_us=0.01, overhead_ms=2.0),
)

REFERENCE.register(
    "empirical",
    "Empirical (not private)",
    100,
    empirical_mean,
    color="#000000",
    detail="Empirical mean (not private)",
    default=Default(rank=0),
    description="The sample mean: no privacy; its error is the sampling floor.",
)
