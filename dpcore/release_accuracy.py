"""The accuracy of a private release, from public parameters only: :func:`accuracy`.

One-stage Laplace or Gaussian releases get the exact 95% half-width of their noise
(:func:`exact_accuracy`); every other estimator is simulated on synthetic rows spread evenly over
the public bounds (:func:`simulate_accuracy`). Both also give the noise's variance per column, which
:mod:`dpcore.remeasure` uses to combine releases by inverse variance. No data value enters: only
n, d, the bounds, the budget and the estimator's public parameters.

References
----------
docs/release.md (the accuracy statement).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from dpcore import registry
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.privacy import Budget
from dpcore.samplers import ProbeBackend, SafeBackend, SimulationBackend, random_unit

#: Probability level of the accuracy statement.
LEVEL = 0.95
#: Quantile factors of |noise| at :data:`LEVEL`: Laplace ``b ln 20``, Gaussian ``1.96 σ``.
FACTOR = {"laplace": math.log(1.0 / (1.0 - LEVEL)), "gaussian": 1.959963984540054}
#: Simulated runs for the accuracy of a multi-stage estimator (at most; see :func:`sim_runs`).
SIM_RUNS = 20
#: Errors (runs × columns) the simulation aims for; the run count depends on d only (no clock).
SIM_SAMPLES = 100
#: Simulated accuracies kept per public parameters (name, n, d, bounds, budget, keywords).
SIM_CACHE = 32
#: Rows of the synthetic data on which the exact accuracy's reading is checked.
PROBE_ROWS = 64

_SIM_RESULTS: dict[Any, tuple[np.ndarray, np.ndarray, int]] = {}


def takes_bounds(spec: EstimatorSpec) -> bool:
    """Whether ``spec`` takes public ``bounds`` (the 0/1 estimators do not)."""
    return "bounds" in spec.public_keywords()


def accuracy(
    spec: EstimatorSpec,
    est: Estimate,
    backend: SafeBackend,
    shape: tuple[int, int],
    bounds_info: dict[str, Any],
    budget: Budget,
    public: dict[str, Any],
    *,
    exact: bool = True,
) -> tuple[np.ndarray, np.ndarray, str]:
    """Per-coordinate 95% half-width of the noise, its variance, and how they were computed
    (public inputs only).

    One-stage Laplace or Gaussian (:func:`exact_accuracy`): exact, ``b ln 20`` or ``1.96 σ`` of
    the noise on each released coordinate, at the scale the backend used. Otherwise: simulated,
    the 95% quantile of ``|estimate - mean|`` over runs of the estimator on synthetic data spread
    evenly over the bounds, with the same n, d, budget and public parameters, pooled over
    coordinates relative to each column's width (:func:`simulate_accuracy`, cached per public
    parameters); the variance is the noise's (exact) or the mean squared error's (simulated).
    ``shape`` holds a public n (declared, or a charged noisy count); ``exact=False`` skips the
    exact path, whose noise scale the estimator computed from the true n.
    """
    lo = np.asarray(bounds_info["lower"], dtype=float)
    hi = np.asarray(bounds_info["upper"], dtype=float)
    noisy = [dr for dr in backend.draws if dr.kind in ("laplace", "gaussian")]
    typed = bounds_info["source"] == "typed public bounds"
    one_stage = (  # one draw, or one draw per column (per-column bounds), all of one kind
        len(noisy) == len(backend.draws) >= 1
        and len({dr.kind for dr in noisy}) == 1
        and (len(noisy) == 1 or (len(noisy) == shape[1] and all(dr.variates == 1 for dr in noisy)))
    )
    if exact and one_stage and typed:
        half = exact_accuracy(spec, est, noisy, shape, lo, hi, budget, public)
        if half is not None:
            std = half / FACTOR[noisy[0].kind]
            if noisy[0].kind == "laplace":  # the half-width is b ln 20 and the variance 2 b^2
                std = std * math.sqrt(2.0)
            return (
                half,
                std**2,
                (
                    f"exact: one {noisy[0].kind} stage, {LEVEL:.0%} quantile of |noise| at the "
                    "scale used"
                ),
            )
    acc, mse, runs = _cached_simulation(spec.name, shape, lo, hi, budget, public)
    return (
        acc,
        mse,
        (
            f"simulated: {LEVEL:.0%} quantile of |error| over {runs} runs on synthetic data spread "
            "evenly over the bounds (public parameters only: n as declared public, or the noisy "
            "count; d, the budget)"
        ),
    )


def exact_accuracy(
    spec: EstimatorSpec,
    est: Estimate,
    draws: list[Any],
    shape: tuple[int, int],
    lo: np.ndarray,
    hi: np.ndarray,
    budget: Budget,
    public: dict[str, Any],
) -> np.ndarray | None:
    """The 95% half-width of a one-stage release's noise per coordinate, or ``None``.

    The estimator's ``diagnostics.noise_std`` (the standard deviation of the noise on each
    released coordinate, a function of n, d, the bounds and the budget) gives the scale asked:
    ``std/√2`` (Laplace) or ``std`` (Gaussian); it is widened by the largest ratio of the scale the
    backend used to the scale asked (OpenDP's grid, at most about 1e-6) and multiplied by
    :data:`FACTOR`. The reading is checked on :data:`PROBE_ROWS` synthetic rows first
    (:func:`_probe`: the estimate must move linearly with the noise, by that scale); ``None``
    when the check fails or the estimator reports no ``noise_std``.
    """
    kind = draws[0].kind
    std = getattr(est.diagnostics, "noise_std", None)
    if std is None:
        return None
    to_scale = 1.0 / math.sqrt(2.0) if kind == "laplace" else 1.0
    small = (min(shape[0], PROBE_ROWS), shape[1])
    probe = _probe(spec, small, lo, hi, budget, public)
    if probe is None:
        return None
    moved, probe_std = probe
    if probe_std is None or not np.allclose(moved, probe_std * to_scale, rtol=1e-5, atol=0.0):
        return None
    widening = max(dr.scale_used / dr.scale_asked for dr in draws)
    half = FACTOR[kind] * to_scale * widening * np.asarray(std, dtype=float).reshape(-1)
    return np.broadcast_to(half, (shape[1],)).copy()


def _probe(
    spec: EstimatorSpec,
    shape: tuple[int, int],
    lo: np.ndarray,
    hi: np.ndarray,
    budget: Budget,
    public: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray | None] | None:
    """On synthetic rows at the bounds' midpoint with the noise set to ``0`` and ``±1`` scale
    (:class:`ProbeBackend`): how far one scale of noise moves each coordinate (``None`` unless
    linear and positive), and the ``noise_std`` the estimator reports there."""
    z = np.broadcast_to(0.5 * (lo + hi), shape).copy()
    means, std = [], None
    for c in (0.0, 1.0, -1.0):
        est = registry.run(
            spec.name, z, budget, rng=cast(Any, ProbeBackend(c)), bounds=(lo, hi), **public
        )
        means.append(np.asarray(est.mean, dtype=float).reshape(-1))
        if c == 0.0 and getattr(est.diagnostics, "noise_std", None) is not None:
            std = np.asarray(est.diagnostics.noise_std, dtype=float).reshape(-1)
    up, down = means[1] - means[0], means[0] - means[2]
    if not np.allclose(up, down, rtol=1e-6, atol=0.0) or not np.all(up > 0):
        return None
    return up, std


def _cached_simulation(
    name: str,
    shape: tuple[int, int],
    lo: np.ndarray,
    hi: np.ndarray,
    budget: Budget,
    public: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`simulate_accuracy`, kept per public parameters (:data:`SIM_CACHE` entries)."""
    try:
        key = (name, shape, lo.tobytes(), hi.tobytes(), repr(budget), repr(sorted(public.items())))
        hash(key)
    except TypeError:  # an unhashable public value: no cache
        return simulate_accuracy(name, shape, lo, hi, budget, public)
    if key not in _SIM_RESULTS:
        if len(_SIM_RESULTS) >= SIM_CACHE:
            _SIM_RESULTS.pop(next(iter(_SIM_RESULTS)))
        _SIM_RESULTS[key] = simulate_accuracy(name, shape, lo, hi, budget, public)
    acc, mse, runs = _SIM_RESULTS[key]
    return acc.copy(), mse.copy(), runs


def synthetic_rows(
    n: int, d: int, lower: Any, upper: Any, *, offset: float = 0.0, binary: bool = False
) -> np.ndarray:
    """``n`` rows spread evenly over ``[lower, upper]``: column ``c`` holds the points
    ``(j + 1/2)/n`` shifted by ``offset + c·φ`` (mod 1), φ the golden ratio's fraction, so the
    columns are not copies of each other; ``binary``: the same points thresholded at 1/2.

    >>> synthetic_rows(4, 1, 0.0, 1.0)[:, 0].tolist()
    [0.125, 0.375, 0.625, 0.875]
    """
    phi = (math.sqrt(5.0) - 1.0) / 2.0
    u = np.add.outer((np.arange(n) + 0.5) / n, (offset + phi * np.arange(d)) % 1.0)
    np.subtract(u, 1.0, out=u, where=u >= 1.0)  # mod 1 (both terms are in [0, 1))
    if binary:
        return (u >= 0.5).astype(float)
    lo, hi = np.broadcast_to(lower, (d,)), np.broadcast_to(upper, (d,))
    u *= hi - lo
    u += lo
    return u


def sim_runs(d: int) -> int:
    """Runs of the accuracy simulation for ``d`` columns: enough for :data:`SIM_SAMPLES` pooled
    errors, at most :data:`SIM_RUNS`, at least 1.

    >>> sim_runs(1), sim_runs(10), sim_runs(500)
    (20, 10, 1)
    """
    return max(1, min(SIM_RUNS, math.ceil(SIM_SAMPLES / d)))


def simulate_accuracy(
    name: str,
    shape: tuple[int, int],
    lower: np.ndarray,
    upper: np.ndarray,
    budget: Budget,
    public: dict[str, Any],
    *,
    runs: int | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """95% quantile and mean square of ``estimate - mean`` per column, by simulation on synthetic
    data.

    Each run makes synthetic rows spread evenly over ``[lower, upper]`` (:func:`synthetic_rows`,
    public values only) and runs ``name`` with :class:`SimulationBackend`, ``runs`` times
    (default :func:`sim_runs`: a count fixed by d, never by the time a run takes). Errors are
    pooled over columns relative to each column's width, so ``d`` columns give ``d`` samples per
    run. Returns ``(half-widths, mean squared errors, runs done)``.
    """
    n, d = shape
    width = np.broadcast_to(upper - lower, (d,))
    kw = dict(public)
    binary = not takes_bounds(registry.get(name))
    if not binary:
        kw["bounds"] = (lower, upper)
    rel: list[np.ndarray] = []
    for _ in range(sim_runs(d) if runs is None else runs):
        z = synthetic_rows(n, d, lower, upper, offset=float(random_unit(1)[0]), binary=binary)
        est = registry.run(name, z, budget, rng=cast(Any, SimulationBackend()), **kw)
        err = np.asarray(est.mean, dtype=float).reshape(-1) - z.mean(axis=0)
        rel.append(np.abs(err) / width)
    pooled = np.concatenate(rel)
    mse = float(np.mean(pooled**2)) * width**2
    return float(np.quantile(pooled, LEVEL)) * width, mse, len(rel)
