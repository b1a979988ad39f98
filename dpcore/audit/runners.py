"""How the audit calls an estimator: through its public entry, one release per draw.

:func:`entry_runner` runs a registered entry (or an unregistered broken-on-purpose spec from
:mod:`dpcore.audit.broken`) exactly as ``registry.run`` does, with the pair's public box and any
public overrides; :func:`private_bounds_runner` runs the two-stage release of the Your data page
(:func:`dpcore.estimators.private_bounds.run_with_private_bounds`). Every audited release is the one
a user of those entry points gets.

Many draws on fixed data (:func:`releases`): an entry of :data:`ONE_DRAW` releases the output of
its single Laplace or Gaussian mechanism call as it is, so its ``draws`` releases on one data set
are the first release through the public entry plus one batched draw of the same noise from the
same generator. That is the loop's output draw for draw (NumPy fills a batch in the order the
loop draws it; ``tests/audit/test_batched_releases.py``), checked again on the first release of
every batch; anything else runs the loop.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from dpcore import mechanisms, registry
from dpcore.audit.neighbours import NeighbourPair
from dpcore.estimate import EstimatorSpec
from dpcore.privacy import Budget

#: One draw of the audited release on data ``x``: returns the released mean vector.
Runner = Callable[[np.ndarray, np.random.Generator], np.ndarray]

#: Entries whose release is their one mechanism call's noisy value, with no post-processing
#: (``dpcore/estimators/winsorized_baselines.py``): :func:`releases` batches their draws.
ONE_DRAW = frozenset({"clipped_laplace", "clipped_box_zcdp"})


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

    if spec.name in ONE_DRAW and registry.get(spec.name) is spec:
        run.one_draw = True  # type: ignore[attr-defined]
    return run


def releases(runner: Runner, x: np.ndarray, draws: int, g: np.random.Generator) -> np.ndarray:
    """``draws`` releases of ``runner`` on ``x``, shape ``(draws, d)``: one public call each, or
    for an entry of :data:`ONE_DRAW` the first through the entry and the rest as one batch of
    the same mechanism's noise (the same numbers the loop gives, from the same generator)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not getattr(runner, "one_draw", False) or draws < 2:
            return np.stack([np.ravel(runner(x, g)) for _ in range(draws)])
        before = copy.deepcopy(g.bit_generator.state)
        with mechanisms.recording_inputs() as drawn:
            first = np.ravel(runner(x, g))
        batch = _noise_batch(drawn, first, before, g, draws - 1)
        if batch is None:  # not the one plain draw the batch assumes: the loop
            batch = np.stack([np.ravel(runner(x, g)) for _ in range(draws - 1)])
        return np.vstack([first[None, :], batch])


def _noise_batch(
    drawn: list[mechanisms.StageInput],
    first: np.ndarray,
    before: Mapping[str, Any],
    g: np.random.Generator,
    reps: int,
) -> np.ndarray | None:
    """``reps`` more releases of the single draw recorded in ``drawn`` from ``g``, or ``None``
    unless replaying that draw from the state ``before`` gives ``first`` and leaves ``g``'s
    state where the entry left it (then nothing else was drawn and nothing was done after)."""
    if len(drawn) != 1 or drawn[0].kind not in ("laplace", "gaussian"):
        return None
    kind, value, scale = drawn[0].kind, drawn[0].value, drawn[0].scale
    if value is None:
        return None

    def draw(gen: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        if kind == "laplace":
            return value + scale * gen.laplace(0.0, 1.0, size=shape)
        return value + scale * gen.standard_normal(shape)

    check = np.random.Generator(type(g.bit_generator)())
    check.bit_generator.state = before
    again = np.ravel(draw(check, value.shape))
    if check.bit_generator.state != g.bit_generator.state or not np.array_equal(again, first):
        return None
    return draw(g, (reps, *value.shape)).reshape(reps, -1)


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
