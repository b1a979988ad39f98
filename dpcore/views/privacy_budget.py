"""The Privacy budget page as a view: the differencing attack (exact, and against a private
release), the conversions between ε, (ε, δ) and ρ, what a budget risks, and each estimator's
ledger, all from one :class:`PrivacyBudgetSettings`.

Streams (:mod:`dpcore.streams`): the data from ``"data"``, the attack's releases from
``"display:attack"``, the success-against-budget curve from ``"display:attack-curve"``, each
estimator's ledger run from ``"noise:<name>"``. References: ``docs/architecture.md`` (Data flow).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore.data import Dataset
from dpcore.experiments import default_estimators
from dpcore.experiments.attack import (
    AttackRun,
    Differencing,
    attack,
    attack_curve,
    differencing,
    exact_sentence,
    success_sentence,
    tradeoff_points,
)
from dpcore.figures.style import ledger_frame
from dpcore.privacy import Budget
from dpcore.theory.risk import (
    deployments_on_scale,
    dp_tradeoff,
    gdp_mu,
    gdp_tradeoff,
    odds_epsilon,
    posterior_bound,
)
from dpcore.views.budget_tables import conversion_headers, conversion_table, deployments_table
from dpcore.views.settings import DataSettings, dataset

__all__ = ["ATTACK_DRAWS", "PrivacyBudgetSettings", "PrivacyBudgetView", "times", "view"]

#: Releases per data set in the attack lesson.
ATTACK_DRAWS = 2000

#: The unit's symbol on the attack curve's axis.
UNIT_LABEL = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}


@dataclass(frozen=True)
class PrivacyBudgetSettings:
    """The sidebar's record, the budgets the attack curve visits (the sidebar's presets; the
    visitor's own is added) and whether the ledgers show every estimator that applies."""

    data: DataSettings
    presets: tuple[float, ...]
    show_all: bool = False

    def code(self) -> str:
        """The notebook lines that compute this view (``v``) and its data and budget."""
        return (
            self.data.code()
            + "from dpcore.views.privacy_budget import PrivacyBudgetSettings, view\n"
            f"v = view(PrivacyBudgetSettings(settings, {self.presets!r}, {self.show_all!r}))\n"
        )


@dataclass(frozen=True)
class PrivacyBudgetView:
    """Everything the page shows (sentences in Markdown; figure inputs for dpcore.figures)."""

    run: AttackRun
    curve: pd.DataFrame
    exact: Differencing
    exact_sentence: str
    success_sentence: str
    estimator_label: str
    errors: np.ndarray
    what: str
    unit_label: str
    curve_sentence: str
    rho: float
    zcdp_meets: bool
    zcdp_rule: str
    pure_rule: str
    eps_pure: float
    eps_cks: float
    odds_sentence: str
    epsilon_delta_sentence: str
    odds_epsilon: float
    odds_delta: float
    posterior_sentence: str
    tradeoff_points: pd.DataFrame
    mu: float | None
    tradeoff_sentence: str
    deployments_rows: list
    deployments_sentence: str
    deployments: pd.DataFrame
    deployments_mine: np.ndarray
    conversions: pd.DataFrame
    conversions_mine: np.ndarray
    conversion_headers: dict[str, str]
    private: tuple[str, ...]
    names: tuple[str, ...]
    ledgers: pd.DataFrame
    ledger_sentence: str

    @property
    def ledger_key(self) -> tuple:
        """The ledgers' rows as a hashable key: the ledger chart is a function of them alone."""
        return tuple(self.ledgers.itertuples(index=False, name=None))


def times(eps: float) -> str:
    """``e**eps`` as "N times", without overflow for the largest budgets dpcore.limits allows.

    Examples
    --------
    >>> times(1.0), times(10.0), times(100.0)
    ('2.72 times', 'about 22,026 times', 'about 10^43 times')
    """
    if eps > 40:
        return f"about 10^{eps / math.log(10):.0f} times"
    factor = math.exp(eps)
    return f"{factor:.3g} times" if factor < 1000 else f"about {factor:,.0f} times"


