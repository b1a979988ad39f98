"""The floating-point low-bit attack on a released mean (Mironov 2012).

D has two rows at 0 and D' replaces one of them by 1, with bounds [0, 1] and ε = 1. A mean
released as ``value + noise`` in floating point is ``noise`` itself on D (all 53 bits at its own
magnitude) but ``fl(0.5 + noise)`` on D', always a multiple of 2^-54. The event "a bit below
2^-54 is set" then has probability about 0.27 under D and exactly 0 under D', so no ε holds.
A sampler that rounds to a 2^k grid and adds exactly sampled discrete noise (OpenDP, the release
backend) makes the event about as likely under both.

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

import math
from collections.abc import Callable

import numpy as np

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


def balanced(hits_d: int, hits_d2: int, epsilon: float = 1.0) -> bool:
    """Whether the two counts are consistent with ε-DP: each at most ``e^ε`` times the other plus
    a sampling allowance of four standard deviations of the larger count (``4√max``)."""
    slack = 4.0 * math.sqrt(max(hits_d, hits_d2, 1))
    e = math.exp(epsilon)
    return hits_d <= e * hits_d2 + slack and hits_d2 <= e * hits_d + slack
