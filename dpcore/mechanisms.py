"""The one noise interface: every random draw that carries privacy is made here.

An estimator opens a :func:`stage` on its ledger and calls a mechanism inside it; the mechanism
draws the noise itself and writes the ledger line itself (stage, amount, mechanism, sensitivity,
scale and the calibration ratio). No estimator draws privacy noise from a generator or writes a
ledger line by hand, so the ledger is what actually happened and
:func:`dpcore.audit.calibration` can check every stage white-box (docs/privacy-contract.md).

The mechanisms and their guarantees (Δ is the sensitivity under the caller's neighbouring
relation; replace-one doubles the sensitivity of a sum compared with add/remove):

* :func:`laplace`: ``value + b·Lap(1)`` per coordinate is ε-DP for ℓ1 sensitivity Δ when
  ``b = Δ / ε`` (Dwork et al. 2006). With ``columns = d`` and a per-coordinate sensitivity vector
  ``Δ_r``, it is ``d`` mechanisms of ε/d each (basic composition): ``Σ_r Δ_r / b_r = ε``.
* :func:`gaussian`: ``value + σ·N(0, 1)`` per coordinate is ρ-zCDP for ℓ2 sensitivity Δ when
  ``σ = Δ / √(2ρ)`` (Bun & Steinke 2016, Prop. 1.6); with a per-coordinate sensitivity vector the
  zCDP costs add over coordinates: ``ρ = Σ_r Δ_r² / (2 σ_r²)``.
* :func:`exponential`: report-noisy-max with Gumbel (or exponential-key) noise on log-weights
  ``c·u`` is ε-DP for utility sensitivity Δu when ``c = ε / (2Δu)`` (McSherry & Talwar 2007);
  ``ε / Δu`` for a monotone utility. It is ε²/8-zCDP (bounded range; Cesar & Rogers 2021).
* :func:`above_threshold`: the sparse-vector walk, a noisy threshold then noisy queries of
  sensitivity 1 until one exceeds it; with exponential noise of scales ``1/ε_T`` and ``1/ε_Q`` it
  is ``(ε_T + ε_Q)``-DP per column for any walk length (Durfee 2023); with Gaussian noise it is the
  winsorized paper's Lemma D.1 walk, charged ``ρ_T + ρ_Q``.
* :func:`external`: a release drawn by another library (OpenDP, diffprivlib) whose own privacy map
  gives the charge; recorded, never drawn here.

A pure mechanism charged into a zCDP ledger is converted per column: ε-DP ⇒ ε²/2-zCDP (Bun &
Steinke 2016, Prop. 1.4), or ε²/8 for the exponential mechanism. Nothing converts the other way: a
Gaussian stage in a pure-DP ledger raises ``ValueError``.

Two backends draw the noise: a seeded NumPy ``Generator`` (simulations, sweeps, tests: fast and
reproducible), or the release backend of :mod:`dpcore.release` (no seed, the operating system's
CSPRNG, floating-point-safe samplers), chosen by the ``rng`` the estimator passes on.

References
----------
Dwork, McSherry, Nissim, Smith. "Calibrating Noise to Sensitivity in Private Data Analysis." TCC 2006.
Bun and Steinke. "Concentrated Differential Privacy." TCC 2016.
McSherry and Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.
Cesar and Rogers. "Bounding, Concentrating, and Truncating." ALT 2021.
Durfee. "Unbounded Differentially Private Quantile and Maximum Estimation." NeurIPS 2023.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol

import numpy as np

from dpcore._validation import RngLike, as_generator, check_positive
from dpcore.privacy import Ledger


class Release(NamedTuple):
    """A noisy value, the noise scale used (Laplace ``b`` or Gaussian σ) and the noise added."""

    value: np.ndarray | float
    scale: Any
    noise: Any = None


# --------------------------------------------------------------------------------------------
# stages and draws


@dataclass(frozen=True)
class _Stage:
    ledger: Ledger
    name: str
    note: str


_STAGE: contextvars.ContextVar[_Stage | None] = contextvars.ContextVar("dpcore_stage", default=None)


class DrawObserver(Protocol):
    """What :func:`dpcore.audit.calibration` listens with (one call per mechanism draw)."""

    def __call__(self, kind: str, stage: str | None, variates: int) -> None: ...


_OBSERVER: contextvars.ContextVar[DrawObserver | None] = contextvars.ContextVar(
    "dpcore_draw_observer", default=None
)
#: True while a mechanism is drawing (so a tracing generator can tell its draws from stray ones).
DRAWING: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcore_drawing", default=False)


@contextlib.contextmanager
def stage(ledger: Ledger, name: str, note: str = "") -> Iterator[Ledger]:
    """Charge every mechanism called inside the block to ``ledger`` under stage ``name``.

    >>> led = Ledger("pure")
    >>> with stage(led, "noisy mean"):
    ...     _ = laplace(0.5, sensitivity=0.01, epsilon=1.0, rng=0)
    >>> led.by_stage()
    {'noisy mean': 1.0}
    """
    token = _STAGE.set(_Stage(ledger, name, note))
    try:
        yield ledger
    finally:
        _STAGE.reset(token)


@dataclass
class _Parallel:
    ledger: Ledger
    amounts: list[float]


_PARALLEL: contextvars.ContextVar[_Parallel | None] = contextvars.ContextVar(
    "dpcore_parallel", default=None
)


@contextlib.contextmanager
def parallel(ledger: Ledger, name: str, note: str = "") -> Iterator[Ledger]:
    """Parallel composition: the stages in the block read disjoint rows, so they cost the largest.

    Every mechanism charged to ``ledger`` inside the block writes its line at 0 (its sensitivity,
    scale and ratio kept, its own budget in the stage's note), and the block then writes one line
    ``name``, placed before them, charging the largest amount any of them would have charged
    (mechanism ``"parallel composition"``, ratio 1: each part is checked on its own line).

    Privacy
    -------
    Valid only when each row feeds at most one of the mechanisms, the row blocks are cut
    independently of the data, and which mechanism reads which block depends on public values
    or earlier releases only: one changed row then changes the input of one mechanism
    (McSherry 2009, Thm 4).

    Examples
    --------
    >>> led = Ledger("pure")
    >>> with parallel(led, "parallel composition"):
    ...     for part in ("left half", "right half"):
    ...         with stage(led, part):
    ...             _ = laplace(0.5, sensitivity=0.01, epsilon=1.0, rng=0)
    >>> led.by_stage()
    {'parallel composition': 1.0, 'left half': 0.0, 'right half': 0.0}

    References
    ----------
    McSherry. "Privacy Integrated Queries." SIGMOD 2009.
    """
    start = len(ledger.charges)
    block = _Parallel(ledger, [])
    token = _PARALLEL.set(block)
    try:
        yield ledger
    finally:
        _PARALLEL.reset(token)
    if block.amounts:
        ledger.charge(name, max(block.amounts), note, mechanism="parallel composition", ratio=1.0)
        ledger.charges.insert(start, ledger.charges.pop())


@dataclass(frozen=True)
class StageInput:
    """The noiseless input of one mechanism call, as :func:`recording_inputs` keeps it.

    Attributes
    ----------
    stage : str or None
        The ledger stage charged (``": threshold"`` / ``": queries"`` appended for a walk).
    kind : str
        ``"laplace"``, ``"gaussian"``, ``"exponential"`` (the utility part of the log-weights,
        without a base measure) or ``"above_threshold"`` (thresholds or counts).
    value : ndarray or None
        The exact query answer the noise is added to (``None``: the noise was drawn alone).
    sensitivity, scale : ndarray
        The declared sensitivity (ℓ1, ℓ2, utility or 1) and the scale (Laplace ``b``, Gaussian
        σ, the exponential mechanism's coefficient, 1 for a walk).
    columns : int
        Independent per-coordinate queries the budget is split over.
    """

    stage: str | None
    kind: str
    value: np.ndarray | None
    sensitivity: np.ndarray
    scale: np.ndarray
    columns: int


_INPUTS: contextvars.ContextVar[list[StageInput] | None] = contextvars.ContextVar(
    "dpcore_stage_inputs", default=None
)


@contextlib.contextmanager
def recording_inputs() -> Iterator[list[StageInput]]:
    """Keep the noiseless input of every mechanism call in the block, in order (the sensitivity
    probe of :func:`dpcore.audit.calibration` compares them between neighbouring data sets)."""
    inputs: list[StageInput] = []
    token = _INPUTS.set(inputs)
    try:
        yield inputs
    finally:
        _INPUTS.reset(token)


def _record(
    kind: str, value: Any, sensitivity: Any, scale: Any, columns: int, suffix: str = ""
) -> None:
    inputs = _INPUTS.get()
    if inputs is None:
        return
    active = _STAGE.get()
    inputs.append(
        StageInput(
            None if active is None else active.name + suffix,
            kind,
            None if value is None else np.array(value, dtype=float),
            np.asarray(sensitivity, dtype=float),
            np.asarray(scale, dtype=float),
            columns,
        )
    )


@contextlib.contextmanager
def observing(observer: DrawObserver) -> Iterator[None]:
    """Tell ``observer`` of every mechanism draw in the block (used by the calibration check)."""
    token = _OBSERVER.set(observer)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


def _charge(
    kind: str,
    native: Literal["pure", "zcdp"],
    budget: float,
    columns: int,
    note: str,
    *,
    sensitivity: float,
    scale: float | None,
    ratio: float,
    suffix: str = "",
    variates: int = 0,
) -> None:
    """Write one ledger line in the active stage (if any) and tell the observer of the draw."""
    active = _STAGE.get()
    obs = _OBSERVER.get()
    if obs is not None:
        obs(kind, None if active is None else active.name + suffix, variates)
    if active is None:
        return
    led = active.ledger
    if led.notion == "pure" and native == "zcdp":
        raise ValueError(
            f"stage {active.name!r}: a zCDP mechanism ({kind}) cannot be charged to a pure-DP "
            "ledger (nothing turns rho-zCDP into epsilon-DP); use a pure mechanism."
        )
    if led.notion == "zcdp" and native == "pure":
        per = budget / columns
        factor = 8.0 if kind == "exponential" else 2.0
        amount = columns * per * per / factor
        how = "ε²/8 (bounded range)" if kind == "exponential" else "ε²/2"
        conv = f"; ε = {per:.4g} per column ⇒ {how} ρ"
    else:
        amount, conv = budget, ""
    text = "; ".join(t for t in (active.note, note) if t) + conv
    block = _PARALLEL.get()
    if block is not None and block.ledger is led:
        block.amounts.append(amount)
        amount = 0.0
    led.charge(
        active.name + suffix,
        amount,
        text,
        mechanism=kind,
        sensitivity=sensitivity,
        scale=scale,
        ratio=ratio,
    )


def _columns(columns: int) -> int:
    if isinstance(columns, bool) or not isinstance(columns, int | np.integer) or columns < 1:
        raise ValueError(f"columns must be a positive integer; got {columns!r}.")
    return int(columns)


def _finite_value(value: Any) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "value contains NaN or infinity; the mechanism needs a finite query answer."
        )
    return arr


def _positive_array(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
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


# --------------------------------------------------------------------------------------------
# scales


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Laplace scale ``b = sensitivity / epsilon``."""
    return check_positive(sensitivity, "sensitivity") / check_positive(epsilon, "epsilon")


def gaussian_std(sensitivity: float, rho: float) -> float:
    """Gaussian noise std ``sensitivity / sqrt(2 rho)`` for ``rho``-zCDP."""
    return check_positive(sensitivity, "sensitivity") / np.sqrt(2.0 * check_positive(rho, "rho"))


def laplace_ratio(scale: Any, sensitivity: Any, epsilon: float, columns: int = 1) -> float:
    """Noise drawn over noise required for a Laplace draw: ``ε / Σ_r Δ_r / b_r`` (``b·ε/Δ`` for one
    column), the smallest over the value's coordinates when the scale varies."""
    b = np.asarray(scale, dtype=float)
    s = np.asarray(sensitivity, dtype=float)
    if columns == 1:
        return float(epsilon * np.min(b) / np.max(s))
    spent = float(np.sum(np.broadcast_to(s / b, (columns,))))
    return float(epsilon / spent)


def gaussian_ratio(scale: Any, sensitivity: Any, rho: float, columns: int = 1) -> float:
    """Noise drawn over noise required for a Gaussian draw: ``σ·√(2ρ)/Δ`` for one ℓ2 query,
    ``√(ρ / Σ_r Δ_r²/(2σ_r²))`` for ``columns`` per-coordinate ones."""
    sd = np.asarray(scale, dtype=float)
    s = np.asarray(sensitivity, dtype=float)
    if columns == 1:
        return float(np.min(sd) * math.sqrt(2.0 * rho) / np.max(s))
    spent = float(np.sum(np.broadcast_to(s * s / (2.0 * sd * sd), (columns,))))
    return float(math.sqrt(rho / spent))


# --------------------------------------------------------------------------------------------
# Laplace and Gaussian


def _additive(
    kind: Literal["laplace", "gaussian"],
    value: Any,
    scale: Any,
    rng: Any,
    shape: tuple[int, ...] | None,
    reps: int | None,
    sensitivity: np.ndarray,
) -> tuple[Any, Any]:
    arr = _finite_value(0.0 if shape is not None and value is None else value)
    out_shape = tuple(shape) if shape is not None else arr.shape
    if reps is not None:
        out_shape = (int(reps), *out_shape)
    backend = _release_backend(rng)
    token = DRAWING.set(True)
    try:
        if backend is not None:
            noisy = backend.add_noise(kind, np.broadcast_to(arr, out_shape), scale, sensitivity)
            return noisy, noisy - arr
        gen = as_generator(rng)
        if kind == "laplace":
            noise = scale * gen.laplace(0.0, 1.0, size=out_shape)
        else:
            noise = scale * gen.standard_normal(out_shape)
    finally:
        DRAWING.reset(token)
    noisy = arr + noise
    return (noisy if noisy.ndim else float(noisy)), noise


def laplace(
    value: Any,
    sensitivity: Any,
    epsilon: float,
    *,
    rng: RngLike | Any = None,
    scale: Any = None,
    columns: int = 1,
    shape: tuple[int, ...] | None = None,
    reps: int | None = None,
    note: str = "",
) -> Release:
    """Release ``value`` with Laplace noise, charging ε to the active stage.

    Parameters
    ----------
    value : float or array
        The exact query answer (``None`` with ``shape``: draw the noise alone).
    sensitivity : float or array
        ℓ1 sensitivity of the query (``columns = 1``), or each coordinate's sensitivity
        (``columns = d``: d queries of ε/d each).
    epsilon : float
        Pure-DP budget of the call.
    rng : None, int, numpy Generator or release backend
        Source of randomness.
    scale : float or array, optional
        The Laplace scale ``b`` the caller computed from its own formula; by default
        ``Δ / ε`` (``d·Δ_r / ε`` per column). The ledger records ``b·ε/Δ`` as the ratio.
    columns : int
        Number of independent per-coordinate queries the budget is split over.
    shape, reps : optional
        Draw noise of ``shape`` (value broadcast), or ``reps`` independent copies (simulations of
        the same release: charged once).
    note : str
        What the stage releases, for the ledger.

    Returns
    -------
    Release
        ``(noisy value, b, noise)``.

    Privacy
    -------
    ε-DP for the stated sensitivity (ε²/2-zCDP per column in a zCDP ledger).

    Examples
    --------
    >>> laplace(0.5, sensitivity=0.01, epsilon=1.0, rng=0).scale
    0.01
    """
    cols = _columns(columns)
    eps = check_positive(epsilon, "epsilon")
    sens = _positive_array(sensitivity, "sensitivity")
    if scale is None:
        b = sens * cols / eps if cols > 1 else np.float64(laplace_scale(float(np.max(sens)), eps))
    else:
        b = _positive_array(scale, "scale")
    _record("laplace", value, sens, b, cols)
    noisy, noise = _additive("laplace", value, b, rng, shape, reps, sens)
    ratio = laplace_ratio(b, sens, eps, cols)
    _charge(
        "laplace",
        "pure",
        eps,
        cols,
        note or f"Laplace, l1 sensitivity {float(np.max(sens)):.4g}",
        sensitivity=float(np.max(sens)),
        scale=float(np.max(b)),
        ratio=ratio,
        variates=int(np.size(noise)),
    )
    return Release(noisy, float(b) if np.ndim(b) == 0 else b, noise)


def gaussian(
    value: Any,
    sensitivity: Any,
    rho: float,
    *,
    rng: RngLike | Any = None,
    scale: Any = None,
    columns: int = 1,
    shape: tuple[int, ...] | None = None,
    reps: int | None = None,
    note: str = "",
) -> Release:
    """Release ``value`` with Gaussian noise, charging ρ (zCDP) to the active stage.

    Parameters are those of :func:`laplace`, with ``rho`` for the budget and ``sensitivity`` in
    ℓ2; the default ``scale`` is ``Δ / √(2ρ)`` (``Δ_r / √(2ρ/d)`` per column).

    Returns
    -------
    Release
        ``(noisy value, σ, noise)``.

    Privacy
    -------
    ρ-zCDP for the stated sensitivity; refused in a pure-DP ledger.

    Examples
    --------
    >>> round(gaussian(0.0, sensitivity=1.0, rho=0.5, rng=0).scale, 6)
    1.0
    """
    cols = _columns(columns)
    r = check_positive(rho, "rho")
    sens = _positive_array(sensitivity, "sensitivity")
    if scale is None:
        sd = (
            sens / np.sqrt(2.0 * r / cols)
            if cols > 1
            else np.float64(gaussian_std(float(np.max(sens)), r))
        )
    else:
        sd = _positive_array(scale, "scale")
    _record("gaussian", value, sens, sd, cols)
    noisy, noise = _additive("gaussian", value, sd, rng, shape, reps, sens)
    ratio = gaussian_ratio(sd, sens, r, cols)
    _charge(
        "gaussian",
        "zcdp",
        r,
        1,
        note or f"Gaussian, l2 sensitivity {float(np.max(sens)):.4g}",
        sensitivity=float(np.max(sens)),
        scale=float(np.max(sd)),
        ratio=ratio,
        variates=int(np.size(noise)),
    )
    return Release(noisy, float(sd) if np.ndim(sd) == 0 else sd, noise)


# --------------------------------------------------------------------------------------------
# exponential mechanism (report-noisy-max)


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
            idx = np.argmax(s + as_generator(rng).gumbel(size=s.shape), axis=-1)
        elif sampler == "inverse_cdf":
            idx = _inverse_cdf(s if base is None else base + s, as_generator(rng))
        else:
            e = np.asarray(as_generator(rng).standard_exponential(s.shape))
            with np.errstate(divide="ignore"):
                np.log(e, out=e)
            key = (np.zeros(s.shape) if base is None else np.array(base, dtype=float)) - e
            key += s
            idx = np.argmax(key, axis=-1)
    finally:
        DRAWING.reset(token)
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
        variates=int(s.size),
    )
    return idx


def _inverse_cdf(scores: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Index per row (last axis) of ``scores`` drawn with probability ``∝ exp(score)``.

    Each row is shifted by its own maximum (the likeliest index gets weight exactly 1), the weights
    are summed cumulatively and one uniform per row picks the first index whose cumulative weight
    exceeds ``u * total``; an index of weight 0 (score ``-inf``) is never picked.
    """
    lead = scores.shape[:-1]
    w = scores.reshape(-1, scores.shape[-1])
    w = w - w.max(axis=-1, keepdims=True)
    np.exp(w, out=w)
    np.cumsum(w, axis=-1, out=w)
    rows, m = w.shape
    values = gen.random(rows) * w[:, -1]
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


# --------------------------------------------------------------------------------------------
# AboveThreshold (the sparse-vector walk)


@dataclass
class ThresholdWalk:
    """A noisy threshold per column; :meth:`queries` adds the query noise to a block of counts."""

    threshold: np.ndarray
    noise: Literal["exponential", "gaussian"]
    query_budget: float
    rng: Any

    def queries(self, counts: np.ndarray) -> np.ndarray:
        """``counts`` (sensitivity 1 each) plus fresh query noise (charged when the walk began)."""
        _record("above_threshold", counts, 1.0, 1.0, 1, ": queries")
        token = DRAWING.set(True)
        try:
            backend = _release_backend(self.rng)
            if backend is not None:
                return backend.add_walk_noise(self.noise, counts, self.query_budget)
            gen = as_generator(self.rng)
            if self.noise == "exponential":
                z = gen.standard_exponential(counts.shape)
                _observe("above_threshold", z.size)
                return counts + z / self.query_budget
            z = gen.standard_normal(counts.shape)
            _observe("above_threshold", z.size)
            return counts + z / math.sqrt(self.query_budget)
        finally:
            DRAWING.reset(token)

    def first_above(self, counts: np.ndarray, lengths: np.ndarray, columns: Any) -> np.ndarray:
        """Where each walk stops: runs of queries with equal counts, one variate per run.

        ``counts[j, r]`` (sensitivity 1) is the count of run ``r`` of walk ``columns[j]``, asked
        ``lengths[j, r]`` times in a row (counts non-decreasing along ``r``). Returns the
        position (0-based, over the concatenated queries) of the first noisy query above the
        walk's noisy threshold ``t``, or -1 where none is.

        Privacy
        -------
        The same distribution of the stopping position as :meth:`queries` on every query of
        every run: the queries' noises ``E`` are independent with one law, so within a run the
        number of queries below ``t`` before the first above it is geometric with
        ``p = P(c + E > t)``; it is drawn as ``floor(Z / λ)``, ``Z ~ Exp(1)``,
        ``λ = -log(1 - p)`` (``P(floor(Z/λ) >= k) = (1 - p)^k``), and runs are independent.
        Nothing else of the queries' noise is released, so the walk's guarantee (charged when it
        began) is unchanged. A release backend gets every query's noise (:meth:`queries`).
        """
        counts = np.asarray(counts, dtype=float)
        lengths = np.asarray(lengths, dtype=np.int64)
        starts = np.cumsum(lengths, axis=1) - lengths
        t = self.threshold[columns][:, None]
        if _release_backend(self.rng) is not None:
            total = lengths.sum(axis=1)
            dense = np.zeros((counts.shape[0], max(int(total.max(initial=0)), 1)))
            rows = np.repeat(np.arange(counts.shape[0]), total)
            dense[rows, np.arange(rows.size) - np.repeat(np.cumsum(total) - total, total)] = (
                np.repeat(counts.ravel(), lengths.ravel())
            )
            above = (np.arange(dense.shape[1]) < total[:, None]) & (self.queries(dense) > t)
            return np.where(above.any(axis=1), above.argmax(axis=1), -1)
        _record("above_threshold", counts, 1.0, 1.0, 1, ": queries")
        token = DRAWING.set(True)
        try:
            z = as_generator(self.rng).standard_exponential(counts.shape)
        finally:
            DRAWING.reset(token)
        _observe("above_threshold", z.size)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if self.noise == "exponential":  # log(1 - p), p = exp(-ε_Q (t - c)) or 1
                y = np.maximum(self.query_budget * (t - counts), 0.0)
                log_stay = np.where(y > math.log(2.0), np.log1p(-np.exp(-y)), np.log(-np.expm1(-y)))
            else:  # p = P(N(0, 1)/√ρ_Q > t - c)
                from scipy import special

                log_stay = special.log_ndtr((t - counts) * math.sqrt(self.query_budget))
            skips = np.floor(z / -log_stay)  # z / inf = 0 (p = 1); z / 0 = inf (p = 0)
        inside = skips < lengths
        r = inside.argmax(axis=1)
        rows = np.arange(counts.shape[0])
        return np.where(inside.any(axis=1), starts[rows, r] + skips[rows, r], -1).astype(np.int64)


def _observe(kind: str, variates: int) -> None:
    obs = _OBSERVER.get()
    if obs is not None:
        active = _STAGE.get()
        obs(kind, None if active is None else active.name, variates)


def above_threshold(
    threshold: np.ndarray,
    *,
    threshold_budget: float,
    query_budget: float,
    columns: int,
    rng: RngLike | Any = None,
    noise: Literal["exponential", "gaussian"] = "exponential",
    note: str = "",
) -> ThresholdWalk:
    """Start AboveThreshold walks (one per column) on queries of sensitivity 1.

    Parameters
    ----------
    threshold : array (columns,)
        The exact thresholds.
    threshold_budget, query_budget : float
        Per column: ε_T and ε_Q (``noise="exponential"``: noise ``Exp(1)/ε``) or ρ_T and ρ_Q
        (``noise="gaussian"``: noise ``N(0, 1)/√ρ``).
    columns : int
        Number of walks (one person touches all of them).

    Returns
    -------
    ThresholdWalk
        The noisy thresholds; its :meth:`ThresholdWalk.queries` noises the counts.

    Privacy
    -------
    ``"exponential"``: (ε_T + ε_Q)-DP per column for any walk length (Durfee 2023), charged as two
    lines (threshold and queries) that add up to it; ``"gaussian"``: ρ_T + ρ_Q per column.
    """
    cols = _columns(columns)
    bt = check_positive(threshold_budget, "threshold_budget")
    bq = check_positive(query_budget, "query_budget")
    t = _finite_value(threshold)
    _record("above_threshold", t, 1.0, 1.0, cols, ": threshold")
    backend = _release_backend(rng)
    token = DRAWING.set(True)
    try:
        if backend is not None:
            noisy = backend.add_walk_noise(noise, t, bt)
        elif noise == "exponential":
            noisy = t + as_generator(rng).standard_exponential(t.shape) / bt
        else:
            noisy = t + as_generator(rng).standard_normal(t.shape) / math.sqrt(bt)
    finally:
        DRAWING.reset(token)
    native: Literal["pure", "zcdp"] = "pure" if noise == "exponential" else "zcdp"
    if native == "pure" and _active_notion() == "zcdp":
        # the walk is (ε_T + ε_Q)-DP per column as a whole, so it converts as a whole
        total = cols * (bt + bq) ** 2 / 2.0
        parts = (total * bt / (bt + bq), total * bq / (bt + bq))
        native, note = (
            "zcdp",
            (note + "; " if note else "") + "pure walk, (ε_T + ε_Q)²/2 per column",
        )
    else:
        parts = (cols * bt, cols * bq)
    for amount, suffix, b in zip(parts, (": threshold", ": queries"), (bt, bq), strict=True):
        _charge(
            "above_threshold",
            native,
            amount,
            1,
            note,
            sensitivity=1.0,
            scale=1.0 / b if noise == "exponential" else 1.0 / math.sqrt(b),
            ratio=1.0,
            suffix=suffix,
            variates=t.size if suffix == ": threshold" else 0,
        )
    return ThresholdWalk(noisy, noise, bq, rng)


def _active_notion() -> str | None:
    active = _STAGE.get()
    return None if active is None else active.ledger.notion


# --------------------------------------------------------------------------------------------
# releases drawn by another library


def external(
    amount: float,
    *,
    notion: Literal["pure", "zcdp"],
    mechanism: str,
    sensitivity: float,
    scale: float,
    ratio: float,
    note: str = "",
) -> None:
    """Record a release another library drew (its own privacy map gave ``amount``).

    ``ratio`` is the library's noise over the noise ``amount`` requires (≥ 1: a library rounds its
    scale up until its map accepts the budget).
    """
    _charge(
        mechanism,
        notion,
        check_positive(amount, "amount"),
        1,
        note,
        sensitivity=sensitivity,
        scale=scale,
        ratio=ratio,
    )
