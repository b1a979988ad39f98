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
