"""The release backend :class:`SafeBackend` and the two backends for the accuracy of a release
(:class:`ProbeBackend`, :class:`SimulationBackend`).

Part of :mod:`dpcore.samplers` (the module docstring there is the contract).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore.samplers.csprng import (
    MAX_REDRAWS,
    _normals,
    _shaped,
    _size,
    bounded_integers,
    random_uint64,
    random_unit,
)
from dpcore.samplers.exact import exact_noisy_max
from dpcore.samplers.guard import UnsafeDraw
from dpcore.samplers.scales import _measurement, _walk_integers, required_budget, safe_scale

#: Grid of the walk noise: ``2^k <= scale * 2^-WALK_BITS``.
WALK_BITS = 20
#: Modules allowed to ask the backend for standard normal values (a public random rotation).
NORMAL_CALLERS = frozenset({"dpcore.rotation"})


@dataclass
class Draw:
    """One privacy draw of a release: what was asked, what was used (all public)."""

    kind: str
    variates: int
    sensitivity: float
    scale_asked: float
    scale_used: float
    budget: float


@dataclass
class SafeBackend:
    """The release backend: floating-point-safe noise and CSPRNG draws (module docstring).

    Attributes
    ----------
    draws : list of Draw
        Every privacy draw, in order (kinds, scales and budgets: public values only).
    """

    draws: list[Draw] = field(default_factory=list)
    is_release_backend: bool = True

    # noise -------------------------------------------------------------------------------
    def add_noise(self, kind: str, value: Any, scale: Any, sensitivity: Any) -> np.ndarray:
        """``value`` plus at least the asked Laplace / Gaussian noise, floating-point safe.

        ``scale`` and ``sensitivity`` broadcast against ``value``; coordinates sharing a pair
        ``(Δ, scale)`` are one OpenDP call (a vector query of that sensitivity in ℓ1 / ℓ2).
        """
        val = np.asarray(value, dtype=float)
        b = np.broadcast_to(np.asarray(scale, dtype=float), val.shape)
        s = np.broadcast_to(np.asarray(sensitivity, dtype=float), val.shape)
        out = np.empty(val.shape, dtype=float)
        if val.size == 0:
            return out
        if _noise_alone(value):
            raise UnsafeDraw(
                "the noise is drawn alone (value=None) and added to the data's statistic by the "
                "estimator in floating point, which leaks low bits; pass the statistic to the "
                "mechanism so the noisy value is drawn exactly"
            )
        pairs = np.stack([s.ravel(), b.ravel()], axis=1)
        keys, inverse = np.unique(pairs, axis=0, return_inverse=True)
        flat_val, flat_out = val.ravel(), out.reshape(-1)
        for j, (sens, sc) in enumerate(keys):
            idx = np.flatnonzero(inverse.ravel() == j)
            used = safe_scale(kind, float(sens), float(sc))
            noisy = _measurement(kind, used)(flat_val[idx])
            flat_out[idx] = np.asarray(noisy, dtype=float)
            budget = required_budget(kind, float(sens), float(sc))
            self.draws.append(Draw(kind, idx.size, float(sens), float(sc), used, budget))
        return out

    def noisy_max(self, scores: Any) -> np.ndarray:
        """Index per row (last axis) drawn with probability ``∝ exp(score)``, exactly
        (:func:`exact_noisy_max`)."""
        s = np.asarray(scores, dtype=float)
        if s.ndim == 0 or s.shape[-1] == 0 or np.isnan(s).any() or np.isposinf(s).any():
            raise ValueError("noisy_max needs rows of finite or -inf scores.")
        rows = s.reshape(-1, s.shape[-1])
        if not np.isfinite(rows).any(axis=1).all():
            raise ValueError("noisy_max: a row has no candidate of positive weight.")
        out = exact_noisy_max(rows)
        self.draws.append(Draw("exponential", int(s.size), 1.0, 1.0, 1.0, 2.0))
        return out.reshape(s.shape[:-1])

    def add_walk_noise(self, noise: str, values: Any, budget: float) -> np.ndarray:
        """``values + Exp(1)/budget`` or ``values + N(0, 1)/√budget`` on a fine 2^k grid, exact."""
        val = np.asarray(values, dtype=float)
        if noise == "exponential":
            scale = 1.0 / float(budget)
        elif noise == "gaussian":
            scale = 1.0 / math.sqrt(float(budget))
        else:
            raise ValueError(f"walk noise must be 'exponential' or 'gaussian'; got {noise!r}.")
        scale = math.nextafter(scale, math.inf)  # never below the asked scale
        k = math.floor(math.log2(scale)) - WALK_BITS
        units = math.ldexp(scale, -k)  # exact: a power-of-two rescaling
        z = _walk_integers(noise, units, val.size)
        self.draws.append(Draw(f"walk {noise}", int(val.size), 1.0, scale, scale, float(budget)))
        return val + np.ldexp(z.astype(np.float64), k).reshape(val.shape)

    # non-noise draws ---------------------------------------------------------------------
    def random(self, size: Any = None) -> Any:
        """Uniforms on [0, 1) (53 random bits each)."""
        shape = _size(size)
        return _shaped(random_unit(int(np.prod(shape, dtype=np.int64))), shape)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> Any:
        """Uniforms on [low, high)."""
        u = np.asarray(self.random(size))
        out = low + u * (np.asarray(high) - np.asarray(low))
        return out if np.ndim(out) else float(out)

    def integers(
        self, low: int, high: int | None = None, size: Any = None, endpoint: bool = False
    ) -> Any:
        """Uniform integers in ``[low, high)`` (``[0, low)`` when ``high`` is None)."""
        lo, hi = (0, int(low)) if high is None else (int(low), int(high))
        hi += 1 if endpoint else 0
        if hi <= lo:
            raise ValueError(f"integers: high ({hi}) must exceed low ({lo}).")
        shape = _size(size)
        flat = lo + bounded_integers(hi - lo, int(np.prod(shape, dtype=np.int64)))
        return _shaped(flat, shape)

    def permutation(self, x: Any) -> np.ndarray:
        """A uniformly random permutation of ``range(x)`` (an int) or of the rows of ``x``."""
        if isinstance(x, int | np.integer):
            return self._order(int(x))
        arr = np.asarray(x)
        return arr[self._order(arr.shape[0])]

    def _order(self, n: int) -> np.ndarray:
        """Ranks of ``n`` random 64-bit keys, redrawn while two keys tie (exactly uniform)."""
        for _ in range(MAX_REDRAWS):
            keys = random_uint64(n)
            order = np.argsort(keys, kind="stable")
            if n < 2 or np.all(np.diff(keys[order]) > 0):
                return order
        raise RuntimeError("tied keys in every redraw (probability below 2^-200).")

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        """Uniform choice from ``a`` (an int n means ``range(n)``); ``p`` is not supported."""
        if p is not None:
            raise UnsafeDraw("choice with probabilities p is not available in a release.")
        pool = np.arange(int(a)) if isinstance(a, int | np.integer) else np.asarray(a)
        shape = _size(size)
        count = int(np.prod(shape, dtype=np.int64))
        if replace:
            picks = bounded_integers(pool.shape[0], count)
        else:
            if count > pool.shape[0]:
                raise ValueError(
                    "choice: cannot take more samples than the population without replacement."
                )
            picks = self._order(pool.shape[0])[:count]
        out = pool[picks]
        return out.reshape(shape + pool.shape[1:]) if shape else out[0]

    def binomial(self, n: Any, p: float, size: Any = None) -> np.ndarray:
        """Binomial(n, 1/2) counts for imputed public rows (not a privacy draw): exact popcounts
        for ``n <= 64``, the normal approximation rounded into ``[0, n]`` above."""
        if p != 0.5:
            raise UnsafeDraw("binomial draws other than p = 1/2 are not available in a release.")
        shape = _size(size) or np.shape(n)
        counts = np.broadcast_to(np.asarray(n, dtype=np.int64), shape).ravel()
        bits = random_uint64(counts.size)
        small = counts <= 64
        mask = np.where(
            counts >= 64,
            np.uint64(2**64 - 1),
            (np.uint64(1) << np.minimum(counts, 63).astype(np.uint64)) - np.uint64(1),
        )
        pop = np.array([int(v).bit_count() for v in (bits & mask)], dtype=np.int64)
        big = counts.astype(float)
        u1, u2 = 1.0 - random_unit(counts.size), random_unit(counts.size)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        approx = np.clip(np.rint(big / 2 + np.sqrt(big) / 2 * z), 0, big).astype(np.int64)
        return np.where(small, pop, approx).reshape(shape)

    def standard_normal(self, size: Any = None) -> Any:
        """Standard normals (Box–Muller on CSPRNG uniforms), for a public random rotation only."""
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller not in NORMAL_CALLERS:
            raise UnsafeDraw(
                f"{caller} draws Gaussian values outside dpcore.mechanisms; in a release every "
                "privacy draw must go through dpcore.mechanisms."
            )
        shape = _size(size)
        count = int(np.prod(shape, dtype=np.int64))
        u1 = 1.0 - random_unit(count)  # (0, 1]
        u2 = random_unit(count)
        z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
        return _shaped(z, shape)

    def spawn(self, k: int) -> list[SafeBackend]:
        """``k`` handles on this backend (its draws are independent by construction)."""
        return [self] * int(k)


def _noise_alone(value: Any) -> bool:
    """Whether :mod:`dpcore.mechanisms` passed the placeholder of a noise-only draw: a 0-d ``0.0``
    broadcast to the shape asked, as it does for ``value=None, shape=...``."""
    if not isinstance(value, np.ndarray) or value.ndim == 0 or np.any(value):
        return False
    root = value
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root.ndim == 0


# --------------------------------------------------------------------------------------------
# backends for the accuracy of a release (synthetic data only)


class ProbeBackend(SafeBackend):
    """Adds ``c`` times the safe scale, deterministically (the accuracy probe of
    :func:`dpcore.release.accuracy`: how the noise reaches the released mean)."""

    def __init__(self, c: float) -> None:
        super().__init__()
        self.c = c

    def add_noise(self, kind: str, value: Any, scale: Any, sensitivity: Any) -> np.ndarray:
        val = np.asarray(value, dtype=float)
        b = np.broadcast_to(np.asarray(scale, dtype=float), val.shape)
        s = np.broadcast_to(np.asarray(sensitivity, dtype=float), val.shape)
        used = np.vectorize(lambda ss, bb: safe_scale(kind, float(ss), float(bb)))(s, b)
        return val + self.c * used


class SimulationBackend(SafeBackend):
    """Fast float noise from CSPRNG uniforms, for simulating accuracy on synthetic data only."""

    def add_noise(self, kind: str, value: Any, scale: Any, sensitivity: Any) -> np.ndarray:
        val = np.asarray(value, dtype=float)
        u = random_unit(val.size).reshape(val.shape)
        if kind == "laplace":
            z = np.sign(u - 0.5) * -np.log1p(-2.0 * np.abs(u - 0.5))
        else:
            z = _normals(val.shape)
        return val + np.asarray(scale, dtype=float) * z

    def noisy_max(self, scores: Any) -> np.ndarray:
        """Index per row ``∝ exp(score)`` by the float inverse CDF: one uniform per row."""
        s = np.asarray(scores, dtype=float)
        rows = s.reshape(-1, s.shape[-1])
        cdf = np.cumsum(np.exp(rows - rows.max(axis=1, keepdims=True)), axis=1)
        u = random_unit(rows.shape[0]) * cdf[:, -1]
        idx = np.minimum((cdf <= u[:, None]).sum(axis=1), rows.shape[1] - 1)
        return idx.reshape(s.shape[:-1])

    def add_walk_noise(self, noise: str, values: Any, budget: float) -> np.ndarray:
        val = np.asarray(values, dtype=float)
        if noise == "exponential":
            return val - np.log1p(-random_unit(val.size).reshape(val.shape)) / budget
        return val + _normals(val.shape) / math.sqrt(budget)
