"""How the audit calls an estimator: through its public entry, one release per draw.

:func:`entry_runner` runs a registered entry (or an unregistered broken-on-purpose spec from
:mod:`dpcore.audit.broken`) exactly as ``registry.run`` does, with the pair's public box and any
public overrides; :func:`private_bounds_runner` runs the two-stage release of the Your data page
(:func:`dpcore.estimators.private_bounds.run_with_private_bounds`). Every audited release is the one
a user of those entry points gets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpcore import registry
from dpcore.audit.neighbours import NeighbourPair
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget

#: One draw of the audited release on data ``x``: returns the released mean vector.
Runner = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def resolve(name: str | EstimatorSpec) -> EstimatorSpec:
    """The spec for ``name``: a registry entry or a spec (broken-on-purpose names:
    :func:`dpcore.audit.broken.resolve`)."""
    if isinstance(name, EstimatorSpec):
        return name
    return registry.get(name)


def entry_kwargs(spec: EstimatorSpec, pair: NeighbourPair) -> dict[str, Any]:
    """Public side information the audit passes: the box (``bounds``) and, for the teaching
    oracle, a fixed public ``sigma = 1`` (never read off the data)."""
    kw: dict[str, Any] = {}
    if spec.accepts("bounds"):
        kw["bounds"] = pair.bounds
    if spec.accepts("sigma"):
        kw["sigma"] = np.ones(pair.x.shape[1])
    return kw


def entry_runner(
    name: str | EstimatorSpec, budget: Budget, pair: NeighbourPair, **overrides: Any
) -> Runner:
    """A runner calling the public entry ``spec.run(x, budget, rng=g, bounds=..., **overrides)``."""
    spec = resolve(name)
    kw = {**entry_kwargs(spec, pair), **overrides}

    def run(x: np.ndarray, g: np.random.Generator) -> np.ndarray:
        return np.asarray(spec.run(x, budget, rng=g, **kw).mean, float)

    return run


#: The bounds' share of the budget on the private-bounds path (the Your data page's default).
BOUNDS_SHARE = 0.2


def private_bounds_runner(
    name: str | EstimatorSpec, budget: Budget, pair: NeighbourPair, *, share: float = BOUNDS_SHARE
) -> Runner:
    """A runner for ``run_with_private_bounds(spec, data, budget, share=, coarse_bounds=box)``.

    The coarse public range is the pair's box; the estimator then runs inside the private range
    the bounds stage found, and the release is its mean (the bounds are released too, and the
    guarantee covers both; the audit looks at the mean).
    """
    from dpcore.data.dataset import Dataset
    from dpcore.estimators.private_bounds import run_with_private_bounds

    spec = resolve(name)
    d = pair.x.shape[1]
    lo, hi = np.full(d, pair.bounds[0]), np.full(d, pair.bounds[1])

    def run(x: np.ndarray, g: np.random.Generator) -> np.ndarray:
        data = Dataset(
            x=x, true_mean=np.zeros(d), true_std=np.ones(d), kind="bounded", bounds=(lo, hi)
        )
        est = run_with_private_bounds(
            spec, data, budget, share=share, coarse_bounds=(lo, hi), rng=g
        )
        return np.asarray(est.mean, float)

    return run
