"""Studies of the Your data page: one run with public or private bounds, and repeated runs with
their errors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpcore._validation import RngLike
from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.estimators.private_bounds import run_with_private_bounds
from dpcore.experiments.summaries import guarantee_label
from dpcore.privacy import Budget


def run_estimator(
    spec: EstimatorSpec,
    data: Dataset,
    budget: Budget,
    *,
    private_share: float | None = None,
    coarse_bounds: tuple | None = None,
    quantiles: tuple[float, float] = (0.01, 0.99),
    rng: RngLike = None,
) -> Estimate:
    """Run ``spec`` with the data's bounds as public (``private_share=None``) or after a private
    bounds step spending ``private_share`` of the budget
    (:func:`dpcore.estimators.private_bounds.run_with_private_bounds`)."""
    if private_share is None:
        return spec.run(data, budget, rng=rng)
    return run_with_private_bounds(
        spec,
        data,
        budget,
        share=private_share,
        coarse_bounds=coarse_bounds,
        quantiles=quantiles,
        rng=rng,
    )


def repeated_frame(
    specs: Sequence[EstimatorSpec],
    data: Dataset,
    budget: Budget,
    reps: int,
    seed: int,
    *,
    private_share: float | None = None,
    coarse_bounds: tuple | None = None,
    quantiles: tuple[float, float] = (0.01, 0.99),
) -> pd.DataFrame:
    """``reps`` runs of each estimator on the same data with independent noise (child seeds spawned
    from ``seed``); one row per run with its l2 error against the non-private mean."""
    children = np.random.SeedSequence(seed).spawn(reps)
    rows = []
    for spec in specs:
        for r, child in enumerate(children):
            est = run_estimator(
                spec,
                data,
                budget,
                private_share=private_share,
                coarse_bounds=coarse_bounds,
                quantiles=quantiles,
                rng=np.random.default_rng(child),
            )
            err = np.asarray(est.mean, dtype=float) - data.true_mean
            rows.append(
                {
                    "estimator": spec.label,
                    "name": spec.name,
                    "color": spec.color,
                    "run": r,
                    "guarantee": guarantee_label(spec.notion, spec.neighbouring, spec.spend_factor),
                    "l2_error": float(np.linalg.norm(err)),
                }
            )
    return pd.DataFrame(rows)
