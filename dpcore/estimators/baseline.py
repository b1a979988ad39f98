"""The non-private empirical mean: the sampling-error floor every private estimator is measured against."""

from __future__ import annotations

import numpy as np

from dpcore._validation import RngLike, check_data
from dpcore.estimate import (
    ANY_UNIT,
    NO_RELATION,
    Cost,
    Default,
    Diagnostics,
    Estimate,
    EstimatorSpec,
    register,
)
from dpcore.privacy import Ledger


def empirical_mean(x: np.ndarray, *, rng: RngLike = None) -> Estimate:
    """The plain sample mean (not private; spends nothing).

    Its error is the sampling error alone, the floor no private estimator can beat on average.

    References
    ----------
    docs/estimators/plan.md §5d ("Empirical mean (non-private sampling floor)").
    """
    arr = check_data(x)
    m = np.atleast_1d(arr.mean(axis=0))
    return Estimate(
        mean=m,
        ledger=Ledger("none"),
        diagnostics=Diagnostics(noiseless_mean=m.copy(), noise_std=np.zeros_like(m)),
    )


register(
    EstimatorSpec(
        name="empirical",
        cost=Cost(per_value_us=0.01, overhead_ms=2.0),
        label="Empirical (not private)",
        detail="Empirical mean (not private)",
        order=100,
        color="#000000",
        notion="none",
        data_kinds=frozenset({"real", "bounded", "binary"}),
        neighbouring="none",
        units=ANY_UNIT,
        relations=NO_RELATION,
        func=empirical_mean,
        family="reference",
        default=Default(rank=0),
        description="The sample mean: no privacy; its error is the sampling floor.",
    )
)
