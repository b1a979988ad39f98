"""What a privacy budget risks, in closed form: the bound on an attacker's belief about one person,
the best attacker's trade-off between false positives and false negatives, the best rate of
guessing which of two values one person has, and reference budgets of real deployments.

A budget is read as an ``(ε, δ)`` pair (:func:`odds_epsilon`): a pure ε budget as itself, an
``(ε, δ)`` budget as given, a ρ-zCDP budget through the Canonne–Kamath–Steinke conversion at a
stated ``δ``. A Gaussian release of ρ-zCDP has an exact, tighter description: it is μ-Gaussian DP
with ``μ = √(2ρ)`` (:func:`gdp_tradeoff`).

References
----------
Kasiviswanathan & Smith, "On the 'semantics' of differential privacy: a Bayesian formulation",
J. Privacy and Confidentiality 6(1) (2014): the posterior odds bound.
Wasserman & Zhou, JASA 105 (2010), and Kairouz, Oh & Viswanath, ICML 2015: the trade-off of an
(ε, δ)-DP test. Dong, Roth & Su, "Gaussian differential privacy", JRSS B 84 (2022), Def. 2.6 and
Cor. 2.13: μ-GDP and the Gaussian mechanism. docs/lessons.md (the lessons these numbers feed) and
docs/reference-budgets.md (the deployments and their sources).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from dpcore._validation import check_positive
from dpcore.privacy import Budget, zcdp_to_approx

# --------------------------------------------------------------------------------------------
# reading a budget as odds


@dataclass(frozen=True)
class OddsBound:
    """A budget read as "odds at most ``factor`` times higher, except with probability ``delta``".

    Attributes
    ----------
    epsilon, delta : float
        The ``(ε, δ)`` the bound uses (``δ = 0`` for a pure budget).
    rule : str
        How the budget became this pair, in words.
    """

    epsilon: float
    delta: float
    rule: str

    @property
    def factor(self) -> float:
        """``e^ε``: how many times an attacker's odds about one person can grow (``inf`` past
        the float range)."""
        return math.exp(self.epsilon) if self.epsilon < 700 else math.inf


def odds_epsilon(budget: Budget, delta: float = 1e-6) -> OddsBound:
    """The ``(ε, δ)`` at which to read ``budget`` as an odds bound.

    Parameters
    ----------
    budget : Budget
        Pure ε, ``(ε, δ)`` or ρ-zCDP.
    delta : float
        The δ used to convert a ρ-zCDP budget (Canonne–Kamath–Steinke); ignored otherwise.

    Returns
    -------
    OddsBound

    Examples
    --------
    >>> round(odds_epsilon(Budget.pure(1.0)).factor, 3)
    2.718
    >>> b = odds_epsilon(Budget.zcdp(0.5), 1e-6)
    >>> round(b.epsilon, 2), b.delta
    (5.22, 1e-06)
    """
    if budget.notion == "pure":
        e = budget.epsilon_value
        return OddsBound(e, 0.0, f"pure ε = {e:g}")
    if budget.notion == "approx":
        e, d = budget.epsilon_value, budget.delta_value
        return OddsBound(e, d, f"(ε, δ) = ({e:g}, {d:g}) as given")
    e = zcdp_to_approx(budget.rho_value, delta, "cks")
    return OddsBound(
        e,
        float(delta),
        f"ρ = {budget.rho_value:g} ⇒ ε = {e:.3g} at δ = {delta:g} (Canonne–Kamath–Steinke)",
    )


def posterior_bound(prior: np.ndarray | float, epsilon: float) -> np.ndarray:
    """The largest belief an attacker can hold after seeing an ε-DP release, from ``prior``.

    The posterior odds are at most ``e^ε`` times the prior odds, so the posterior probability is at
    most ``p e^ε / (p e^ε + 1 − p)`` (for an ``(ε, δ)`` release this holds except with
    probability ``δ``).

    Examples
    --------
    >>> round(float(posterior_bound(0.5, math.log(3))), 6)
    0.75
    """
    e = check_positive(epsilon, "epsilon")
    p = np.clip(np.asarray(prior, float), 0.0, 1.0)
    if e > 700:
        return np.where(p > 0, 1.0, 0.0)
    f = math.exp(e)
    return p * f / (p * f + 1.0 - p)


def posterior_floor(prior: np.ndarray | float, epsilon: float) -> np.ndarray:
    """The smallest belief after an ε-DP release: the odds fall at most ``e^ε``-fold."""
    return 1.0 - posterior_bound(1.0 - np.asarray(prior, float), epsilon)


# --------------------------------------------------------------------------------------------
# the best attacker's trade-off and guessing rate


def gdp_mu(rho: float) -> float:
    """``μ = √(2ρ)``: a Gaussian release of ρ-zCDP is exactly μ-Gaussian DP."""
    return math.sqrt(2.0 * check_positive(rho, "rho"))


def gdp_tradeoff(alpha: np.ndarray | float, mu: float) -> np.ndarray:
    """The smallest false-negative rate of any test at false-positive rate ``alpha`` against a
    μ-GDP release: ``β(α) = Φ(Φ⁻¹(1 − α) − μ)``.

    Examples
    --------
    >>> round(float(gdp_tradeoff(0.05, 1.0)), 4)
    0.7405
    """
    a = np.clip(np.asarray(alpha, float), 0.0, 1.0)
    return stats.norm.cdf(stats.norm.ppf(1.0 - a) - float(mu))


def dp_tradeoff(alpha: np.ndarray | float, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """The same for an ``(ε, δ)``-DP release: ``β(α) = max(0, 1 − δ − e^ε α, e^−ε (1 − δ − α))``.

    Examples
    --------
    >>> round(float(dp_tradeoff(0.1, math.log(2))), 3)
    0.8
    """
    a = np.clip(np.asarray(alpha, float), 0.0, 1.0)
    e = float(epsilon)
    f = math.exp(min(e, 700.0))
    return np.maximum.reduce([np.zeros_like(a), 1.0 - delta - f * a, (1.0 - delta - a) / f])


def guess_rate_bound(epsilon: float, delta: float = 0.0) -> float:
    """The best rate of guessing which of two values one person has (each equally likely) from an
    ``(ε, δ)``-DP release: ``(e^ε + δ) / (1 + e^ε)``, at most 1.

    Examples
    --------
    >>> round(guess_rate_bound(math.log(3)), 3)
    0.75
    """
    e = float(epsilon)
    if e > 700:
        return 1.0
    f = math.exp(e)
    return min(1.0, (f + delta) / (1.0 + f))


def gdp_guess_rate(mu: float) -> float:
    """The best rate of the same guess against a μ-GDP release: ``Φ(μ/2)``.

    Examples
    --------
    >>> round(gdp_guess_rate(1.0), 4)
    0.6915
    """
    return float(stats.norm.cdf(float(mu) / 2.0))


# --------------------------------------------------------------------------------------------
# what large institutions chose


@dataclass(frozen=True)
class Deployment:
    """One published deployment's privacy budget.

    Attributes
    ----------
    who, what : str
        Organisation and data product.
    value : float
        The published parameter.
    unit : {"eps", "eps_delta", "rho"}
        The unit of ``value`` (``delta`` for ``eps_delta``).
    delta : float
        The published δ (0 when none).
    model : {"central", "local"}
        Central DP (a trusted curator adds the noise) or local DP (each device adds its own).
    per : str
        What the budget protects and over which period ("person, whole release", "user-day", ...).
    source : str
        The document the value is read from, with its year.
    short : str
        A label short enough for a phone's chart axis.
    read_at : float
        For a ρ, the δ its publisher reads it at (0 when none is stated): the ε scale converts it
        there instead of at the page's δ.
    """

    who: str
    what: str
    value: float
    unit: str
    delta: float
    model: str
    per: str
    source: str
    short: str = ""
    read_at: float = 0.0

    def budget(self) -> Budget:
        """The value as a :class:`~dpcore.privacy.Budget`."""
        return Budget.from_unit(self.unit, self.value, self.delta or None)

    def label(self) -> str:
        """``"ρ = 2.56"``, ``"ε = 4"`` or ``"(ε, δ) = (2.19, 1e-05)"``."""
        if self.unit == "rho":
            at = f", read at δ = {self.read_at:g}" if self.read_at else ""
            return f"ρ = {self.value:g}{at}"
        if self.unit == "eps_delta":
            return f"(ε, δ) = ({self.value:g}, {self.delta:g})"
        return f"ε = {self.value:g}"


#: Published budgets, each checked against the source it names (docs/reference-budgets.md lists
#: them with their sources and what each number protects).
DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment(
        "US Census Bureau",
        "2020 Census redistricting data (P.L. 94-171), persons",
        2.56,
        "rho",
        0.0,
        "central",
        "person, whole release",
        "DAS 2020 Redistricting Production Code (2021): global_scale = 339/542, ρ = (542/339)²",
        "Census 2020 persons",
        read_at=1e-10,
    ),
    Deployment(
        "Google",
        "COVID-19 Search Trends symptoms dataset",
        1.68,
        "eps",
        0.0,
        "central",
        "user-day",
        "Bavadekar et al., arXiv:2009.01265 (2020)",
        "Google symptoms",
    ),
    Deployment(
        "Google",
        "COVID-19 Vaccination Search Insights",
        2.19,
        "eps_delta",
        1e-5,
        "central",
        "user-day",
        "Bavadekar et al., arXiv:2107.01179 (2021)",
        "Google vaccination",
    ),
    *(
        Deployment(
            "Apple",
            what,
            eps,
            "eps",
            0.0,
            "local",
            "user-day",
            "Apple, Differential Privacy Overview (2017); per user-day in Desfontaines' list "
            "(2021)",
            f"Apple {short}",
        )
        for what, eps, short in (
            ("Health Type Usage", 2.0, "health"),
            ("Emoji suggestions", 4.0, "emoji"),
            ("QuickType suggestions", 16.0, "QuickType"),
        )
    ),
    Deployment(
        "LinkedIn",
        "Audience Engagements API",
        34.9,
        "eps_delta",
        7e-9,
        "central",
        "member, per analyst and month",
        "Rogers et al., arXiv:2002.05839 (2020)",
        "LinkedIn engagements",
    ),
)


def deployments_on_scale(delta: float = 1e-6) -> list[tuple[Deployment, float, float]]:
    """Every deployment with its ``ε`` and ``δ`` as an odds bound (:func:`odds_epsilon`; a ρ
    converted at the δ its publisher reads it at, else at ``delta``), smallest ``ε`` first.

    >>> census = [row for row in deployments_on_scale(1e-6) if row[0].short == "Census 2020 persons"]
    >>> round(census[0][1], 1), census[0][2]
    (17.2, 1e-10)
    """
    rows = [(dep, *_pair(odds_epsilon(dep.budget(), dep.read_at or delta))) for dep in DEPLOYMENTS]
    return sorted(rows, key=lambda row: row[1])


def _pair(bound: OddsBound) -> tuple[float, float]:
    return bound.epsilon, bound.delta
