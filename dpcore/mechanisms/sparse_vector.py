"""AboveThreshold, the sparse-vector walk: a noisy threshold, then noisy queries of sensitivity 1.

With exponential noise of scales ``1/ε_T`` and ``1/ε_Q`` a walk is ``(ε_T + ε_Q)``-DP per column
for any walk length (Durfee 2023); with Gaussian noise it is the winsorized paper's Lemma D.1
walk, charged ``ρ_T + ρ_Q``.

References
----------
Durfee. "Unbounded Differentially Private Quantile and Maximum Estimation." NeurIPS 2023.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpcore._validation import RngLike, as_generator, check_positive
from dpcore.mechanisms.backend import _columns, _finite_value, _release_backend
from dpcore.mechanisms.stages import DRAWING, _active_notion, _charge, _observe, _record


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
