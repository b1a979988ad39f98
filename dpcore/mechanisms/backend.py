"""The two noise backends a mechanism draws from, and the checks of its arguments.

A seeded NumPy ``Generator`` (simulations, sweeps, tests) or the release backend of
:mod:`dpcore.release` (no seed, the operating system's CSPRNG, floating-point-safe samplers),
chosen by the ``rng`` the estimator passes on.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore._validation import RngLike, as_generator


def _columns(columns: int) -> int:
    if isinstance(columns, bool) or not isinstance(columns, int | np.integer) or columns < 1:
        raise ValueError(f"columns must be a positive integer; got {columns!r}.")
    return int(columns)


def _finite_value(value: Any) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if not (math.isfinite(float(arr)) if arr.ndim == 0 else np.isfinite(arr).all()):
        raise ValueError(
            "value contains NaN or infinity; the mechanism needs a finite query answer."
        )
    return arr


def _positive_array(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:  # one number: the same test without array reductions
        v = float(arr)
        bad = not (math.isfinite(v) and v > 0)
    else:
        bad = bool(arr.size == 0 or not np.isfinite(arr).all() or (arr <= 0).any())
    if bad:
        raise ValueError(f"{name} must be positive and finite; got {x!r}.")
    return arr


def _release_backend(rng: Any) -> Any | None:
    """The release backend behind ``rng`` (:mod:`dpcore.release`), or ``None`` for NumPy.

    A release backend is any object with ``is_release_backend = True`` and the methods
    ``add_noise(kind, value, scale, sensitivity) -> noisy`` (kind ``"laplace"`` or ``"gaussian"``;
    floating-point safe, at least the noise ``scale`` asks for), ``noisy_max(scores) -> index per row``
    (the exponential mechanism on log-weights, last axis) and
    ``add_walk_noise(noise, values, budget) -> noisy`` (AboveThreshold: ``Exp(1)/budget`` or
    ``N(0, 1)/√budget``), plus the non-noise draws estimators make (``random``, ``integers``, ...).
    """
    return rng if getattr(rng, "is_release_backend", False) else None


def is_release(rng: Any) -> bool:
    """Whether ``rng`` is a release backend (a release must publish values on public grids)."""
    return _release_backend(rng) is not None


def released(rng: Any, value: Any) -> Any:
    """``value``, what a stage releases after its mechanism's draws (a quantile's grid point).

    A release backend with a ``replay_release`` method may put another run's release in its place
    (the sensitivity probe of :mod:`dpcore.audit.probe` runs a neighbour with the same earlier
    releases); every other ``rng`` returns ``value`` as it is.
    """
    hook = getattr(_release_backend(rng), "replay_release", None)
    return value if hook is None else hook(value)


def generator(rng: RngLike | Any) -> Any:
    """``rng`` as a NumPy generator, or the release backend as it is (estimators call this, not
    ``numpy.random.default_rng``, so that a release never creates a NumPy generator)."""
    return rng if _release_backend(rng) is not None else as_generator(rng)