def view(settings: PrivacyBudgetSettings) -> PrivacyBudgetView:
    """The page at ``settings`` (``ValueError`` naming the fix for an impossible budget or δ)."""
    s = settings.data
    budget = s.checked()
    data = dataset(s)
    lesson = _lesson(settings, data, budget)
    private, names, ledgers = _ledgers(settings, data)
    return PrivacyBudgetView(
        **lesson,
        **_conversions(s, budget),
        **_risk(s, budget, lesson["run"]),
        private=private,
        names=names,
        ledgers=ledgers,
        ledger_sentence=_ledger_sentence(ledgers),
    )


def _lesson(settings: PrivacyBudgetSettings, data: Dataset, budget: Budget) -> dict[str, Any]:
    """The differencing attack: exact, against the private release, and against the budget."""
    s = settings.data
    streams = s.streams
    run = attack(data, budget, draws=ATTACK_DRAWS, delta=s.delta, rng=streams.rng("display:attack"))
    values = tuple(sorted({*settings.presets, float(s.budget_value)}))
    curve = attack_curve(
        data,
        s.unit,
        values,
        delta=s.delta,
        draws=ATTACK_DRAWS,
        rng=streams.rng("display:attack-curve"),
    )
    unit_label = UNIT_LABEL[s.unit]
    lowest = curve.iloc[0]
    exact = differencing(data)
    return dict(
        run=run,
        curve=curve,
        exact=exact,
        exact_sentence=exact_sentence(exact),
        success_sentence=success_sentence(run),
        estimator_label=registry.get(run.estimator).label,
        errors=np.abs(run.releases - run.truth),
        what=f"the average of the first column ({run.n:,} people)",
        unit_label=unit_label,
        curve_sentence=(
            "Without noise the attacker is always right. With noise her success falls as the "
            f"budget shrinks: **{lowest.success:.0%}** at {unit_label} = {lowest.budget:g} (a coin "
            "flip is 50%), never above what the budget allows (dashed)."
        ),
    )


def _conversions(s: DataSettings, budget: Budget) -> dict[str, Any]:
    """The budget in each unit, the odds framing and the conversion table."""
    zconv = budget.implied_zcdp(s.delta)  # meets_budget is False only under a pure ε budget
    rho = zconv.value
    eps_pure = budget.to_native("pure").value
    eps_cks, _ = budget.to_approx(s.delta, "cks")
    eps_std, _ = budget.to_approx(s.delta, "standard")
    odds_eps = eps_pure if budget.notion != "approx" or budget.epsilon is None else budget.epsilon
    if budget.notion == "zcdp":
        odds_sentence = (
            f"With ρ = {rho:g}, any outcome can become at most **{times(eps_cks)}** more (or less) "
            f"likely because of one person, except with probability δ = {s.delta:g} (ε = "
            f"{eps_cks:.3g} by the tighter conversion; the textbook bound ρ + 2√(ρ ln 1/δ) says ε = "
            f"{eps_std:.3g})."
        )
    else:
        slack = "" if budget.notion == "pure" else f", except with probability δ = {budget.delta:g}"
        odds_sentence = (
            f"With ε = {odds_eps:g}, any outcome can become at most **eᵋ = {times(odds_eps)}** "
            f"more (or less) likely because one person's data is in the data set{slack}."
        )
    textbook = budget.to_approx(1e-6, "standard")[0] if budget.notion == "zcdp" else eps_std
    conversions, conversions_mine = conversion_table(budget, s.delta)
    return dict(
        rho=rho,
        zcdp_meets=zconv.meets_budget,
        zcdp_rule=zconv.rule,
        pure_rule=budget.to_native("pure").rule,
        eps_pure=eps_pure,
        eps_cks=eps_cks,
        odds_sentence=odds_sentence,
        epsilon_delta_sentence=(
            f"At δ = 10⁻⁶, ρ = {rho:.3g} gives ε = {budget.to_approx(1e-6, 'cks')[0]:.3g} by the "
            f"tighter conversion and {textbook:.3g} by the textbook one; halving δ costs little ε."
        ),
        conversions=conversions,
        conversions_mine=conversions_mine,
        conversion_headers=conversion_headers(s.delta),
    )


