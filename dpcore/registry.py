"""The one registry of estimators, and the ``Estimate`` every estimator returns.

Each estimator lives in one module of :mod:`dpcore.estimators` and registers itself there with
:func:`register`; the registry discovers every module of that package on first use, so adding an
estimator is one module plus one ``register(...)`` entry. The app and the experiment runner iterate
over :func:`all_estimators` / :func:`applicable`, in each entry's ``order``. An entry's ``label`` is
its short display name; its ``detail`` is the full one, for hover text and the glossary.

An estimator function has the signature ``func(x, *, <epsilon|rho>, rng, **params) -> Estimate``.
It may also accept ``bounds=`` (public range), ``sigma=`` (known per-coordinate standard deviations,
the teaching oracle) and ``true_mean=``; :meth:`EstimatorSpec.run` passes those from a
:class:`dpcore.data.dataset.Dataset` only to functions that declare them.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from dpcore._validation import RngLike
from dpcore.estimate import (
    _REGISTRY,
    PEERS,
    DataKind,
    Diagnostics,
    Estimate,
    EstimatorSpec,
    Neighbouring,
    register,
)
from dpcore.privacy import Budget

#: Colours for the three error sources, used by every chart.
ERROR_SOURCE_COLORS = {"sampling": "#7f7f7f", "clipping": "#e377c2", "noise": "#17becf"}


_DISCOVERED = False


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    import dpcore.estimators as pkg

    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        importlib.import_module(f"{pkg.__name__}.{mod.name}")
    _DISCOVERED = True


def all_estimators() -> list[EstimatorSpec]:
    """Every registered estimator, in the order its ``order`` gives (never the import order):
    the order of every selector, legend and table."""
    _discover()
    return sorted(_REGISTRY.values(), key=lambda s: (s.order is None, s.order or 0))


def get(name: str) -> EstimatorSpec:
    """The estimator called ``name``."""
    _discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown estimator {name!r}; choose one of: {known}.") from None


def applicable(kind: str, d: int | None = None, *, peers: bool = False) -> list[EstimatorSpec]:
    """Estimators that apply to data of ``kind`` (and dimension ``d``, when given).

    The other libraries' means (``family="peers"``) are an opt-in group: listed only with
    ``peers=True`` (and only when those libraries are installed).
    """
    out = []
    for spec in all_estimators():
        if spec.family == PEERS and not peers:
            continue
        if kind not in spec.data_kinds:
            continue
        if d is not None and spec.needs_dimension == "scalar" and d != 1:
            continue
        out.append(spec)
    return out


def defaults(kind: str, unit: str = "rho", d: int | None = None) -> list[EstimatorSpec]:
    """The estimators the pages select by default for data of ``kind`` under a budget in ``unit``
    (each spec's ``default``), in their ``default.rank`` order."""
    specs = [s for s in applicable(kind, d) if s.is_default(kind, unit)]
    return sorted(specs, key=lambda s: s.default.rank if s.default else 0)


def run(name: str, data: Any, budget: Budget, *, rng: RngLike = None, **overrides: Any) -> Estimate:
    """Shorthand for ``get(name).run(data, budget, rng=rng, **overrides)``."""
    return get(name).run(data, budget, rng=rng, **overrides)


__all__ = [
    "ERROR_SOURCE_COLORS",
    "PEERS",
    "DataKind",
    "Diagnostics",
    "Estimate",
    "EstimatorSpec",
    "Neighbouring",
    "all_estimators",
    "applicable",
    "defaults",
    "get",
    "register",
    "run",
]
