"""The sensitivity probe: does the input of every noisy stage move by at most what it declares?

White-box calibration (:func:`dpcore.audit.calibration`) checks each stage's noise against the
sensitivity the stage declares; this module checks the declaration. :func:`probe` runs the
estimator on a data set ``D`` and on worst-case neighbours ``D′`` of its relation with the same
randomness, and compares the noiseless input of each mechanism call
(:func:`dpcore.mechanisms.recording_inputs`) between the two runs:

* **Same randomness, same history.** The estimator runs on a replay backend (a release backend of
  :mod:`dpcore.mechanisms`): on ``D`` it draws from a seeded generator and keeps every noisy
  output; on ``D′`` the same non-noise draws are made and every mechanism returns ``D``'s output.
  A later stage then sees the same earlier releases on both data sets, which is the condition
  under which its declared sensitivity must hold (adaptive composition).
* **Movement in the stage's own norm.** Laplace: the privacy loss of the movement at the scales
  drawn, ``Σ|δ_i|/b_i``, over the loss the declared sensitivity allows (``‖δ‖₁/Δ`` for one scale);
  Gaussian: ``√(Σ δ_i²/σ_i²)`` over the same for ``Δ`` (``‖δ‖₂/Δ``); exponential mechanism: the
  largest change of a candidate's utility over ``Δu``; AboveThreshold: the largest change of a
  threshold or count over 1. A ratio above 1 is a sensitivity the stage understates.
* **A declaration read off the data.** A stage whose declared sensitivity differs between ``D``
  and ``D′`` computes it from the data (a clipping box taken from the rows): flagged too.

The neighbours (:func:`neighbours_of`) change the last row of ``D`` to the upper corner of the
public box, the lower corner and a row ten box widths outside it (replace-one), or add such a row
and remove the last one (add-remove): the moves the declared sensitivities must cover.

References
----------
Dwork and Roth. "The Algorithmic Foundations of Differential Privacy." 2014, §3.5 (adaptive
composition); docs/privacy-contract.md.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from dpcore import mechanisms
from dpcore.audit.neighbours import OUTSIDE_WIDTHS
from dpcore.mechanisms import StageInput

#: Relative tolerance of a movement against its declared sensitivity.
TOLERANCE = 1e-9


class Diverged(RuntimeError):
    """The run on ``D′`` asked for a draw ``D``'s run did not make (a data-dependent structure)."""


class ReplayBackend:
    """A release backend that records every noisy output, or replays another run's outputs.

    Non-noise draws (permutations, uniforms, a rotation) come from a generator seeded with
    ``seed``, noise from a second one, so a replaying run makes the same non-noise draws.
    """

    is_release_backend = True

    def __init__(self, seed: int, replay: list[Any] | None = None) -> None:
        self._draws = np.random.default_rng([seed, 0])
        self._noise = np.random.default_rng([seed, 1])
        self.outputs: list[Any] = []
        self._replay: Iterator[Any] | None = None if replay is None else iter(replay)

    def _out(self, fresh: Callable[[], Any], shape: tuple[int, ...]) -> Any:
        if self._replay is None:
            out = fresh()
            self.outputs.append(out)
            return out
        out = next(self._replay, None)
        if out is None or np.shape(out) != shape:
            raise Diverged("the mechanism calls differ between the neighbours")
        return out

    def add_noise(self, kind: str, value: Any, scale: Any, sensitivity: Any) -> np.ndarray:
        val, b = np.asarray(value, dtype=float), np.asarray(scale, dtype=float)

        def draw() -> np.ndarray:
            if kind == "laplace":
                return val + b * self._noise.laplace(size=val.shape)
            return val + b * self._noise.standard_normal(val.shape)

        return self._out(draw, val.shape)

    def noisy_max(self, scores: Any) -> np.ndarray:
        s = np.asarray(scores, dtype=float)
        idx = self._out(
            lambda: np.argmax(s + self._noise.gumbel(size=s.shape), axis=-1), s.shape[:-1]
        )
        # a quantile's gaps are one more or fewer on an add/remove neighbour: its replayed
        # release is its grid point (replay_release), the index only has to stay a candidate
        return np.minimum(idx, s.shape[-1] - 1)

    def add_walk_noise(self, noise: str, values: Any, budget: float) -> np.ndarray:
        val = np.asarray(values, dtype=float)

        def draw() -> np.ndarray:
            if noise == "exponential":
                return val + self._noise.standard_exponential(val.shape) / budget
            return val + self._noise.standard_normal(val.shape) / math.sqrt(budget)

        return self._out(draw, val.shape)

    def replay_release(self, value: Any) -> Any:
        """A stage's released value (:func:`dpcore.mechanisms.released`), kept or replayed."""
        return self._out(lambda: value, np.shape(value))

    def spawn(self, k: int) -> list[ReplayBackend]:
        return [self] * int(k)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._draws, name)  # random, integers, permutation, choice, ...


def _box(data: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    bounds = getattr(data, "bounds", None)
    if bounds is None:
        return np.zeros(d), np.ones(d)
    lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (d,)) for b in bounds)
    return lo, hi


def neighbours_of(data: Any, relation: str, *, binary: bool) -> list[tuple[str, Any]]:
    """Worst-case neighbours of ``data`` (a Dataset or an array) under ``relation``, as
    ``(key, data′)`` with the public box kept."""
    x = np.asarray(getattr(data, "x", data), dtype=float)
    lo, hi = _box(data, x.shape[1])
    rows = {"upper": hi, "lower": lo}
    if not binary:
        rows["outside"] = lo + OUTSIDE_WIDTHS * (hi - lo)
    if relation == "add-remove":
        moved = {f"add-{k}": np.vstack([x, v[None, :]]) for k, v in rows.items()}
        moved["remove-last"] = x[:-1]
    else:
        moved = {f"replace-{k}": np.vstack([x[:-1], v[None, :]]) for k, v in rows.items()}
    if isinstance(data, np.ndarray):
        return list(moved.items())
    return [(k, dataclasses.replace(data, x=v)) for k, v in moved.items()]


