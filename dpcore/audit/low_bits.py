"""The floating-point low-bit attack on a released mean (Mironov 2012).

D has two rows at 0 and D' replaces one of them by 1, with bounds [0, 1] and ε = 1. A mean
released as ``value + noise`` in floating point is ``noise`` itself on D (all 53 bits at its own
magnitude) but ``fl(0.5 + noise)`` on D', always a multiple of 2^-54. The event "a bit below
2^-54 is set" then has probability about 0.27 under D and exactly 0 under D', so no ε holds.
A sampler that rounds to a 2^k grid and adds exactly sampled discrete noise (OpenDP, the release
backend) makes the event about as likely under both.

The same attack reads privately estimated bounds (:func:`bounds_low_bit_attack`): a quantile drawn
as ``left + u·(right − left)`` in floating point, with data values as the ends, is a multiple of
2^-53 when the ends are (D: a row at 1.0) and not always when they are not (D′: the row at 0.75).
A release draws its quantiles on the public grid of
:data:`dpcore.quantiles.exponential.GRID_BITS` instead (:func:`off_grid`).

Examples
--------
>>> import numpy as np
>>> from dpcore import Budget, registry
>>> g = np.random.default_rng(1)
>>> numpy_draw = lambda z: registry.run("clipped_laplace", z, Budget.pure(1.0), rng=g,
...                                     bounds=(0.0, 1.0)).mean[0]
>>> hits_d, hits_d2 = low_bit_attack(numpy_draw, 200)
>>> hits_d > 20 and hits_d2 == 0
True

References
----------
Mironov. "On Significance of the Least Significant Bits for Differential Privacy." CCS 2012.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore.privacy import Ledger
from dpcore.quantiles.exponential import grid_step
from dpcore.samplers import SafeBackend

#: The two neighbouring data sets of the attack (bounds [0, 1]).
D = np.array([[0.0], [0.0]])
D_PRIME = np.array([[0.0], [1.0]])
#: The event's bit: a set bit below 2^-LOW_BIT.
LOW_BIT = 54


def fine(y: float) -> bool:
    """Whether ``y`` has a set bit below 2^-54 (``y · 2^54`` is not an integer)."""
    return math.ldexp(float(y), LOW_BIT) % 1.0 != 0.0


def low_bit_attack(sampler: Callable[[np.ndarray], float], draws: int) -> tuple[int, int]:
    """Hits of the low-bit event over ``draws`` releases on D and on D'.

    Parameters
    ----------
    sampler : callable
        ``sampler(data) -> released mean`` (a float) for ``data`` of shape (2, 1) in [0, 1] at ε = 1.
    draws : int
        Releases on each data set.

    Returns
    -------
    (hits_D, hits_D')
        How often the event occurred on D and on D'. An ε-DP release keeps each within a factor
        ``e^ε`` of the other, up to sampling error; a float release gives ``hits_D' = 0``.

    Privacy
    -------
    An audit: it runs ``sampler`` on two fixed public data sets only.
    """
    hits_d = sum(fine(sampler(D.copy())) for _ in range(int(draws)))
    hits_d2 = sum(fine(sampler(D_PRIME.copy())) for _ in range(int(draws)))
    return int(hits_d), int(hits_d2)


#: The bounds attack: one row at 1.0 and 19 at 4.0, the coarse public range [0, 4]; D′ moves the
#: row at 1.0 to 0.75 (replace-one neighbours).
BOUNDS_D = np.vstack([[[1.0]], np.full((19, 1), 4.0)])
BOUNDS_D_PRIME = np.vstack([[[0.75]], np.full((19, 1), 4.0)])
BOUNDS_RANGE = (0.0, 4.0)
#: The bounds event's bit: a set bit below 2^-BOUNDS_BIT.
BOUNDS_BIT = 53


def off_grid(y: float, lower: float, upper: float) -> bool:
    """Whether ``y`` is not a point ``lower + j·step`` (clipped to the range) of the release grid
    of ``[lower, upper]`` (:func:`dpcore.quantiles.exponential.grid_step`)."""
    step = float(grid_step(lower, upper))
    j = round((float(y) - lower) / step)
    return float(np.clip(lower + j * step, lower, upper)) != float(y)


@dataclass(frozen=True)
class BoundsAttack:
    """The low-bit event on released lower bounds, and bounds off the public grid.

    Attributes
    ----------
    hits : dict
        ``hits["D"]``, ``hits["D′"]``: releases whose lower bound has a set bit below
        ``2^-BOUNDS_BIT``.
    off_grid : dict
        Per data set, releases with a bound (lower or upper) off the grid of :data:`BOUNDS_RANGE`.
    draws : int
        Releases per data set.
    """

    hits: dict[str, int]
    off_grid: dict[str, int]
    draws: int


def bounds_low_bit_attack(
    sampler: Callable[[np.ndarray], tuple[float, float]], draws: int
) -> BoundsAttack:
    """The low-bit attack on privately estimated bounds, ``draws`` releases on each data set.

    Parameters
    ----------
    sampler : callable
        ``sampler(data) -> (lower, upper)``: the bounds a release publishes for ``data`` (shape
        (20, 1)) searched in the coarse range :data:`BOUNDS_RANGE`.
    draws : int
        Releases on each of :data:`BOUNDS_D` and :data:`BOUNDS_D_PRIME`.

    Returns
    -------
    BoundsAttack
        A float draw between data values gives ``hits["D"] = 0`` and ``hits["D′"] > 0`` (no ε
        allows that); grid draws give no hit and nothing off the grid.

    Privacy
    -------
    An audit: it runs ``sampler`` on two fixed public data sets only.
    """
    lo, hi = BOUNDS_RANGE
    hits, outside = {}, {}
    for label, data in (("D", BOUNDS_D), ("D′", BOUNDS_D_PRIME)):
        found = [sampler(data.copy()) for _ in range(int(draws))]
        hits[label] = sum(math.ldexp(float(a), BOUNDS_BIT) % 1.0 != 0.0 for a, _ in found)
        outside[label] = sum(off_grid(a, lo, hi) or off_grid(b, lo, hi) for a, b in found)
    return BoundsAttack(hits, outside, int(draws))


def balanced(hits_d: int, hits_d2: int, epsilon: float = 1.0) -> bool:
    """Whether the two counts are consistent with ε-DP: each at most ``e^ε`` times the other plus
    a sampling allowance of four standard deviations of the larger count (``4√max``)."""
    slack = 4.0 * math.sqrt(max(hits_d, hits_d2, 1))
    e = math.exp(epsilon)
    return hits_d <= e * hits_d2 + slack and hits_d2 <= e * hits_d + slack


# --------------------------------------------------------------------------------------------
# the lesson: NumPy's Laplace against the safe sampler, live

#: The clipped mean of D and of D' (bounds [0, 1], n = 2): the value the noise is added to.
MEANS = {"D": 0.0, "D′": 0.5}
#: Per-coordinate sensitivity (b - a)/n and Laplace scale (b - a)/(n ε) of that release at ε = 1.
SENSITIVITY = 0.5
SCALE = 0.5
#: The two samplers of the lesson and how a page names them.
SAMPLERS = {
    "numpy": "NumPy's Laplace (simulations)",
    "safe": "the safe sampler (releases: OpenDP)",
}


@dataclass(frozen=True)
class LowBitLesson:
    """Counts of the low-bit event over ``draws`` releases per sampler and data set.

    Attributes
    ----------
    draws : int
        Releases on each data set, per sampler.
    hits : dict
        ``hits[sampler][data set]``: how many releases had a bit below 2^-54 set
        (samplers ``"numpy"`` and ``"safe"``, data sets ``"D"`` and ``"D′"``).
    """

    draws: int
    hits: dict[str, dict[str, int]]

    def share(self, sampler: str, data: str) -> float:
        """The share of releases with the event."""
        return self.hits[sampler][data] / self.draws


def releases(value: float, draws: int, rng: Any) -> np.ndarray:
    """``draws`` independent releases of clipped_laplace on a data set whose clipped mean is
    ``value`` (n = 2, bounds [0, 1], ε = 1), all in one call of :func:`dpcore.mechanisms.laplace`
    with the estimator's sensitivity and scale: a NumPy generator adds ``value + noise`` in floating
    point, :class:`dpcore.samplers.SafeBackend` draws each noisy value exactly on a 2^k grid.
    The ledger of the call is thrown away (an audit, not a release of data)."""
    with mechanisms.stage(Ledger("pure"), "low-bit lesson"):
        rel = mechanisms.laplace(
            np.full(int(draws), float(value)), SENSITIVITY, 1.0, rng=rng, scale=SCALE
        )
    return np.asarray(rel.value, dtype=float)


def lesson(draws: int, seed: int | np.random.SeedSequence | None = 0) -> LowBitLesson:
    """The low-bit event over ``draws`` releases on D and on D' for each sampler.

    Parameters
    ----------
    draws : int
        Releases per data set and sampler.
    seed : int, SeedSequence or None
        Seed of the NumPy generator, e.g. a view's stream (the safe sampler takes none: the OS
        CSPRNG).

    Returns
    -------
    LowBitLesson

    Privacy
    -------
    An audit on two fixed public data sets; nothing about anyone's data is released.

    Examples
    --------
    >>> out = lesson(400)
    >>> out.hits["numpy"]["D"] > 50 and out.hits["numpy"]["D′"] == 0
    True
    """
    g = np.random.default_rng(seed)
    numpy_hits = {data: _fine_count(releases(value, draws, g)) for data, value in MEANS.items()}
    return LowBitLesson(int(draws), {"numpy": numpy_hits, "safe": dict(_safe_hits(int(draws)))})


def _fine_count(y: np.ndarray) -> int:
    """How many of ``y`` are :func:`fine` (all at once)."""
    return int(np.count_nonzero(np.ldexp(np.asarray(y, float), LOW_BIT) % 1.0 != 0.0))


@functools.lru_cache(maxsize=8)
def _safe_hits(draws: int) -> tuple[tuple[str, int], ...]:
    """The safe sampler's side of :func:`lesson`: it takes no seed (the OS CSPRNG), so one run
    per ``draws`` serves every seed and visitor of the process (exact sampling costs about a
    second of CPU per 4,000 draws)."""
    return tuple(
        (data, _fine_count(releases(v, draws, SafeBackend()))) for data, v in MEANS.items()
    )


def _pct(share: float) -> str:
    if share == 0.0:
        return "never"
    return f"{share:.0%} of the time" if share >= 0.01 else f"{share:.1%} of the time"


def lesson_sentences(out: LowBitLesson) -> dict[str, str]:
    """One plain sentence per sampler saying what an attacker learns from the low bits."""
    words = {}
    for sampler in ("numpy", "safe"):
        a, b = out.share(sampler, "D"), out.share(sampler, "D′")
        counts = (
            f"({out.hits[sampler]['D']:,} and {out.hits[sampler]['D′']:,} of {out.draws:,} "
            "releases)"
        )
        if balanced(out.hits[sampler]["D"], out.hits[sampler]["D′"]):
            verdict = (
                f"within the factor e^ε ≈ {math.e:.1f} that ε = 1 allows (up to sampling error): "
                "the last bits leak nothing beyond the guarantee"
            )
        elif min(a, b) == 0.0:
            verdict = (
                "an attacker who sees one release with those bits set knows for sure it came from "
                f"{'D' if a > b else 'D′'}: no ε, however large, allows that"
            )
        else:
            verdict = "more often on one than e^ε allows: the claimed ε is false"
        words[sampler] = (
            f"With {SAMPLERS[sampler]}, under D the last bits are set {_pct(a)}, under D′ "
            f"{_pct(b)} {counts}: {verdict}."
        )
    return words
