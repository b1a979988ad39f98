"""The exponential mechanism, exactly: Bernoulli draws of rational and ``exp(-x)`` probabilities
and :func:`exact_noisy_max`.

Part of :mod:`dpcore.samplers` (the module docstring there is the contract).
"""

from __future__ import annotations

import decimal
import math
import secrets
from fractions import Fraction
from typing import Any

import numpy as np

from dpcore.samplers.scales import _noisy_max_measurement

#: Rejected trials of :func:`exact_noisy_max` before a row goes to OpenDP whole.
MAX_TRIALS = 64
#: Scores per chunk of rows in :func:`exact_noisy_max` (at least one row).
CHUNK = 1 << 16


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
