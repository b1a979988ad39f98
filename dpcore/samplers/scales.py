"""OpenDP's measurements and the smallest scale their privacy maps accept.

Part of :mod:`dpcore.samplers` (the module docstring there is the contract).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dpcore.samplers.csprng import MAX_REDRAWS

#: Relative widening tried first when OpenDP's map refuses the asked scale (then doubled).
FIRST_STEP = 2.0**-40
#: Doublings of the widening before giving up (the last one multiplies the scale by about 2^24).
MAX_DOUBLINGS = 64
#: Bisection steps between the refused and the accepted scale.
MAX_BISECTIONS = 60


def _dp() -> Any:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def opendp_version() -> str:
    """The installed OpenDP version (``"unknown"`` when the metadata is missing)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("opendp")
    except PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------------------------
# OpenDP measurements and their scales


@functools.lru_cache(maxsize=256)
def _measurement(kind: str, scale: float) -> Any:
    dp = _dp()
    dom = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    if kind == "laplace":
        return dp.m.make_laplace(dom, dp.l1_distance(T=float), scale=scale)
    if kind == "gaussian":
        return dp.m.make_gaussian(dom, dp.l2_distance(T=float), scale=scale)
    raise ValueError(f"kind must be 'laplace' or 'gaussian'; got {kind!r}.")


def required_budget(kind: str, sensitivity: float, scale: float) -> float:
    """What the mechanism asked for: ``Δ/b`` (Laplace, ε) or ``Δ²/(2σ²)`` (Gaussian, ρ)."""
    if kind == "laplace":
        return sensitivity / scale
    return sensitivity * sensitivity / (2.0 * scale * scale)


def _accepts(kind: str, scale: float, sensitivity: float, budget: float) -> bool:
    if not math.isfinite(scale) or scale <= 0.0:
        return False
    try:
        return float(_measurement(kind, scale).map(sensitivity)) <= budget
    except Exception:  # noqa: BLE001 - OpenDP refuses a scale it cannot represent
        return False


@functools.lru_cache(maxsize=4096)
def safe_scale(kind: str, sensitivity: float, scale: float) -> float:
    """The smallest scale ≥ ``scale`` whose OpenDP privacy map meets the asked budget.

    The budget is :func:`required_budget` at ``(sensitivity, scale)``. The asked scale is tried
    first; when OpenDP's map (which charges its grid rounding and rounds up) refuses it, the scale
    is widened by ``FIRST_STEP``, doubling the widening up to ``MAX_DOUBLINGS`` times, then
    bisected between the refused and the accepted scale (``MAX_BISECTIONS`` steps).

    Raises
    ------
    ValueError
        When no widened scale is accepted.

    Examples
    --------
    >>> safe_scale("laplace", 1.0, 2.0) >= 2.0
    True
    """
    budget = required_budget(kind, sensitivity, scale)
    if _accepts(kind, scale, sensitivity, budget):
        return scale
    low, step = scale, FIRST_STEP
    for _ in range(MAX_DOUBLINGS):
        high = scale * (1.0 + step)
        if _accepts(kind, high, sensitivity, budget):
            break
        low, step = high, step * 2.0
    else:
        raise ValueError(
            f"OpenDP's {kind} map accepts no scale near {scale:g} for sensitivity {sensitivity:g}."
        )
    for _ in range(MAX_BISECTIONS):
        mid = 0.5 * (low + high)
        if not low < mid < high:
            break
        if _accepts(kind, mid, sensitivity, budget):
            high = mid
        else:
            low = mid
    return high


@functools.lru_cache(maxsize=1)
def _noisy_max_measurement() -> Any:
    dp = _dp()
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)
    return dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=1.0)


@functools.lru_cache(maxsize=256)
def _integer_measurement(noise: str, units: float) -> Any:
    dp = _dp()
    dom = dp.vector_domain(dp.atom_domain(T="i64"))
    if noise == "exponential":
        return dp.m.make_laplace(dom, dp.l1_distance(T="i64"), scale=units)
    return dp.m.make_gaussian(dom, dp.l2_distance(T="i64"), scale=units)


def _walk_integers(noise: str, units: float, count: int) -> np.ndarray:
    """``count`` exact one-sided geometric (``P(g) ∝ exp(-g/units)``, g ≥ 0) or discrete Gaussian
    (``∝ exp(-z²/(2 units²))``) integers from OpenDP."""
    meas = _integer_measurement(noise, units)
    z = np.asarray(meas([0] * count), dtype=np.int64)
    if noise == "gaussian":
        return z
    todo = np.flatnonzero(z < 0)  # discrete Laplace given >= 0 is one-sided geometric
    for _ in range(MAX_REDRAWS):
        if todo.size == 0:
            return z
        z[todo] = np.asarray(meas([0] * todo.size), dtype=np.int64)
        todo = todo[z[todo] < 0]
    raise RuntimeError("rejection sampling did not finish (probability below 2^-200).")
