"""Stages, the ledger line every mechanism writes, and what the calibration check listens with.

An estimator opens a :func:`stage` (or a :func:`parallel` block) on its ledger; a mechanism of
:mod:`dpcore.mechanisms` called inside it writes its line through :func:`_charge`, which converts
a pure charge into a zCDP ledger per column and refuses a zCDP one in a pure ledger.
:func:`recording_inputs` and :func:`observing` are the hooks of :func:`dpcore.audit.calibration`;
:func:`external` records a release another library drew.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from dpcore._validation import check_positive
from dpcore.privacy import Ledger


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

    >>> from dpcore.mechanisms import laplace
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
    >>> from dpcore.mechanisms import laplace
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


def _observe(kind: str, variates: int) -> None:
    obs = _OBSERVER.get()
    if obs is not None:
        active = _STAGE.get()
        obs(kind, None if active is None else active.name, variates)


def _active_notion() -> str | None:
    active = _STAGE.get()
    return None if active is None else active.ledger.notion


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