def _weighted(delta: np.ndarray, scale: np.ndarray, power: int) -> float:
    w = np.abs(delta) / np.broadcast_to(scale, delta.shape)
    return float(np.sum(w**power))


def _declared(inp: StageInput, power: int) -> float:
    s, b = inp.sensitivity, inp.scale
    if inp.columns > 1:
        cols = (inp.columns,)
        return float(np.sum((np.broadcast_to(s, cols) / np.broadcast_to(b, cols)) ** power))
    return float((np.max(s) / np.min(b)) ** power)


def movement(a: StageInput, b: StageInput) -> float:
    """How far the input moved from run ``a`` to run ``b``, over what the declared sensitivity
    allows, in the mechanism's norm (module docstring); NaN when the two cannot be compared."""
    if a.value is None or b.value is None or a.value.shape != b.value.shape:
        return math.nan
    same = (a.value == b.value) | (np.isnan(a.value) & np.isnan(b.value))
    delta = np.where(same, 0.0, b.value - a.value)
    if a.kind in ("laplace", "gaussian"):
        power = 1 if a.kind == "laplace" else 2
        try:
            ratio = _weighted(delta, a.scale, power) / _declared(a, power)
        except ValueError:  # shapes that do not broadcast: unweighted, against the largest Δ
            return float(np.linalg.norm(delta.ravel(), power) / np.max(a.sensitivity))
        return ratio ** (1.0 / power)
    if a.kind == "exponential":
        moved = float(np.max(np.abs(delta), initial=0.0)) / float(np.max(a.scale))
        return moved / float(np.max(a.sensitivity))
    return float(np.max(np.abs(delta), initial=0.0)) / float(np.max(a.sensitivity))


def _run(
    run: Callable[..., Any], data: Any, budget: Any, seed: int, replay: list[Any] | None
) -> tuple[list[StageInput], list[Any]]:
    backend = ReplayBackend(seed, replay)
    with mechanisms.recording_inputs() as inputs:
        run(data, budget, rng=backend)
    return inputs, backend.outputs


def probe(
    run: Callable[..., Any],
    data: Any,
    budget: Any,
    relation: str,
    *,
    binary: bool = False,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One row per mechanism call and neighbour: the movement of its input over its declaration.

    Parameters
    ----------
    run : callable
        ``run(data, budget, rng=backend)``, the estimator's public entry.
    data : Dataset or array
        ``D`` (public, made up: an audit).
    budget : Budget
    relation : {"replace-one", "add-remove"}
        The estimator's declared neighbouring relation.
    binary : bool
        0/1 data: no row outside the box.
    seed : int
        Seed of the shared randomness.

    Returns
    -------
    list of dict
        ``stage, mechanism, pair, ratio, declared_moves`` (``ratio``: NaN when not compared;
        ``declared_moves``: the declared sensitivity differs between ``D`` and ``D′``), and a row
        with ``stage = None`` when the neighbour's run made other mechanism calls. Calls from
        the first noise drawn alone on (``value=None``) are not compared: the estimator adds
        that noise itself, so its release cannot be replayed.
    """
    base, outputs = _run(run, data, budget, seed, None)
    rows: list[dict[str, Any]] = []
    for key, other in neighbours_of(data, relation, binary=binary):
        try:
            moved, _ = _run(run, other, budget, seed, outputs)
        except Diverged as err:
            rows.append({"stage": None, "mechanism": str(err), "pair": key, "ratio": math.nan})
            continue
        blind = False
        for a, b in zip(base, moved, strict=False):
            # noise drawn alone (value=None; a release refuses it) is added to the statistic by
            # the estimator: that release is not replayed, so nothing after it is compared
            blind = blind or a.value is None
            declared_moves = a.sensitivity.shape != b.sensitivity.shape or not np.allclose(
                a.sensitivity, b.sensitivity, rtol=1e-12, atol=0.0
            )
            rows.append(
                {
                    "stage": a.stage,
                    "mechanism": a.kind,
                    "pair": key,
                    "ratio": math.nan if blind else movement(a, b),
                    "declared_moves": bool(declared_moves) and not blind,
                }
            )
    return rows


def probe_problems(rows: list[dict[str, Any]]) -> list[str]:
    """What the probe flags: a stage's input moved beyond its declared sensitivity, or a declared
    sensitivity that changes with the data (one line per stage, its worst neighbour)."""
    worst: dict[str, tuple[float, str]] = {}
    moving: dict[str, str] = {}
    for r in rows:
        if r["stage"] is None:
            continue
        stage = str(r["stage"])
        if r.get("declared_moves"):
            moving.setdefault(stage, r["pair"])
        ratio = float(r["ratio"])
        beyond = not math.isnan(ratio) and ratio > 1.0 + TOLERANCE
        if beyond and ratio > worst.get(stage, (0.0, ""))[0]:
            worst[stage] = (ratio, r["pair"])
    out = [
        f"{stage}: one changed row moved its input {ratio:.3g}× the sensitivity it declares "
        f"({pair} neighbour)"
        for stage, (ratio, pair) in worst.items()
    ]
    out += [
        f"{stage}: its declared sensitivity changes with the data ({pair} neighbour), so it is "
        "not computed from public values only"
        for stage, pair in moving.items()
    ]
    return out
