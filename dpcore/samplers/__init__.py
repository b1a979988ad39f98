"""Floating-point-safe samplers: the release backend of :mod:`dpcore.mechanisms`.

:class:`SafeBackend` is what :func:`dpcore.release.release` hands an estimator as its ``rng``.
Every privacy draw of :mod:`dpcore.mechanisms` reaches it (``is_release_backend = True``):

* Laplace and Gaussian noise: OpenDP's ``make_laplace`` / ``make_gaussian`` over
  ``vector_domain(atom_domain(T=float, nan=False))`` with ``l1_distance`` / ``l2_distance``. OpenDP
  rounds the input to a 2^k grid, adds 2^k times an exactly sampled discrete Laplace or Gaussian
  variable (integer arithmetic, the operating system's CSPRNG) and its privacy map charges the
  rounding. The scale is the smallest one (bracketing, then bisection, a bounded number of steps)
  whose map meets the budget the mechanism asked for, ``Δ/b`` or ``Δ²/(2σ²)``: at least the noise
  asked for. One OpenDP call per group of coordinates sharing a sensitivity and a scale.
* The exponential mechanism: OpenDP's ``make_noisy_max`` with Gumbel noise of scale 1 (its
  zero-concentrated-divergence form) on the log-weights, i.e. an exact draw with probability
  proportional to ``exp(score)``.
* AboveThreshold walk noise: ``Exp(1)/ε`` as ``2^k G`` with ``G`` one-sided geometric (OpenDP's
  exact discrete Laplace on integers, negative draws redrawn), ``N(0, 1)/√ρ`` as ``2^k Z`` with
  ``Z`` OpenDP's exact discrete Gaussian, on a grid ``2^k ≤ scale·2^-20``. Integer counts and
  thresholds plus the noise are exact in floating point, so the walk's comparisons see lattice
  values: the shift argument of the continuous proofs holds with the same ratio.
* Non-noise draws (uniforms, integers, permutations, choices, a rotation's signs) from
  :func:`os.urandom`, vectorised with :func:`numpy.frombuffer`. No NumPy generator is created,
  and inside :func:`no_stdlib_random` (the whole of a release) Python's :mod:`random` module
  refuses to draw: its Mersenne Twister is seeded and predictable, and its floats are not
  floating-point safe.

Any other draw (``laplace``, ``gumbel``, ``standard_exponential``, ...) does not exist here, and
``standard_normal`` is served to :mod:`dpcore.rotation` only: an estimator still drawing privacy
noise outside :mod:`dpcore.mechanisms` fails with :class:`UnsafeDraw` and is not released.

The package's modules, by family: :mod:`~dpcore.samplers.guard` (Python's :mod:`random`
refused during a release), :mod:`~dpcore.samplers.scales` (OpenDP's measurements and safe
scales), :mod:`~dpcore.samplers.csprng` (non-noise draws from the OS CSPRNG),
:mod:`~dpcore.samplers.exact` (the exact exponential mechanism) and
:mod:`~dpcore.samplers.backend` (the backends). Every name is importable from
:mod:`dpcore.samplers`.

References
----------
Mironov. "On Significance of the Least Significant Bits for Differential Privacy." CCS 2012.
Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy." NeurIPS 2020.
OpenDP 0.16: ``make_laplace``, ``make_gaussian``, ``make_noisy_max`` (https://docs.opendp.org).
"""

from __future__ import annotations

from dpcore.samplers.backend import (
    NORMAL_CALLERS,
    WALK_BITS,
    Draw,
    ProbeBackend,
    SafeBackend,
    SimulationBackend,
)
from dpcore.samplers.csprng import (
    MAX_REDRAWS,
    bounded_integers,
    random_uint64,
    random_unit,
)
from dpcore.samplers.exact import (
    CHUNK,
    MAX_TRIALS,
    bernoulli,
    bernoulli_exp,
    bernoulli_sum_exp,
    exact_noisy_max,
)
from dpcore.samplers.guard import (
    UnsafeDraw,
    no_stdlib_random,
)
from dpcore.samplers.scales import (
    FIRST_STEP,
    MAX_BISECTIONS,
    MAX_DOUBLINGS,
    opendp_version,
    required_budget,
    safe_scale,
)
from dpcore.samplers.scales import (
    _measurement as _measurement,  # the tests check OpenDP's map through it
)

__all__ = [
    "CHUNK",
    "FIRST_STEP",
    "MAX_BISECTIONS",
    "MAX_DOUBLINGS",
    "MAX_REDRAWS",
    "MAX_TRIALS",
    "NORMAL_CALLERS",
    "WALK_BITS",
    "Draw",
    "ProbeBackend",
    "SafeBackend",
    "SimulationBackend",
    "UnsafeDraw",
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_sum_exp",
    "bounded_integers",
    "exact_noisy_max",
    "no_stdlib_random",
    "opendp_version",
    "random_uint64",
    "random_unit",
    "required_budget",
    "safe_scale",
]
