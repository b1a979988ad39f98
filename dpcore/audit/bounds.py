"""The statistics of the audit: claims, events, and exact lower confidence bounds on the loss.

Claims
------
A budget's guarantee is checked in the estimator's native notion (:func:`claims_for`):

* pure ``ε``-DP: ``P_D(E) ≤ e^ε P_D′(E)`` for every event ``E`` (``δ = 0``);
* ``ρ``-zCDP: the ``(ε(δ), δ)``-DP guarantees it implies (:func:`dpcore.privacy.zcdp_to_approx`,
  Canonne–Kamath–Steinke), at one ``δ`` of :data:`ZCDP_DELTAS` chosen with the event;
* ``μ``-GDP, for an entry whose every stage is a Gaussian mechanism (a Gaussian release of
  sensitivity ``Δ`` and standard deviation ``σ = Δ/√(2ρ)`` is exactly ``μ``-GDP with
  ``μ = Δ/σ = √(2ρ)``, and Gaussian mechanisms compose to ``√(Σ μ_i²) = √(2 Σ ρ_i)``): every test
  of ``D`` against ``D′`` has ``FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ)``, i.e.
  ``μ ≥ Φ⁻¹(P_D′(E)) − Φ⁻¹(P_D(E))``. This is the tight claim for such a release, and far more
  powerful than a point of the zCDP curve against a small cut in the noise.

Bounds
------
With ``k`` hits of the event on the numerator data set and ``k′`` on the other, out of ``m`` fresh
draws each, the exact one-sided Clopper–Pearson bounds ``p_lo = Beta⁻¹(α/2; k, m − k + 1)`` and
``p_hi = Beta⁻¹(1 − α/2; k′ + 1, m − k′)`` hold together with probability at least ``1 − α`` (union
bound), and then

    ε ≥ ln((p_lo − δ)/p_hi)              (ε claims)
    μ ≥ Φ⁻¹(p_lo) − Φ⁻¹(p_hi)            (μ claims: Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) with FPR, FNR upper bounds)

each floored at 0. Both are increasing in ``p_lo`` and decreasing in ``p_hi``, so the bound is a
valid lower confidence bound on the true loss of this event at level ``1 − α``.

References
----------
Jagielski, M., Ullman, J. and Oprea, A. NeurIPS 2020 (threshold events, Clopper–Pearson).
Dong, J., Roth, A. and Su, W. "Gaussian Differential Privacy." JRSS-B 2022 (μ-GDP, trade-off).
Nasr, M. et al. "Tight Auditing of Differentially Private Machine Learning." USENIX Security 2023
(auditing a GDP claim from the two error rates).
Canonne, C., Kamath, G. and Steinke, T. NeurIPS 2020 (zCDP ⇒ (ε, δ)).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpcore.privacy import Budget, zcdp_to_approx

#: The δ at which a zCDP claim is compared (one is chosen per audit, on the selection draws).
ZCDP_DELTAS = (1e-1, 5e-2, 1e-2, 1e-3, 1e-4)
#: Quantile levels of the pooled selection draws used as candidate thresholds.
LEVELS = np.linspace(0.0, 1.0, 201)


@dataclass(frozen=True)
class Claim:
    """One guarantee to check: ``(ε, δ)``-DP (``δ = 0``: pure) or ``μ``-GDP.

    Attributes
    ----------
    budget : str
        The native budget it comes from (``"ε = 1"``, ``"ρ = 0.5"``).
    notion : {"pure", "zcdp", "gdp"}
    epsilon, delta : float
        The ``(ε, δ)`` checked (``nan`` for a GDP claim).
    rho, mu : float or None
        The zCDP ``ρ`` behind it, and the GDP ``μ = √(2ρ)`` for a GDP claim.
    """

    budget: str
    notion: str
    epsilon: float
    delta: float
    rho: float | None = None
    mu: float | None = None

    @property
    def measure(self) -> str:
        """``"μ"`` for a GDP claim, else ``"ε"``."""
        return "μ" if self.notion == "gdp" else "ε"

    @property
    def value(self) -> float:
        """The number the audited bound is compared with (``μ`` or ``ε``)."""
        return float(self.mu) if self.notion == "gdp" and self.mu is not None else self.epsilon

    def describe(self) -> str:
        if self.notion == "pure":
            return f"ε = {self.epsilon:.3g} at δ = 0 (pure DP)"
        if self.notion == "gdp":
            return f"ρ = {self.rho:g} for Gaussian releases ⇒ μ-GDP with μ = √(2ρ) = {self.mu:.3g}"
        if self.notion == "zcdp":
            return f"ρ = {self.rho:g} ⇒ (ε, δ) = ({self.epsilon:.3g}, {self.delta:g})"
        return f"(ε, δ) = ({self.epsilon:.3g}, {self.delta:g})"


def claims_for(budget: Budget, *, gaussian: bool = False) -> list[Claim]:
    """The claims a native budget makes: one for pure ε (and approximate DP), one per
    :data:`ZCDP_DELTAS` for ``ρ``-zCDP, or the single ``μ = √(2ρ)`` GDP claim when ``gaussian``
    (every stage a Gaussian mechanism)."""
    if budget.notion == "pure":
        return [Claim(str(budget), "pure", budget.epsilon_value, 0.0)]
    if budget.notion == "approx":
        return [Claim(str(budget), "approx", budget.epsilon_value, budget.delta_value)]
    rho = budget.rho_value
    if gaussian:
        return [Claim(str(budget), "gdp", math.nan, 0.0, rho, math.sqrt(2.0 * rho))]
    return [Claim(str(budget), "zcdp", zcdp_to_approx(rho, dl), dl, rho) for dl in ZCDP_DELTAS]


# --------------------------------------------------------------------------------------------
# Clopper–Pearson and the two transforms


def cp_lower(k: np.ndarray | int, m: int, alpha: float) -> np.ndarray:
    """One-sided ``1 − alpha`` Clopper–Pearson lower bound on a binomial probability."""
    return _cp(k, m, alpha, upper=False)


def cp_upper(k: np.ndarray | int, m: int, alpha: float) -> np.ndarray:
    """One-sided ``1 − alpha`` Clopper–Pearson upper bound on a binomial probability."""
    return _cp(k, m, alpha, upper=True)


#: Below this many draws, bounds for many counts at once are read off a table of every count.
CP_TABLE_MAX = 5000


def _cp(k: np.ndarray | int, m: int, alpha: float, *, upper: bool) -> np.ndarray:
    k = np.asarray(k, float)
    whole = k.ndim > 0 and int(m) == m <= CP_TABLE_MAX and np.all((k >= 0) & (k <= m))
    if whole and np.array_equal(k, np.round(k)):
        return _cp_table(int(m), float(alpha), upper)[k.astype(int)]
    return _cp_formula(k, m, alpha, upper)


@functools.lru_cache(maxsize=64)
def _cp_table(m: int, alpha: float, upper: bool) -> np.ndarray:
    """The bound for every count ``0..m`` (a pure function of public numbers, kept per process:
    :func:`best_event` asks for thousands of counts at the same ``m`` and ``alpha``)."""
    table = _cp_formula(np.arange(m + 1, dtype=float), m, alpha, upper)
    table.setflags(write=False)
    return table


def _cp_formula(k: np.ndarray, m: int, alpha: float, upper: bool) -> np.ndarray:
    if upper:
        out = stats.beta.ppf(1.0 - alpha, k + 1, np.maximum(m - k, 1e-300))
        return np.where(k >= m, 1.0, out)
    out = stats.beta.ppf(alpha, np.maximum(k, 1e-300), m - k + 1)
    return np.where(k <= 0, 0.0, out)


def loss_bound(top: np.ndarray, bottom: np.ndarray, claim: Claim) -> np.ndarray:
    """The loss implied by probabilities ``top`` (numerator) and ``bottom``, floored at 0:
    ``ln((top − δ)/bottom)`` for an ε claim, ``Φ⁻¹(top) − Φ⁻¹(bottom)`` for a μ claim."""
    top, bottom = np.asarray(top, float), np.asarray(bottom, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if claim.notion == "gdp":
            r = stats.norm.ppf(top) - stats.norm.ppf(bottom)
        else:
            r = np.log(np.maximum(top - claim.delta, 0.0) / bottom)
    return np.where(np.isfinite(r), np.maximum(r, 0.0), np.where(r > 0, np.inf, 0.0))


# --------------------------------------------------------------------------------------------
# statistics and events


def statistics(out: np.ndarray, x: np.ndarray) -> dict[str, np.ndarray]:
    """The 1-D statistics of releases ``out`` (shape ``(m, d)``) audited on data ``D = x``.

    ``"coordinate 1"`` (the first released coordinate), ``"mean"`` (the mean of the released
    coordinates: the projection on the direction every coordinate moved in) and ``"l2 norm"``
    (the distance of the release from ``D``'s mean: large when the noise is). Each is
    post-processing of the release with public inputs, so it keeps the release's guarantee.
    """
    out = np.asarray(out, float).reshape(len(out), -1)
    centre = np.asarray(x, float).mean(axis=0)
    return {
        "coordinate 1": out[:, 0],
        "mean": out.mean(axis=1),
        "l2 norm": np.linalg.norm(out - centre, axis=1),
    }


_OPS: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    ">": np.greater,
    "≥": np.greater_equal,
    "<": np.less,
    "≤": np.less_equal,
}


@dataclass(frozen=True)
class Event:
    """A threshold event on one statistic, with the data set whose probability is on top."""

    op: str
    threshold: float
    numerator: str
    statistic: str = "mean"

    def describe(self) -> str:
        other = "D′" if self.numerator == "D" else "D"
        t = f"T {self.op} {self.threshold:.4g}"
        return f"P_{self.numerator}({t}) / P_{other}({t}), T = {self.statistic}"

    def hits(self, t: np.ndarray) -> np.ndarray:
        return _OPS[self.op](np.asarray(t), self.threshold)


@dataclass(frozen=True)
class Choice:
    """The event (and claim) chosen on the selection draws, with its score there."""

    score: float
    event: Event
    claim: Claim


_COUNTS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    ">": lambda s, t: s.size - np.searchsorted(s, t, side="right"),
    "≥": lambda s, t: s.size - np.searchsorted(s, t, side="left"),
    "<": lambda s, t: np.searchsorted(s, t, side="left"),
    "≤": lambda s, t: np.searchsorted(s, t, side="right"),
}


@functools.lru_cache(maxsize=16)
def _level_steps(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where :data:`LEVELS` fall in ``n`` sorted values: the indices below and above and the
    weight of the upper one (NumPy's "linear" method, ``(n - 1) q``)."""
    virtual = (n - 1) * LEVELS
    below = np.floor(virtual)
    above = below + 1
    weight = virtual - below
    below = np.clip(below, 0, n - 1).astype(np.intp)
    above = np.clip(above, 0, n - 1).astype(np.intp)
    return below, above, weight


def _level_quantiles(values: np.ndarray) -> np.ndarray:
    """``np.quantile(values, LEVELS)`` (the same numbers: its linear interpolation, with the
    steps kept per size), sorting once instead of a partition per call."""
    below, above, weight = _level_steps(values.size)
    s = np.sort(values)
    a, b = s[below], s[above]
    diff = b - a
    out = a + diff * weight
    np.subtract(b, diff * (1 - weight), out=out, where=weight >= 0.5)
    return out


def best_event(
    stats_d: Mapping[str, np.ndarray],
    stats_dp: Mapping[str, np.ndarray],
    claims: Sequence[Claim],
    alpha: float,
) -> Choice:
    """The statistic, threshold, direction and claim with the largest ``bound − claim`` on these
    draws (the bound each would give with the Clopper–Pearson bounds at ``alpha/2`` each)."""
    best: Choice | None = None
    ops = list(_COUNTS)
    for name, a in stats_d.items():
        b = stats_dp[name]
        m = a.size
        t = np.unique(_level_quantiles(np.concatenate([a, b])))
        sa, sb = np.sort(a), np.sort(b)
        ka = np.stack([_COUNTS[op](sa, t) for op in ops])  # (op, threshold)
        kb = np.stack([_COUNTS[op](sb, t) for op in ops])
        top, bottom = np.stack([ka, kb], axis=1), np.stack([kb, ka], axis=1)  # (op, D | D′, t)
        lo, hi = cp_lower(top, m, alpha / 2), cp_upper(bottom, m, alpha / 2)
        # every (op, direction, claim, threshold) at once; the first largest in that order
        score = np.stack([loss_bound(lo, hi, c) - c.value for c in claims], axis=2)
        i_op, i_dir, i_claim, i = map(int, np.unravel_index(int(np.argmax(score)), score.shape))
        if best is None or score[i_op, i_dir, i_claim, i] > best.score:
            event = Event(ops[i_op], float(t[i]), ("D", "D′")[i_dir], name)
            best = Choice(float(score[i_op, i_dir, i_claim, i]), event, claims[i_claim])
    assert best is not None
    return best


def evaluate(
    event: Event, claim: Claim, t_d: np.ndarray, t_dp: np.ndarray, alpha: float
) -> tuple[float, float, tuple[int, int]]:
    """``(lower bound, plug-in, (hits on top, hits on bottom))`` of ``event`` on fresh draws."""
    m = t_d.size
    ka, kb = int(event.hits(t_d).sum()), int(event.hits(t_dp).sum())
    top, bottom = (ka, kb) if event.numerator == "D" else (kb, ka)
    lower = float(loss_bound(cp_lower(top, m, alpha / 2), cp_upper(bottom, m, alpha / 2), claim))
    point = float(loss_bound(np.asarray(top / m), np.asarray(max(bottom, 0.5) / m), claim))
    return lower, point, (top, bottom)
