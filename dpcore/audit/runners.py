"""How the audit calls an estimator: through its public registry entry, one release per draw.

``entry_runner`` is the only way :mod:`dpcore.audit` runs an estimator (the broken-on-purpose
variants in :mod:`dpcore.audit.broken` wrap it too), so every audited release is the registry's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcore import registry
from dpcore.audit.neighbours import NeighbourPair
from dpcore.privacy import Budget

#: One draw of the audited release on data ``x``: returns the released mean vector.
Runner = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def entry_kwargs(spec: registry.EstimatorSpec, pair: NeighbourPair) -> dict[str, Any]:
    """Public side information the audit passes: the box (``bounds``) and, for the teaching
    oracle, a fixed public ``sigma = 1`` (never read off the data)."""
    named = inspect.signature(spec.func).parameters
    kw: dict[str, Any] = {}
    if "bounds" in named:
        kw["bounds"] = pair.bounds
    if "sigma" in named:
        kw["sigma"] = np.ones(pair.x.shape[1])
    return kw


def entry_runner(name: str, budget: Budget, pair: NeighbourPair, **overrides: Any) -> Runner:
    """A runner calling the public entry ``registry.get(name).run(x, budget, ...)``."""
    spec = registry.get(name)
    kw = {**entry_kwargs(spec, pair), **overrides}

    def run(x: np.ndarray, g: np.random.Generator) -> np.ndarray:
        return np.asarray(spec.run(x, budget, rng=g, **kw).mean, float)

    return run
