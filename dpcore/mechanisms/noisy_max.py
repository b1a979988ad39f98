"""The exponential mechanism by report-noisy-max, and the rejection step of a windowed draw.

Report-noisy-max with Gumbel (or exponential-key) noise on log-weights ``c·u`` is ε-DP for
utility sensitivity Δu when ``c = ε / (2Δu)`` (McSherry & Talwar 2007); ``ε / Δu`` for a
monotone utility. It is ε²/8-zCDP (bounded range; Cesar & Rogers 2021).

References
----------
McSherry and Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
Cesar and Rogers. "Bounding, Concentrating, and Truncating." ALT 2021.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

import dpcore.mechanisms._compiled as _compiled
from dpcore import _kernels_quantile
from dpcore._validation import RngLike, as_generator, check_positive
from dpcore.mechanisms.backend import _columns, _release_backend
from dpcore.mechanisms.stages import DRAWING, _charge, _observe, _record


def exponential(
    scores: np.ndarray,
    *,
    sensitivity: float,
    epsilon: float,
    coefficient: float,
    rng: RngLike | Any = None,
    columns: int = 1,
    monotone: bool = False,
    sampler: Literal["gumbel", "exponential", "inverse_cdf"] = "gumbel",
    base: np.ndarray | None = None,
    note: str = "",
) -> np.ndarray:
    """The exponential mechanism by report-noisy-max over the last axis of ``scores``.

    Parameters
    ----------
    scores : array (..., k)
        Log-weights ``coefficient · u`` of the k candidates (plus any public log base measure).
    sensitivity : float
        Utility sensitivity Δu.
    epsilon : float
        Total pure-DP budget of the call (``columns`` rows of ``epsilon / columns`` each).
    coefficient : float
        The multiplier the caller applied to the utility; the mechanism records
        ``ε_row / (2Δu·coefficient)`` (``Δu·coefficient`` for a monotone utility) as the ratio.
    sampler : {"gumbel", "exponential", "inverse_cdf"}
        ``argmax(scores + Gumbel)``, ``argmax((base - log E) + scores)`` with ``E ~ Exp(1)``, or
        one uniform per row against the cumulative weights ``exp(scores - max)`` (the same
        distribution; several samplers side by side because each estimator's seeded numbers
        depend on its own).
    base : array, optional
        Log base measure added to the log-weights before the draw (the log-lengths of the gaps
        of a quantile); ``scores`` alone are the utility part (``"gumbel"`` sampler: none).

    Returns
    -------
    ndarray of int
        The chosen index per row (shape ``scores.shape[:-1]``).

    Privacy
    -------
    ε/columns-DP per row, ε-DP in all (ε²/8-zCDP per row in a zCDP ledger).

    Examples
    --------
    >>> int(exponential(np.array([0.0, 50.0, 0.0]), sensitivity=1.0, epsilon=100.0,
    ...                 coefficient=50.0, rng=0))
    1
    """
    cols = _columns(columns)
    eps = check_positive(epsilon, "epsilon")
    du = check_positive(sensitivity, "sensitivity")
    coef = check_positive(coefficient, "coefficient")
    s = np.asarray(scores, dtype=float)
    _record("exponential", s, du, coef, cols)
    backend = _release_backend(rng)
    token = DRAWING.set(True)
    try:
        if backend is not None:
            idx = backend.noisy_max(s if base is None else base + s)
        elif sampler == "gumbel":
            idx = _gumbel_argmax(s, as_generator(rng))
        elif sampler == "inverse_cdf":
            gen = as_generator(rng)
            idx = _inverse_cdf(s, gen) if base is None else _inverse_cdf(base + s, gen, fresh=True)
        else:
            e = np.asarray(as_generator(rng).standard_exponential(s.shape))
            with np.errstate(divide="ignore"):
                np.log(e, out=e)
            key = (np.zeros(s.shape) if base is None else np.array(base, dtype=float)) - e
            key += s
            idx = np.argmax(key, axis=-1)
    finally:
        DRAWING.reset(token)
    _charge_exponential(eps, cols, du, coef, monotone, note, int(s.size))
    return idx


def _charge_exponential(
    eps: float, cols: int, du: float, coef: float, monotone: bool, note: str, variates: int
) -> None:
    """The ledger line of an exponential-mechanism call (:func:`exponential`)."""
    needed = (du if monotone else 2.0 * du) * coef
    _charge(
        "exponential",
        "pure",
        eps,
        cols,
        note or f"exponential mechanism, utility sensitivity {du:g}",
        sensitivity=du,
        scale=1.0 / coef,
        ratio=float((eps / cols) / needed),
        variates=variates,
    )


#: Smallest number of candidates for which :func:`_gumbel_argmax` looks for runs of equal scores.
_RUNS_FROM = 1024

#: Margin in doubles within a run: the key ``-log(-log(1 - u))`` falls with slope at least ``e``
#: in ``u``, so a double this far above the run's smallest one gives a key lower by about 2.7e-9,
#: far more than the rounding of ``log`` and of ``score + key`` (under 1e-11 for scores within
#: :data:`_RUNS_SCORE_LIMIT`).
_RUN_MARGIN = 1e-9
_RUNS_SCORE_LIMIT = 1e5

#: Margin of the rough keys (NumPy's vectorised ``log``, which may differ from the C ``log`` in
#: the last bits): a candidate this far below the best rough score cannot be the largest.
_ROUGH_MARGIN = 1e-6


def _gumbel_argmax(scores: np.ndarray, gen: np.random.Generator) -> Any:
    """``argmax(scores + gen.gumbel(size=scores.shape), axis=-1)``, the same index and the same
    draws, with the Gumbel transform computed only where it can matter.

    On a long 1-D row made of a few runs of equal scores (the rank utility of a quantile on a grid
    finer than the data: :func:`dpcore.quantiles.log_grid_quantile`), only the largest key of each
    run can win, and the key falls as its double rises. So the doubles are drawn as
    ``gen.random`` draws them (``gumbel`` reads one double per value, ``U = 1 - double``, and
    ``-log(-log(U))``), and the key is computed, as NumPy's C code computes it (``math.log`` is
    the same C ``log``), only for the doubles within :data:`_RUN_MARGIN` of their run's smallest
    and, of those, the ones whose rough score (``numpy.log``) is within :data:`_ROUGH_MARGIN` of
    the best; the first index of the largest ``score + key`` among them is the index the full
    draw returns (the key of any other double is below its run's best by far more than rounding,
    and its rough score below the best by far more than ``numpy.log``'s last bits). A
    double of exactly 0 (``U = 1``, which ``gumbel`` rejects and draws again) puts the generator
    back and takes the full draw; so do scores beyond :data:`_RUNS_SCORE_LIMIT` in magnitude,
    infinite or NaN (there rounding or ties could pick another index of a run).
    """
    if (
        scores.ndim != 1
        or scores.size < _RUNS_FROM
        or type(gen) is not np.random.Generator
        or not (-_RUNS_SCORE_LIMIT <= scores.min() and scores.max() <= _RUNS_SCORE_LIMIT)
    ):
        return np.argmax(scores + gen.gumbel(size=scores.shape), axis=-1)
    starts = np.flatnonzero(scores[1:] != scores[:-1]) + 1
    if 4 * starts.size > scores.size:  # few equal neighbours: the full draw is as cheap
        return np.argmax(scores + gen.gumbel(size=scores.shape), axis=-1)
    saved = gen.bit_generator.state
    u = gen.random(scores.size)
    if not u.all():  # a double of 0: gumbel redraws it
        gen.bit_generator.state = saved
        return np.argmax(scores + gen.gumbel(size=scores.shape), axis=-1)
    starts = np.concatenate(([0], starts))
    best = np.minimum.reduceat(u, starts)
    lengths = np.diff(np.append(starts, scores.size))
    near = np.flatnonzero(u <= np.repeat(best, lengths) + _RUN_MARGIN)
    rough = scores[near] - np.log(-np.log(1.0 - u[near]))  # NumPy's log: within a few ulp
    near = near[rough >= rough.max() - _ROUGH_MARGIN]
    log = math.log
    keys = [
        s + (0.0 - 1.0 * log(-log(1.0 - v)))
        for s, v in zip(scores[near].tolist(), u[near].tolist(), strict=True)
    ]
    return np.intp(near[keys.index(max(keys))])


def _inverse_cdf(
    scores: np.ndarray, gen: np.random.Generator, *, fresh: bool = False
) -> np.ndarray:
    """Index per row (last axis) of ``scores`` drawn with probability ``∝ exp(score)``.

    Each row is shifted by its own maximum (the likeliest index gets weight exactly 1), the weights
    are summed cumulatively and one uniform per row picks the first index whose cumulative weight
    exceeds ``u * total``; an index of weight 0 (score ``-inf``) is never picked. ``fresh=True``:
    ``scores`` is a C-ordered temporary of the caller, overwritten here (no second array).
    """
    lead = scores.shape[:-1]
    w = scores.reshape(-1, scores.shape[-1])
    if fresh:  # the caller's temporary (or a copy of it): shifted where it is, the same values
        w -= w.max(axis=-1, keepdims=True)
    else:
        w = w - w.max(axis=-1, keepdims=True)
    np.exp(w, out=w)
    rows, m = w.shape
    if w.size >= _compiled.COMPILED_FROM:  # the same sums and search, one pass per row
        idx = np.empty(rows, dtype=np.intp)
        _compiled.cumulative_pick(w, gen.random(rows), int(m).bit_length() + 1, idx)
        return idx.reshape(lead)
    np.cumsum(w, axis=-1, out=w)
    values = gen.random(rows) * w[:, -1]
    if np.isfinite(w[:, -1]).all():  # no NaN: every row rises, the search's index is a count
        return np.minimum(np.count_nonzero(w <= values[:, None], axis=-1), m - 1).reshape(lead)
    lo = np.zeros(rows, dtype=np.intp)
    hi = np.full(rows, m, dtype=np.intp)
    at = np.arange(rows)
    for _ in range(int(m).bit_length() + 1):  # #{j : w[i, j] <= values[i]} by halving
        mid = (lo + hi) // 2
        le = w[at, np.minimum(mid, m - 1)] <= values
        active = lo < hi
        lo = np.where(active & le, mid + 1, lo)
        hi = np.where(active & ~le, mid, hi)
    return np.minimum(lo, m - 1).reshape(lead)


def envelope_redraw(
    side: np.ndarray, side_bound: float, full: np.ndarray, rng: RngLike | Any
) -> int:
    """The rejection step of an exponential-mechanism draw made over a window of candidates with
    one envelope candidate for each side beyond it (the proposal picked an envelope).

    ``side`` are the exact log-weights of the candidates the envelope stands for, ``side_bound``
    the envelope's log-weight (at least their log-sum-exp), ``full`` the exact log-weights of every
    candidate. With probability ``sum(exp(side)) / exp(side_bound)`` a side candidate is returned
    (index into ``side``, drawn with probability proportional to its weight); otherwise ``-1 - i``
    for an index ``i`` of ``full`` drawn afresh from the whole distribution. Together with the
    proposal this is exactly the exponential mechanism over ``full`` (a proposal, accepted with
    probability true / envelope weight, else a fresh exact draw). It draws uniforms only, from a
    child of the generator (``Generator.spawn``), so the parent's stream, and every later draw of
    the caller, is the one it would have been without this step; the privacy cost is the
    proposal's, charged by :func:`exponential`.
    """
    token = DRAWING.set(True)
    try:
        gen = as_generator(rng)
        with contextlib.suppress(AttributeError, TypeError, ValueError):  # no seed sequence
            gen = gen.spawn(1)[0]
        ratios = np.cumsum(np.exp(np.asarray(side, dtype=float) - side_bound))
        u = gen.random()
        _observe("exponential", 1)
        if ratios.size and u < ratios[-1]:
            return int(np.searchsorted(ratios, u, side="right"))
        w = np.exp(np.asarray(full, dtype=float) - np.max(full))
        cum = np.cumsum(w)
        _observe("exponential", 1)
        i = int(np.searchsorted(cum, gen.random() * cum[-1], side="right"))
        return -1 - min(i, w.size - 1)
    finally:
        DRAWING.reset(token)


def exponential_by_envelope(
    rows: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    scores: np.ndarray,
    exact: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    *,
    sensitivity: float,
    epsilon: float,
    coefficient: float,
    rng: RngLike | Any,
    columns: int,
    bins: int,
    rounds: int,
    note: str = "",
) -> tuple[np.ndarray, np.ndarray]:
    """The exponential mechanism over the gaps of each row's sorted values, drawn without sorting
    (simulations only): the draw and the ledger line of :func:`exponential` with
    ``sampler="inverse_cdf"``, ``base`` the log-lengths of the gaps and ``scores`` the utility
    part, followed by a uniform point of the chosen gap.

    Row ``j`` of ``rows`` (``(m, n)``, finite values) padded with ``lower[j]`` and ``upper[j]``
    has gaps ``[z_i, z_{i+1}]``; gap ``i`` is chosen with probability ``∝ L_i exp(scores[i])`` and
    a uniform point of it returned. That point ``t`` has density ``∝ exp(scores[#{v < t}])`` on
    ``[lower, upper]``, which is what this samples: by rejection from a histogram envelope
    (:func:`dpcore._kernels_quantile.envelope_draws`, ``bins`` public bins of equal width; a
    proposal in a bin is accepted with probability density / the bin's bound), at most
    ``rounds`` proposals per row; rows none of them accepted get the draw of :func:`exponential`
    on ``exact(indices)`` (their padded sorted values and the log-lengths of their gaps). Each
    accepted proposal and the fallback have the mechanism's law, so the mixture has it too
    (docs/speed.md, "PLAN, round 6"). ``scores`` (``(n + 1,)``, one per gap, shared by every row)
    must rise to one peak and fall after it (a rank utility ``-c |i - q n|``).

    Returns
    -------
    (values, rounds) : the point per row, and the round that accepted it (0: the fallback).

    Privacy
    -------
    As :func:`exponential`: ``epsilon / columns``-DP per row, charged once to the caller's stage
    with the same line (sensitivity, scale ``1 / coefficient``, ratio, note).
    """
    if _release_backend(rng) is not None:
        raise ValueError(
            "exponential_by_envelope is a simulation sampler; a release draws with exponential()."
        )
    cols = _columns(columns)
    eps = check_positive(epsilon, "epsilon")
    du = check_positive(sensitivity, "sensitivity")
    coef = check_positive(coefficient, "coefficient")
    m, n = rows.shape
    shared = np.asarray(scores, dtype=float)
    if shared.shape != (n + 1,):
        raise ValueError(
            f"scores must be one utility per gap shared by every row, shape ({n + 1},); got "
            f"{shared.shape}: draw rows with their own utilities by exponential()."
        )
    s = np.broadcast_to(shared, (m, n + 1))
    _record("exponential", s, du, coef, cols)
    token = DRAWING.set(True)
    try:
        gen = as_generator(rng)
        weight = _unimodal_weights(shared)
        u = gen.random((m, int(rounds), 3))
        values, used = _kernels_quantile.envelope_draws(rows, lower, upper, weight, int(bins), u)
        rest = np.flatnonzero(used == 0)
        if rest.size:
            z, base = exact(rest)
            i = _inverse_cdf(base + s[rest], gen)
            at = np.arange(rest.size)
            left, right = z[at, i], z[at, i + 1]
            values[rest] = left + gen.random(rest.size) * (right - left)
    finally:
        DRAWING.reset(token)
    _charge_exponential(eps, cols, du, coef, False, note, int(s.size))
    return np.clip(values, lower, upper), used


def _unimodal_weights(scores: np.ndarray) -> np.ndarray:
    """``exp(scores - max)``, made to rise to its first peak and fall after it by running maxima
    (``numpy.exp`` may break the monotonicity of the scores by an ulp), so that the largest weight
    over a range of ranks is at one of its ends or at the peak."""
    w = np.exp(scores - scores.max())
    p = int(np.argmax(w))
    np.maximum.accumulate(w[: p + 1], out=w[: p + 1])
    tail = w[p:][::-1]
    w[p:] = np.maximum.accumulate(tail)[::-1]
    return w
