"""Broken-on-purpose estimators the audit must catch, as unregistered specs.

Each claims pure ``ε``-DP under replace-one on the public box, like ``clipped_laplace``, and breaks
it in one way:

* ``"broken_no_clamp"``: forgets to clamp the rows to the box (``ε = ∞``);
* ``"broken_full_eps_per_coordinate"``: gives every coordinate the whole ``ε`` (``dε`` in all);
* ``"broken_exact_mean_large_n"``: releases the exact mean once ``n >= 20`` (``ε = ∞``).

:data:`BROKEN_SPECS` holds them by name; :func:`dpcore.audit.audit` resolves those names, the
public registry never sees them.

References
----------
specs/winsorized.md §4 (the clipped mean these break).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpcore import mechanisms
from dpcore._validation import RngLike, check_positive
from dpcore.estimate import PURE_UNITS, Diagnostics, Estimate, EstimatorSpec
from dpcore.privacy import Ledger


def _box_mean(x: np.ndarray, bounds: tuple, clamp: bool) -> tuple[np.ndarray, float, float]:
    X = np.asarray(x, float).reshape(len(x), -1)
    lo, hi = float(np.min(bounds[0])), float(np.max(bounds[1]))
    return (np.clip(X, lo, hi) if clamp else X).mean(axis=0), lo, hi


def _laplace_mean(
    x: np.ndarray, epsilon: float, bounds: tuple, rng: RngLike, *, clamp: bool, per_coord: bool
) -> Estimate:
    eps = check_positive(epsilon, "epsilon")
    m, lo, hi = _box_mean(x, bounds, clamp)
    n, d = len(x), m.size
    sens = np.full(d, (hi - lo) / n)
    ledger = Ledger("pure")
    with mechanisms.stage(ledger, "clipped mean: Laplace noise"):
        scale = sens if per_coord else sens * d
        rel = mechanisms.laplace(
            m, sens, eps, rng=mechanisms.generator(rng), scale=scale / eps, columns=d
        )
    return Estimate(np.asarray(rel.value, float), ledger, Diagnostics(noiseless_mean=m))


def no_clamp_mean(x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None) -> Estimate:
    """The clipped Laplace mean without the clipping (broken: ``ε = ∞``)."""
    return _laplace_mean(x, epsilon, bounds, rng, clamp=False, per_coord=False)


def full_eps_per_coordinate_mean(
    x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None
) -> Estimate:
    """The clipped Laplace mean with the whole ``ε`` on every coordinate (broken: ``dε``)."""
    return _laplace_mean(x, epsilon, bounds, rng, clamp=True, per_coord=True)


def exact_mean_large_n(
    x: np.ndarray, *, epsilon: float, bounds: tuple, rng: RngLike = None
) -> Estimate:
    """The clipped Laplace mean, but the exact clipped mean once ``n >= 20`` (broken: ``ε = ∞``)."""
    if len(x) >= 20:
        m, _, _ = _box_mean(x, bounds, True)
        return Estimate(m, Ledger("pure"), Diagnostics(noiseless_mean=m))
    return _laplace_mean(x, epsilon, bounds, rng, clamp=True, per_coord=False)


def _spec(name: str, label: str, func: Callable[..., Estimate]) -> EstimatorSpec:
    return EstimatorSpec(
        name=name,
        label=label,
        color="#000000",
        notion="pure",
        data_kinds=frozenset({"real", "bounded"}),
        neighbouring="replace-one",
        units=PURE_UNITS,
        relations=frozenset({"replace-one"}),
        func=func,
        family="broken on purpose",
        description=label,
    )


#: The broken estimators, by name (never registered in :mod:`dpcore.registry`).
BROKEN_SPECS: dict[str, EstimatorSpec] = {
    s.name: s
    for s in (
        _spec("broken_no_clamp", "Laplace mean that forgets to clamp", no_clamp_mean),
        _spec(
            "broken_full_eps_per_coordinate",
            "Laplace mean with the whole ε on every coordinate",
            full_eps_per_coordinate_mean,
        ),
        _spec(
            "broken_exact_mean_large_n",
            "Laplace mean that releases the exact mean once n ≥ 20",
            exact_mean_large_n,
        ),
    )
}
