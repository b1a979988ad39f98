"""A lower confidence bound on the privacy loss of a registered estimator, from its outputs.

The statistics
--------------
Run the estimator, **through its public registry entry**, ``m`` times on ``D`` and ``m`` times on a
neighbour ``D′`` (:mod:`dpcore.audit.neighbours`), and reduce each release to one number ``T``: the
average of the released coordinates, i.e. the projection of the output on the direction in which the
changed row moved (for ``d = 1`` the released mean itself). ``T`` is post-processing of the release,
so whatever guarantee the release has, ``T`` has too.

An *event* is a threshold set ``E = {T > t}``, ``{T ≥ t}``, ``{T < t}`` or ``{T ≤ t}``, with ``D``
or ``D′`` in the numerator. If the release is ``(ε, δ)``-DP then for every event and both orders

    P_D(E) ≤ e^ε · P_D′(E) + δ,   so   ε ≥ ln((P_D(E) − δ) / P_D′(E)).

Pure ``ε``-DP is ``δ = 0``. A ``ρ``-zCDP claim is audited through the ``(ε(δ), δ)``-DP guarantees it
implies (:func:`dpcore.privacy.zcdp_to_approx`, Canonne–Kamath–Steinke), at one ``δ`` from
:data:`ZCDP_DELTAS`, chosen with the event.

Why the result is a valid lower bound (at confidence ``1 − α``)
-------------------------------------------------------------------
1. **Selection on one half, evaluation on the other.** The pair, the event, its direction and (for
   zCDP) ``δ`` are chosen on a first batch of ``m`` draws per data set, by the bound they would give
   there. The reported bound uses a *fresh* second batch of ``m`` draws of the chosen pair only, so
   on that batch exactly one event is tested and no multiple-comparison correction is needed
   (choosing among many events on the first half costs nothing but draws).
2. **Clopper–Pearson.** On the fresh batch, with ``k`` and ``k′`` hits out of ``m``, take the exact
   one-sided binomial bounds ``p_lo = Beta⁻¹(α/2; k, m − k + 1)`` for the numerator probability and
   ``p_hi = Beta⁻¹(1 − α/2; k′ + 1, m − k′)`` for the denominator. By a union bound both hold at
   once with probability at least ``1 − α``, and then

       ε_true ≥ ln((P_D(E) − δ)/P_D′(E)) ≥ ln((p_lo − δ)/p_hi) =: ε̂   (floored at 0).

So ``ε̂`` exceeds the estimator's true privacy loss on this pair with probability at most ``α``; an
``ε̂`` above the claimed ``ε`` (or ``ε(δ)``) is evidence, at confidence ``1 − α``, that the claim is
false. The converse does not hold: an ``ε̂`` below the claim proves nothing (the pair, the statistic
or the number of draws may be too weak); it only says this audit found no violation.

References
----------
Jagielski, M., Ullman, J. and Oprea, A. "Auditing Differentially Private Machine Learning: How
Private is Private SGD?" NeurIPS 2020 (threshold events, Clopper–Pearson bounds).
Nasr, M., Song, S., Thakurta, A., Papernot, N. and Carlini, N. "Adversary Instantiation: Lower
Bounds for Differentially Private Machine Learning." IEEE S&P 2021.
Canonne, C., Kamath, G. and Steinke, T. "The Discrete Gaussian for Differential Privacy." NeurIPS
2020 (zCDP ⇒ (ε, δ)). Issue 11 ("One audit, in dpcore and in the app").
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from dpcore import registry
from dpcore._validation import RngLike, as_generator
from dpcore.audit.broken import variant_runner
from dpcore.audit.neighbours import N_LADDER, NeighbourPair, audit_dimension, pairs_for
from dpcore.audit.runners import Runner, entry_runner
from dpcore.privacy import Budget, zcdp_to_approx

#: The δ at which a zCDP claim is compared (one is chosen per audit, on the selection half).
ZCDP_DELTAS = (1e-1, 5e-2, 1e-2, 1e-3)
#: Quantile levels of the pooled selection draws used as candidate thresholds.
_LEVELS = np.linspace(0.0, 1.0, 201)


@dataclass(frozen=True)
class Claim:
    """The guarantee a budget claims: ``(ε, δ)``-DP at the stated ``δ`` (``δ = 0``: pure DP)."""

    budget: str
    notion: str
    epsilon: float
    delta: float
    rho: float | None = None

    def describe(self) -> str:
        if self.notion == "pure":
            return f"ε = {self.epsilon:.3g} (pure DP)"
        if self.notion == "zcdp":
            return f"ρ = {self.rho:g} ⇒ (ε, δ) = ({self.epsilon:.3g}, {self.delta:g})"
        return f"(ε, δ) = ({self.epsilon:.3g}, {self.delta:g})"


def claims_for(budget: Budget) -> list[Claim]:
    """The ``(ε, δ)`` pairs ``budget`` claims: one for pure and approximate DP, one per
    :data:`ZCDP_DELTAS` for ``ρ``-zCDP (each the CKS conversion, a valid implication)."""
    if budget.notion == "pure":
        return [Claim(str(budget), "pure", budget.epsilon_value, 0.0)]
    if budget.notion == "approx":
        return [Claim(str(budget), "approx", budget.epsilon_value, budget.delta_value)]
    return [
        Claim(str(budget), "zcdp", zcdp_to_approx(budget.rho_value, dl), dl, budget.rho_value)
        for dl in ZCDP_DELTAS
    ]


@dataclass(frozen=True)
class Event:
    """A threshold event on the 1-D statistic, with the data set whose probability is on top."""

    op: str
    threshold: float
    numerator: str

    def describe(self) -> str:
        other = "D′" if self.numerator == "D" else "D"
        return f"P_{self.numerator}(T {self.op} {self.threshold:.4g}) / P_{other}(T {self.op} {self.threshold:.4g})"

    def hits(self, t: np.ndarray) -> np.ndarray:
        return _OPS[self.op](np.asarray(t), self.threshold)


_OPS: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    ">": np.greater,
    "≥": np.greater_equal,
    "<": np.less,
    "≤": np.less_equal,
}


@dataclass(frozen=True)
class AuditResult:
    """The outcome of one audit.

    Attributes
    ----------
    estimator : str
        Registry name audited.
    variant : str
        ``"honest"`` or the broken-on-purpose variant (:mod:`dpcore.audit.broken`).
    relation : str
        Neighbouring relation the pairs were built for.
    claim : Claim
        The guarantee checked (at the ``δ`` used).
    epsilon_lower : float
        ``ε̂``: lower confidence bound on the privacy loss at ``claim.delta``.
    epsilon_point : float
        Plug-in ``ln((p̂ − δ)/p̂′)`` on the evaluation half (no confidence; for display).
    confidence : float
        ``1 − α``.
    pair : NeighbourPair
        The pair achieving the bound.
    event : Event
        The event achieving it.
    hits : (int, int)
        Hits of the event under the numerator and the denominator data set, out of ``draws``.
    draws : int
        Draws per data set on the evaluation half (the selection half used as many again).
    t_d, t_d_prime : arrays
        The statistic on the evaluation half under ``D`` and ``D′`` (for pictures).
    """

    estimator: str
    variant: str
    relation: str
    claim: Claim
    epsilon_lower: float
    epsilon_point: float
    confidence: float
    pair: NeighbourPair
    event: Event
    hits: tuple[int, int]
    draws: int
    t_d: np.ndarray = field(repr=False)
    t_d_prime: np.ndarray = field(repr=False)

    @property
    def violated(self) -> bool:
        """True when the lower bound exceeds the claim: the claim is false at this confidence."""
        return self.epsilon_lower > self.claim.epsilon

    def summary(self) -> dict[str, Any]:
        """One row for a table."""
        return {
            "estimator": self.estimator,
            "variant": self.variant,
            "relation": self.relation,
            "claim": self.claim.describe(),
            "claimed ε": self.claim.epsilon,
            "δ": self.claim.delta,
            "audited ε̂ (lower bound)": self.epsilon_lower,
            "plug-in ε": self.epsilon_point,
            "confidence": self.confidence,
            "pair": self.pair.label,
            "event": self.event.describe(),
            "hits": f"{self.hits[0]} / {self.hits[1]} of {self.draws}",
            "violated": self.violated,
        }


# --------------------------------------------------------------------------------------------
# Clopper–Pearson


def cp_lower(k: np.ndarray | int, m: int, alpha: float) -> np.ndarray:
    """One-sided ``1 − alpha`` Clopper–Pearson lower bound on a binomial probability."""
    k = np.asarray(k, float)
    out = stats.beta.ppf(alpha, np.maximum(k, 1e-300), m - k + 1)
    return np.where(k <= 0, 0.0, out)


def cp_upper(k: np.ndarray | int, m: int, alpha: float) -> np.ndarray:
    """One-sided ``1 − alpha`` Clopper–Pearson upper bound on a binomial probability."""
    k = np.asarray(k, float)
    out = stats.beta.ppf(1.0 - alpha, k + 1, np.maximum(m - k, 1e-300))
    return np.where(k >= m, 1.0, out)


def _log_ratio(top: np.ndarray, bottom: np.ndarray, delta: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(np.maximum(top - delta, 0.0) / bottom)
    return np.where(np.isfinite(r), np.maximum(r, 0.0), 0.0)


# --------------------------------------------------------------------------------------------
# runners (every draw goes through registry.get(name).run)


def statistic(runner: Runner, x: np.ndarray, draws: int, g: np.random.Generator) -> np.ndarray:
    """``draws`` values of the 1-D statistic (mean of the released coordinates) on ``x``.

    One public call per draw: the point of the audit is to exercise the public entry, so this
    loops over repetitions (each call is vectorised inside)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.fromiter((float(np.mean(runner(x, g))) for _ in range(draws)), float, count=draws)


