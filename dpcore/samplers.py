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

References
----------
Mironov. "On Significance of the Least Significant Bits for Differential Privacy." CCS 2012.
Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy." NeurIPS 2020.
OpenDP 0.16: ``make_laplace``, ``make_gaussian``, ``make_noisy_max`` (https://docs.opendp.org).
"""

from __future__ import annotations

import contextlib
import contextvars
import decimal
import functools
import math
import os
import random
import secrets
import sys
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

#: Relative widening tried first when OpenDP's map refuses the asked scale (then doubled).
FIRST_STEP = 2.0**-40
#: Doublings of the widening before giving up (the last one multiplies the scale by about 2^24).
MAX_DOUBLINGS = 64
#: Bisection steps between the refused and the accepted scale.
MAX_BISECTIONS = 60
#: Redraws of negative discrete-Laplace values for the one-sided walk noise (each halves them).
MAX_REDRAWS = 200
#: Grid of the walk noise: ``2^k <= scale * 2^-WALK_BITS``.
WALK_BITS = 20
#: Modules allowed to ask the backend for standard normal values (a public random rotation).
NORMAL_CALLERS = frozenset({"dpcore.rotation"})
#: Rejected trials of :func:`exact_noisy_max` before a row goes to OpenDP whole.
MAX_TRIALS = 64
#: Scores per chunk of rows in :func:`exact_noisy_max` (at least one row).
CHUNK = 1 << 16


class UnsafeDraw(ValueError):
    """An estimator asked the release backend for a draw it cannot make safely."""


_LIBRARY_KEYS = ("stdlib", "platstdlib", "purelib", "platlib")
#: True while a release runs in this context (:func:`no_stdlib_random`).
_RELEASING: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcore_releasing", default=False)


#: Where the standard library and installed packages live: their own uses of :mod:`random`
#: (``tempfile``'s names, a package's import-time set-up) are not an estimator's draws.
_LIBRARIES = tuple(
    {os.path.realpath(p) for k, p in sysconfig.get_paths().items() if k in _LIBRARY_KEYS}
)


def _drawn_by_a_library() -> bool:
    """Whether the code asking :mod:`random` for a draw (the first frame outside ``random.py``)
    is the standard library's or an installed package's, and not dpcore's."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename == random.__file__:
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return False
    name = str(frame.f_globals.get("__name__", ""))
    if name == "dpcore" or name.startswith("dpcore."):
        return False
    return os.path.realpath(frame.f_code.co_filename).startswith(_LIBRARIES)


def _refusing(name: str, draw: Callable[..., Any], *, method: bool) -> Callable[..., Any]:
    """``draw`` refusing to run for an estimator during a release (``method``: unbound, its first
    argument is the generator, and a :class:`random.SystemRandom` passes)."""

    @functools.wraps(draw)
    def watched(*args: Any, **kwargs: Any) -> Any:
        csprng = method and isinstance(args[0], random.SystemRandom)
        if _RELEASING.get() and not csprng and not _drawn_by_a_library():
            raise UnsafeDraw(
                f"random.{name} (Python's random module) was called during a release; its "
                "Mersenne Twister is seeded and predictable and its floats leak low bits: draw "
                "through dpcore.mechanisms and the release backend instead"
            )
        return draw(*args, **kwargs)

    return watched


def _watch_stdlib_random() -> None:
    """Wrap, once, every draw of Python's :mod:`random`: the module's functions (bound to its
    hidden generator) and the two methods every ``random.Random`` draw goes through (``random`` and
    ``getrandbits``; :class:`random.SystemRandom`, the OS CSPRNG behind :mod:`secrets`, overrides
    both and is not wrapped)."""
    if getattr(random, "_dpcore_watched", False):
        return
    for name in random.__all__:
        f = getattr(random, name)
        if isinstance(getattr(f, "__self__", None), random.Random):
            setattr(random, name, _refusing(name, f, method=False))
    for name in ("random", "getrandbits"):
        setattr(random.Random, name, _refusing(name, getattr(random.Random, name), method=True))
    random._dpcore_watched = True  # type: ignore[attr-defined]


@contextlib.contextmanager
def no_stdlib_random() -> Iterator[None]:
    """Refuse every draw from Python's :mod:`random` module inside the block (a release).

    The refusal is an :class:`UnsafeDraw` naming the function, for a draw asked by dpcore or by
    any code outside the standard library and the installed packages (an estimator); a library's
    own use (``tempfile``'s file names, a package's import-time set-up) is not an estimator's
    draw and passes. It holds in this context only (other threads, e.g. other app sessions, are
    untouched); :mod:`secrets` and :class:`random.SystemRandom` stay available.

    >>> with no_stdlib_random():
    ...     random.random()
    Traceback (most recent call last):
    ...
    dpcore.samplers.UnsafeDraw: random.random (Python's random module) was called during a release; ...
    """
    _watch_stdlib_random()
    token = _RELEASING.set(True)
    try:
        yield
    finally:
        _RELEASING.reset(token)


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


# --------------------------------------------------------------------------------------------
# CSPRNG building blocks


def random_uint64(count: int) -> np.ndarray:
    """``count`` independent uniform 64-bit integers from :func:`os.urandom`."""
    return np.frombuffer(os.urandom(8 * int(count)), dtype=np.uint64).copy()


def random_unit(count: int) -> np.ndarray:
    """``count`` uniforms on [0, 1): 53 random bits each, exact multiples of 2^-53."""
    return (random_uint64(count) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _size(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    return tuple(int(s) for s in np.atleast_1d(np.asarray(size, dtype=np.int64)))


def _shaped(flat: np.ndarray, shape: tuple[int, ...]) -> Any:
    return flat.reshape(shape) if shape else flat.reshape(())[()]


def bounded_integers(high: int, count: int) -> np.ndarray:
    """``count`` uniform integers in ``[0, high)`` by rejection (unbiased; 1 ≤ high ≤ 2^63)."""
    high = int(high)
    if not 1 <= high <= 2**63:
        raise ValueError(f"high must be in [1, 2^63]; got {high}.")
    bits = max(1, (high - 1).bit_length())
    mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(2**64 - 1)
    out = np.empty(count, dtype=np.int64)
    todo = np.arange(count)
    for _ in range(MAX_REDRAWS):
        if todo.size == 0:
            return out
        v = random_uint64(todo.size) & mask
        ok = v < np.uint64(high)
        out[todo[ok]] = v[ok].astype(np.int64)
        todo = todo[~ok]
    raise RuntimeError("rejection sampling did not finish (probability below 2^-200).")


# --------------------------------------------------------------------------------------------
# the backend


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


# --------------------------------------------------------------------------------------------
# the exponential mechanism, exactly


def bernoulli(p: Fraction) -> bool:
    """``True`` with probability exactly ``p`` (a rational in [0, 1]), from :mod:`secrets`."""
    return secrets.randbelow(p.denominator) < p.numerator


def bernoulli_exp(x: Fraction) -> bool:
    """``True`` with probability exactly ``exp(-x)`` for a rational ``x ≥ 0``.

    Canonne, Kamath and Steinke (2020), Algorithm 1: for ``γ ∈ [0, 1]`` draw ``Bernoulli(γ/k)``
    for ``k = 1, 2, ...`` until one fails; the index of the failure is odd with probability
    ``exp(-γ)``. Above 1, ``exp(-x) = exp(-1)^⌊x⌋ exp(-(x - ⌊x⌋))`` (stopping at the first failure).
    """
    if x < 0:
        raise ValueError("bernoulli_exp needs x >= 0.")
    while x > 1:
        if not bernoulli_exp(Fraction(1)):
            return False
        x -= 1
    k = 1
    while bernoulli(x / k):
        k += 1
    return k % 2 == 1


def exact_noisy_max(scores: np.ndarray) -> np.ndarray:
    """Per row of ``scores`` (floats or ``-inf``, each row with a finite one), an index drawn
    with probability exactly ``∝ exp(score)``; the float work is vectorised over rows.

    Rejection from an exactly known proposal. With ``m`` the largest score and
    ``w_i = exp(s_i - m)`` in floats, the integer thresholds ``T_i = ⌊2^53 · cumsum(w)_i / Σw⌋``
    (the last set to ``2^53``) define the proposal: with probability 1/2 a uniform index, else the
    index ``i`` with ``T_{i-1} ≤ u < T_i`` for a uniform integer ``u < 2^53``, so
    ``q_i = 1/(2k) + (T_i - T_{i-1})/2^54``, a rational known exactly and never 0 (no
    underflow can hide a candidate). The draw is accepted with probability
    ``exp(-(m - s_i)) / (C q_i)``, with ``C`` a float bound on ``max_i w_i/q_i`` widened by
    ``2^-20`` (far above the rounding of the floats), computed exactly by
    :func:`bernoulli_sum_exp`. A trial outputs ``i`` with probability ``exp(s_i - m)/C``, so an
    accepted draw has exactly the exponential mechanism's distribution whatever the trial; about
    one trial in two is accepted. After :data:`MAX_TRIALS` rejections the row goes to OpenDP's
    ``make_noisy_max`` (exact too).

    Privacy
    -------
    The output is the index alone, drawn with the exact probabilities ``exp(s_i)/Σ exp(s)`` of the
    floating-point scores the estimator computed: no rounded weight decides the output, no float
    noise, no underflow (the failure mode of a float inverse-CDF or a float Gumbel-max, whose noise
    is bounded so that far candidates get probability 0 under one data set and not under its
    neighbour). The guarantee is the exponential mechanism's on those scores, as with OpenDP. An
    acceptance probability above 1 (impossible with the margin) raises instead of releasing. The
    number of trials depends on the scores (a timing channel, as in OpenDP's own samplers).

    References
    ----------
    Canonne, Kamath, Steinke. "The Discrete Gaussian for Differential Privacy." NeurIPS 2020.
    Ilvento. "Implementing the Exponential Mechanism with Base-2 Differential Privacy." CCS 2020.
    """
    s = np.atleast_2d(np.asarray(scores, dtype=float))
    out = np.empty(s.shape[0], dtype=np.intp)
    step = max(1, CHUNK // s.shape[1])  # rows per chunk: the float work stays in cache
    for start in range(0, s.shape[0], step):
        out[start : start + step] = _chunk(s[start : start + step])
    return out


def _chunk(s: np.ndarray) -> np.ndarray:
    """:func:`exact_noisy_max` on a block of rows."""
    k = s.shape[1]
    m = s.max(axis=1, keepdims=True)
    w = np.exp(s - m)  # 0 for -inf
    cdf = np.cumsum(w, axis=1)
    thresholds = np.floor(cdf / cdf[:, -1:] * 2.0**53).astype(np.int64)
    thresholds[:, -1] = 2**53
    counts = np.diff(thresholds, axis=1, prepend=0)
    q = 1.0 / (2.0 * k) + counts * 2.0**-54
    bounds = np.max(w / q, axis=1) * (1.0 + 2.0**-20)
    out = np.empty(s.shape[0], dtype=np.intp)
    for r in range(s.shape[0]):
        out[r] = _accepted(s[r], float(m[r, 0]), thresholds[r], counts[r], float(bounds[r]))
    return out


def _accepted(s: np.ndarray, m: float, thresholds: np.ndarray, counts: Any, bound: float) -> int:
    """One row of :func:`exact_noisy_max`: trials until one is accepted (OpenDP after
    :data:`MAX_TRIALS`)."""
    k = s.size
    for _ in range(MAX_TRIALS):
        if secrets.randbits(1):
            i = secrets.randbelow(k)
        else:
            i = int(np.searchsorted(thresholds, secrets.randbelow(2**53), side="right"))
        if not math.isfinite(s[i]):
            continue
        # accept with probability exp(s_i - m) / (bound q_i): floats first, with a wide error
        x = float(s[i]) - m
        p = math.exp(x) / (bound * (1.0 / (2.0 * k) + float(counts[i]) * 2.0**-54))
        err = p * (abs(x) + 16.0) * 2.0**-48
        if p - err > 1.0:
            raise RuntimeError("exact_noisy_max: an acceptance probability exceeds 1.")
        u = secrets.randbits(64)
        if u + 1 <= math.floor(math.ldexp(max(p - err, 0.0), 64)):
            return i
        if u >= math.ceil(math.ldexp(p + err, 64)):
            continue
        qi = Fraction(1, 2 * k) + Fraction(int(counts[i]), 2**54)  # undecided: exactly
        if bernoulli_sum_exp(s[i : i + 1], Fraction(m), 1 / (Fraction(bound) * qi), u=(u, 64)):
            return i
    keep = np.flatnonzero(np.isfinite(s))
    return int(keep[int(_noisy_max_measurement()(s[keep] - m))])


def bernoulli_sum_exp(
    scores: np.ndarray,
    v: Fraction,
    factor: Fraction = Fraction(1),
    *,
    u: tuple[int, int] = (0, 0),
) -> bool:
    """``True`` with probability exactly ``q = factor · Σ exp(s_i - v)`` (floats ``s_i``,
    rationals ``v`` and ``factor > 0``, ``q ≤ 1``): a uniform ``U`` drawn bit by bit from
    :mod:`secrets` is compared with ``q``, known to an interval that narrows (floats, then
    :mod:`decimal` at growing precision) until the interval and ``U``'s span are apart. ``u``:
    the first bits of ``U`` already drawn (value, number of bits), when a caller's own comparison
    was undecided.

    Raises
    ------
    RuntimeError
        When ``q > 1``.
    """
    x = np.asarray(scores, dtype=float) - float(v)
    terms = np.exp(x)
    f = float(factor)
    q = f * float(terms.sum())
    err = 2.0**-40 * (terms.size + 1) * f * (float(np.sum(terms * (2.0 + np.abs(x)))) + 1e-300)
    lo, hi = Fraction(max(q - err, 0.0)), Fraction(q + err)
    top, bits = u
    digits = 40
    while True:
        if lo > 1:
            raise RuntimeError("bernoulli_sum_exp: the probability exceeds 1.")
        while bits < 4 * digits:
            top, bits = (top << 64) | secrets.randbits(64), bits + 64
        u_lo, u_hi = Fraction(top, 1 << bits), Fraction(top + 1, 1 << bits)
        if u_hi <= lo:
            return True
        if u_lo >= hi:
            return False
        lo, hi = _sum_exp_interval(scores, v, digits)
        lo, hi = lo * factor, hi * factor
        digits *= 2


def _sum_exp_interval(scores: np.ndarray, v: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """An interval holding ``Σ exp(s_i - v)``, from :mod:`decimal` at ``digits`` digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = digits + 10
        dv = decimal.Decimal(v.numerator) / decimal.Decimal(v.denominator)
        total, spread = decimal.Decimal(0), decimal.Decimal(0)
        for si in np.asarray(scores, dtype=float):
            xi = decimal.Decimal(float(si)) - dv
            ti = xi.exp()
            total += ti
            spread += ti * (1 + abs(xi))
    rel = Fraction(10) ** (-digits) * (len(scores) + 5)
    mid, width = Fraction(total), Fraction(spread) * rel + Fraction(10) ** (-digits)
    return mid - width, mid + width


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


def _normals(shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    u1, u2 = 1.0 - random_unit(n), random_unit(n)
    return (np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)).reshape(shape)