def _risk(s: DataSettings, budget: Budget, run: AttackRun) -> dict[str, Any]:
    """What a budget risks: an attacker's belief, the best test's errors, published budgets."""
    odds = odds_epsilon(budget, s.delta)
    at_half = float(posterior_bound(0.5, odds.epsilon))  # the posterior figure's curve at 50%
    points = tradeoff_points(run)
    gaussian = registry.get(run.estimator).notion == "zcdp"
    mu = gdp_mu(budget.to_native("zcdp").value) if gaussian else None
    # the trade-off figure's bound at 5% false positives
    miss = float(gdp_tradeoff(0.05, mu) if mu is not None else dp_tradeoff(0.05, odds.epsilon))
    rows = deployments_on_scale(s.delta)
    below = sum(eps < odds.epsilon for _, eps, _ in rows)
    deployments, deployments_mine = deployments_table(rows, budget, odds.epsilon)
    return dict(
        odds_epsilon=odds.epsilon,
        odds_delta=odds.delta,
        posterior_sentence=(
            "An attacker who thought something about one person was a coin flip (50%) can believe "
            f"it at most **{at_half:.0%}** after one release at your budget ({odds.rule}"
            + (", except with probability δ" if odds.delta else "")
            + ")."
        ),
        tradeoff_points=points,
        mu=mu,
        tradeoff_sentence=(
            f"No test can beat the curve: a Gaussian release at ρ = "
            f"{budget.to_native('zcdp').value:.3g} is μ = √(2ρ) = {mu:.3g} Gaussian DP, so at 5% "
            f"false positives an attacker misses at least **{miss:.0%}** of the time."
            if mu is not None
            else f"No test can beat the curve of ε = {odds.epsilon:.3g}: at 5% false positives an "
            f"attacker misses at least **{miss:.0%}** of the time."
        )
        + " The dots are the differencing attack above at several thresholds; the Privacy audit "
        "page puts its measured points on the same curve.",
        deployments_rows=rows,
        deployments_sentence=(
            f"Your budget reads as ε = {odds.epsilon:.3g}; {below} of the {len(rows)} published "
            "deployments listed chose a smaller ε. Their units differ (a whole census per person, "
            "a day of one user's data, a month of one analyst's queries), so compare with care."
        ),
        deployments=deployments,
        deployments_mine=deployments_mine,
    )


def _ledgers(
    settings: PrivacyBudgetSettings, data: Dataset
) -> tuple[tuple[str, ...], tuple[str, ...], pd.DataFrame]:
    """The private estimators that apply, those shown (the page's defaults unless ``show_all``)
    and their ledgers: one run each on its own noise stream."""
    s = settings.data
    budget = s.budget
    private = tuple(
        spec.name
        for spec in registry.applicable(data.kind, data.d)
        if spec.notion != "none" and spec.meets(budget)
    )
    main = [n for n in default_estimators(data.kind, s.unit, data.d) if n in private]
    names = tuple(private if settings.show_all or not main else main)
    pairs = [
        (registry.get(n), registry.get(n).run(data, budget, rng=s.streams.rng(f"noise:{n}")))
        for n in names
    ]
    return private, names, ledger_frame(pairs)


def _ledger_sentence(led: pd.DataFrame) -> str:
    if led.empty:
        return ""
    biggest = led.sort_values("share", ascending=False).iloc[0]
    return (
        f"Every bar adds up to the whole budget. The largest single share is {biggest.share:.0%} "
        f"({biggest.stage}) in {biggest.estimator}."
    )