def minimal_n(
    name: str,
    *,
    relation: str | None = None,
    d: int | None = None,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> int:
    """The smallest ``n`` in :data:`N_LADDER` on which the estimator runs on every pair."""
    spec = registry.get(name)
    rel = relation or spec.neighbouring
    d = d or audit_dimension(spec)
    budget = Budget.pure(1.0) if spec.notion == "pure" else Budget.zcdp(0.5)
    g = np.random.default_rng(0)
    for n in N_LADDER:
        try:
            for p in pairs_for(rel, n=n, d=d, bounds=bounds):
                run = entry_runner(name, budget, p)
                statistic(run, p.x, 1, g)
                statistic(run, p.x_prime, 1, g)
        except ValueError:
            continue
        return n
    raise ValueError(f"{name!r} does not run on any n in {N_LADDER}; pass n= explicitly.")


# --------------------------------------------------------------------------------------------
# event selection and evaluation


@dataclass(frozen=True)
class _Choice:
    score: float
    pair_index: int
    event: Event
    claim: Claim


def _candidates(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pooled = np.concatenate([a, b])
    return np.unique(np.quantile(pooled, _LEVELS))


def _best_event(
    a: np.ndarray, b: np.ndarray, claims: Sequence[Claim], alpha: float, pair_index: int
) -> _Choice:
    """The event, direction and claim (δ) with the largest ``ε̂ − ε_claim`` on these draws."""
    m = a.size
    t = _candidates(a, b)
    sa, sb = np.sort(a), np.sort(b)
    best: _Choice | None = None
    counts = {
        ">": lambda s: s.size - np.searchsorted(s, t, side="right"),
        "≥": lambda s: s.size - np.searchsorted(s, t, side="left"),
        "<": lambda s: np.searchsorted(s, t, side="left"),
        "≤": lambda s: np.searchsorted(s, t, side="right"),
    }
    for op, count in counts.items():
        ka, kb = count(sa), count(sb)
        for top, bottom, num in ((ka, kb, "D"), (kb, ka, "D′")):
            lo, hi = cp_lower(top, m, alpha / 2), cp_upper(bottom, m, alpha / 2)
            for c in claims:
                score = _log_ratio(lo, hi, c.delta) - c.epsilon
                i = int(np.argmax(score))
                if best is None or score[i] > best.score:
                    best = _Choice(float(score[i]), pair_index, Event(op, float(t[i]), num), c)
    assert best is not None
    return best


def audit(
    name: str,
    budget: Budget,
    *,
    variant: str = "honest",
    draws: int = 2000,
    confidence: float = 0.99,
    n: int | None = None,
    pair_keys: Sequence[str] | None = None,
    rng: RngLike = 0,
) -> AuditResult:
    """Audit a registered estimator on worst-case neighbours of its declared relation.

    Parameters
    ----------
    name : str
        Registry name.
    budget : Budget
        The budget passed to the public entry; its guarantee is the claim checked.
    variant : str
        ``"honest"`` (the registry entry as is) or a broken-on-purpose variant from
        :func:`dpcore.audit.broken.variants_for`, run under the same claim.
    draws : int
        Draws per data set and per half (selection, then evaluation), at least 100.
    confidence : float
        ``1 − α`` of the lower bound, in (0, 1).
    n : int, optional
        Rows of ``D`` (default: the smallest in :data:`N_LADDER` the estimator runs on).
    pair_keys : sequence of str, optional
        Restrict to these pairs (:func:`dpcore.audit.neighbours.pairs_for` keys).
    rng : None, int or Generator

    Returns
    -------
    AuditResult

    Raises
    ------
    ValueError
        For the non-private reference, an unknown variant or pair, or bad ``draws``/``confidence``.

    References
    ----------
    Jagielski et al. 2020; Nasr et al. 2021 (see the module docstring for the statistics).
    """
    spec = registry.get(name)
    if spec.notion == "none":
        raise ValueError(
            f"{name!r} is the non-private reference: it claims nothing, so there is nothing to audit."
        )
    if int(draws) < 100:
        raise ValueError(f"draws must be at least 100 per data set; got {draws!r}.")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1), e.g. 0.99; got {confidence!r}.")
    draws, alpha = int(draws), 1.0 - float(confidence)
    relation, make = variant_runner(name, variant, budget)
    d = audit_dimension(spec)
    n = int(n) if n is not None else minimal_n(name, relation=relation, d=d)
    pairs = pairs_for(relation, n=n, d=d)
    if pair_keys is not None:
        known = {p.key for p in pairs}
        if not set(pair_keys) <= known:
            raise ValueError(
                f"pair_keys must be among {sorted(known)} for {relation}; got {list(pair_keys)}."
            )
        pairs = [p for p in pairs if p.key in pair_keys]
    claims = claims_for(budget)
    g = as_generator(rng)
    best: _Choice | None = None
    for i, p in enumerate(pairs):
        run = make(p)
        choice = _best_event(
            statistic(run, p.x, draws, g), statistic(run, p.x_prime, draws, g), claims, alpha, i
        )
        if best is None or choice.score > best.score:
            best = choice
    assert best is not None
    pair = pairs[best.pair_index]
    run = make(pair)
    ta, tb = statistic(run, pair.x, draws, g), statistic(run, pair.x_prime, draws, g)
    ev = best.event
    ka, kb = int(ev.hits(ta).sum()), int(ev.hits(tb).sum())
    top, bottom = (ka, kb) if ev.numerator == "D" else (kb, ka)
    lower = float(
        _log_ratio(
            cp_lower(top, draws, alpha / 2), cp_upper(bottom, draws, alpha / 2), best.claim.delta
        )
    )
    with np.errstate(divide="ignore"):
        point = float(
            _log_ratio(
                np.asarray(top / draws), np.asarray(max(bottom, 0.5) / draws), best.claim.delta
            )
        )
    return AuditResult(
        name,
        variant,
        relation,
        best.claim,
        lower,
        point,
        float(confidence),
        pair,
        ev,
        (top, bottom),
        draws,
        ta,
        tb,
    )


def likelihood_ratio(
    t_d: np.ndarray, t_d_prime: np.ndarray, bins: int = 40, min_count: int = 5
) -> dict[str, np.ndarray]:
    """Histogram both samples on common bins and return the per-bin log ratio ``ln(p_D/p_D′)``.

    Bins with fewer than ``min_count`` draws on either side get ``nan`` (too noisy to show);
    ``se`` is the delta-method standard error ``sqrt(1/k + 1/k′)`` of each log ratio. This is a
    picture of the privacy loss, not a bound: the bound is :func:`audit`'s ``epsilon_lower``.
    """
    lo, hi = float(min(t_d.min(), t_d_prime.min())), float(max(t_d.max(), t_d_prime.max()))
    if not hi > lo:
        hi = lo + 1e-9
    edges = np.linspace(lo, hi, int(bins) + 1)
    ca, _ = np.histogram(t_d, edges)
    cb, _ = np.histogram(t_d_prime, edges)
    ok = (ca >= min_count) & (cb >= min_count)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.where(ok, np.log((ca / t_d.size) / (cb / t_d_prime.size)), np.nan)
        se = np.where(ok, np.sqrt(1.0 / ca + 1.0 / cb), np.nan)
    return {
        "left": edges[:-1],
        "right": edges[1:],
        "centre": 0.5 * (edges[:-1] + edges[1:]),
        "count_d": ca,
        "count_d_prime": cb,
        "log_ratio": lr,
        "se": se,
    }


def audit_all(
    budget_pure: Budget,
    budget_zcdp: Budget,
    *,
    draws: int = 2000,
    confidence: float = 0.99,
    rng: int = 0,
) -> list[AuditResult]:
    """Audit every private registered estimator (pure ones at ``budget_pure``, zCDP ones at
    ``budget_zcdp``); for a notebook or a report. Takes a few minutes."""
    out = []
    for spec in registry.all_estimators():
        if spec.notion == "none":
            continue
        b = budget_pure if spec.notion == "pure" else budget_zcdp
        out.append(audit(spec.name, b, draws=draws, confidence=confidence, rng=rng))
    return out
