"""Compare's words and numbers (pure; no streamlit): a small probability as a chance, round
target errors, the heavy-tails note, the far-off table as a class reads it, and the "accuracy
first" sentence (the budget or n each estimator needs for a target error; its chart is in
:mod:`dpcore.figures.compare_target`).

:mod:`dpcore.figures.compare` re-exports every name here.

References
----------
docs/architecture.md, "App conventions" (every chart states its number in a sentence).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from dpcore.experiments.config import ExperimentConfig
from dpcore.figures.style import plain, times

METRIC_LABEL = {"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞", "tv": "½ℓ1"}  # of the mean vector, not a TV


def _fmt(v: float) -> str:
    return plain(v)


def budget_label(unit: str) -> str:
    return {"rho": "ρ (zCDP)", "eps": "ε (pure DP)", "eps_delta": "ε (at fixed δ)"}.get(unit, unit)


def chance(p: float) -> str:
    """A small probability in words a class can say: ``1e-06`` -> ``"1 in a million"``.

    >>> chance(1e-6), chance(1e-5), chance(2.5e-9), chance(0.01)
    ('1 in a million', '1 in 100,000', '1 in 400 million', '1 in 100')
    """
    if not 0.0 < p < 1.0:
        return plain(p)
    one_in = 1.0 / p
    for big, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if one_in >= big * (1.0 - 1e-9):  # 1 / 1e-9 is 999,999,999.9999999 in floating point
            amount = one_in / big
            return f"1 in a {word}" if round(amount, 2) == 1 else f"1 in {plain(amount)} {word}"
    return f"1 in {plain(one_in)}"


def in_words(text: str) -> str:
    """``text`` with every number in scientific notation (``1e-06``) said as a chance
    (:func:`chance`)."""
    return re.sub(r"\b\d+(?:\.\d+)?e-\d+\b", lambda m: chance(float(m.group(0))), text)


def round_target(medians: Any) -> float:
    """A round default target error for "what does each estimator need": the value of the
    1–2–5 series nearest (on a log scale) to the median of the finite positive ``medians``
    (1.0 when there is none).

    >>> round_target([0.7, 1.5]), round_target([0.03, 0.04]), round_target([])
    (1.0, 0.05, 1.0)
    """
    v = np.asarray(medians, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if not v.size:
        return 1.0
    centre = float(np.median(np.log10(v)))
    decade = math.floor(centre)
    steps = [m * 10.0**k for k in (decade - 1, decade, decade + 1) for m in (1.0, 2.0, 5.0)]
    best = min(steps, key=lambda t: abs(math.log10(t) - centre))
    return float(f"{best:.3g}")


def outliers_note(cfg: ExperimentConfig, data: pd.DataFrame) -> str | None:
    """On contaminated data, why the error can rise with the budget and why the floor line sits
    above the robust estimators, with the floor's value at the base point from ``data`` (the
    chart's data); ``None`` on other data.
    """
    if cfg.distribution != "contaminated":
        return None
    eta = float(cfg.data_params.get("eta", 0.05))
    shift = float(cfg.data_params.get("shift", 20.0))
    floor = data[data["kind"] == "floor"]
    at = (
        floor.iloc[int(np.argmin(np.abs(np.log(floor["budget"] / cfg.budget))))]
        if len(floor)
        else None
    )
    level = f" ({plain(float(at['median']))} here)" if at is not None else ""
    return (
        f"**Heavy tails:** {eta:.0%} of the rows are outliers {shift:g}σ away on every coordinate, "
        "and the error is measured against the clean rows' mean. The non-private mean follows the "
        f"outliers{level}, so its line is no floor here. More budget lets an estimator follow its "
        "data more faithfully, outliers included: an estimator whose clipping region grows to take "
        "them in gets worse as the budget grows, while one with a robust (median-based) centre and "
        "radius keeps cutting them off."
    )


def far_off_view(tails: pd.DataFrame) -> pd.DataFrame:
    """:func:`~dpcore.experiments.engine.tail_table` as the page shows it: readable headers and
    numbers to 3 significant figures (the raw table is the one to download)."""
    return pd.DataFrame(
        {
            "estimator": tails["label"],
            "typical median error": [plain(v) for v in tails["median"]],
            "far-off runs": [f"{v:.0%}" for v in tails["failure_rate"]],
            "worst run ÷ its median": [times(v) for v in tails["worst_ratio"]],
            "runs": [f"{int(v):,}" for v in tails["runs"]],
        }
    )


def target_sentence(
    needed: pd.DataFrame, by: str, target: float, metric: str, unit: str = "rho"
) -> str:
    """The accuracy-first result in words: the private estimator that needs least, and the next one.

    Needs at the sweep's smallest value are reported as "at most" (the sweep cannot say how much
    less would do), and ratios below 1.05 as "about the same" (never "1 times more").
    """
    col = f"{by}_needed"
    what = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}.get(unit, "budget") if by == "budget" else "n"
    values = needed[col].to_numpy()
    ok = np.flatnonzero(pd.notna(values) & needed["private"].astype(bool).to_numpy())
    mlabel = METRIC_LABEL.get(metric, metric)
    if not ok.size:
        return f"No private estimator reaches a median {mlabel} error of {_fmt(target)} within this sweep."
    labels = needed["label"].to_numpy(object)
    floor = [str(n).startswith("already") for n in needed["note"].to_numpy(object)]

    def amount(i: int) -> str:
        return (
            f"{what} ≤ {_fmt(values[i])} (the sweep's smallest)"
            if floor[i]
            else f"{what} ≈ {_fmt(values[i])}"
        )

    best = ok[0]
    words = (
        f"For a median {mlabel} error of {_fmt(target)}, **{labels[best]}** needs {amount(best)}"
    )
    if ok.size > 1:
        other = ok[1]
        ratio = float(values[other] / values[best])
        if floor[best] and floor[other]:
            words += f"; {labels[other]} also reaches it at the sweep's smallest {what}: pick a smaller target"
        elif ratio < 1.05:
            words += f"; the next, {labels[other]}, needs about the same ({_fmt(values[other])})"
        else:
            words += (
                f"; the next, {labels[other]}, needs {_fmt(values[other])} ({times(ratio)} as much)"
            )
    return words + ". Interpolated on the sweep (log–log), never extrapolated."
