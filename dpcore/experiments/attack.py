"""The differencing attack on a mean, without noise and against a registered estimator's release.

Without noise, the mean of ``n`` rows and the mean of the same rows less one give that person's
value exactly: ``n · mean(D) − (n − 1) · mean(D less her) = x_t`` (:func:`differencing`). The same
attacker then meets a differentially private release of the mean (:func:`attack`): she knows every
other row, the public range and ``n`` (DP's worst case), and that the target's value is either her
real one, ``a``, or the far end of the range, ``b``. From one release she reconstructs
``n · release − (sum of the other rows, clamped to the range)`` — exactly ``a`` or ``b`` without
noise — and guesses the nearer candidate. Her success rate over many releases (half on the data
with ``a``, half with ``b``) falls to a coin flip as the budget shrinks, never above the bound the
budget allows (:func:`dpcore.theory.risk.guess_rate_bound`, or ``Φ(μ/2)`` for a Gaussian release).

The release is the registry entry "Noisy sum / n, replace-one" (``sum_known_n_laplace_replace``
under a pure ε budget, ``sum_known_n_gauss_replace`` otherwise), the textbook mean with ``n``
public, on one column of the data shown, run through the entry's batched path (the experiment
engine's noise-only repetitions: one vectorised call per data set, the noise drawn through
:mod:`dpcore.mechanisms`). Seeded: a simulation for teaching, not a release.

References
----------
Dinur & Nissim, "Revealing information while preserving privacy", PODS 2003 (differencing and
reconstruction). Dwork & Roth, "The Algorithmic Foundations of Differential Privacy" (2014), §1.
docs/lessons.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpcore import registry
from dpcore._validation import RngLike, check_int, spawn_generators
from dpcore.data.dataset import Dataset
from dpcore.experiments.plain import number
from dpcore.privacy import Budget
from dpcore.theory.risk import gdp_guess_rate, gdp_mu, guess_rate_bound, odds_epsilon

#: The entry attacked under each kind of budget (the notion the budget's unit calls for).
ATTACKED = {"eps": "sum_known_n_laplace_replace", "zcdp": "sum_known_n_gauss_replace"}
#: Releases per data set the page draws by default.
DRAWS = 2000


def attacked_entry(budget: Budget) -> str:
    """The registry entry :func:`attack` releases through under ``budget``: the Laplace one for a
    pure ε budget, the Gaussian one (ρ, or the largest ρ meeting an ``(ε, δ)``) otherwise."""
    return ATTACKED["eps" if budget.notion == "pure" else "zcdp"]


@dataclass(frozen=True)
class Differencing:
    """The attack without noise: two exact means give the target's value.

    Attributes
    ----------
    n : int
        Rows in the data set.
    value : float
        The target's value.
    mean_all, mean_rest : float
        The mean of all ``n`` rows and of the ``n − 1`` others.
    recovered : float
        ``n · mean_all − (n − 1) · mean_rest``.
    """

    n: int
    value: float
    mean_all: float
    mean_rest: float
    recovered: float

    @property
    def error(self) -> float:
        """``|recovered − value|``: floating-point rounding only."""
        return abs(self.recovered - self.value)


def _column(data: Dataset | np.ndarray, coordinate: int) -> np.ndarray:
    x = np.asarray(getattr(data, "x", data), float)
    x = x.reshape(len(x), -1)
    if not 0 <= coordinate < x.shape[1]:
        raise ValueError(f"coordinate must be in [0, {x.shape[1] - 1}]; got {coordinate!r}.")
    col = x[:, coordinate]
    if col.size < 2 or not np.isfinite(col).all():
        raise ValueError("the attack needs at least 2 finite values; drop NaN/inf rows first.")
    return col


def differencing(
    data: Dataset | np.ndarray, *, target: int = 0, coordinate: int = 0
) -> Differencing:
    """The exact attack: the mean of all rows and of all rows but ``target`` reveal her value.

    Examples
    --------
    >>> out = differencing(np.array([[3.0], [5.0], [10.0]]), target=2)
    >>> out.recovered, out.value
    (10.0, 10.0)
    """
    col = _column(data, coordinate)
    n = col.size
    t = check_int(target, "target", minimum=0, maximum=n - 1)
    rest = np.delete(col, t)
    mean_all, mean_rest = float(col.mean()), float(rest.mean())
    return Differencing(n, float(col[t]), mean_all, mean_rest, n * mean_all - (n - 1) * mean_rest)


@dataclass(frozen=True)
class AttackRun:
    """The attack against ``draws`` releases on each of the two data sets.

    Attributes
    ----------
    estimator : str
        The registry entry released through.
    budget : Budget
        The budget it ran at.
    n, lo, hi : int, float, float
        Rows, and the public range the entry clamps to.
    value, alternative : float
        The target's value as the release sees it (clamped to the range) and the other candidate
        (the far end of the range).
    guesses_value, guesses_alternative : ndarray
        The attacker's reconstruction of the target's value from each release, on the data set
        with ``value`` and on the one with ``alternative``.
    releases : ndarray
        The released means on the real data (for the accuracy of the release).
    truth : float
        The real data's mean (what the release estimates).
    bound : float
        The best success rate the budget allows for this guess.
    bound_rule : str
        Where ``bound`` comes from, in words.
    """

    estimator: str
    budget: Budget
    n: int
    lo: float
    hi: float
    value: float
    alternative: float
    guesses_value: np.ndarray = field(repr=False)
    guesses_alternative: np.ndarray = field(repr=False)
    releases: np.ndarray = field(repr=False)
    truth: float
    bound: float
    bound_rule: str

    @property
    def draws(self) -> int:
        return int(self.guesses_value.size)

    def _right(self) -> tuple[np.ndarray, np.ndarray]:
        mid = 0.5 * (self.value + self.alternative)
        side = 1.0 if self.value >= self.alternative else -1.0
        return side * (self.guesses_value - mid) > 0, side * (self.guesses_alternative - mid) < 0

    @property
    def success(self) -> float:
        """The share of right guesses over both data sets (0.5 is a coin flip)."""
        on_value, on_alternative = self._right()
        return 0.5 * (float(on_value.mean()) + float(on_alternative.mean()))

    @property
    def typical_error(self) -> float:
        """The median distance between the released mean and the real mean."""
        return float(np.median(np.abs(self.releases - self.truth)))

    @property
    def median_miss(self) -> float:
        """The median distance between the attacker's reconstruction and the target's value."""
        return float(np.median(np.abs(self.guesses_value - self.value)))


def _releases(
    name: str, col: np.ndarray, budget: Budget, bounds: tuple[float, float], draws: int, g: Any
) -> np.ndarray:
    """``draws`` releases of the entry on one column, by its batched path."""
    spec = registry.get(name)
    conv = budget.to_native(spec.notion)
    if spec.batched is None:  # pragma: no cover - both attacked entries have a batched path
        raise ValueError(f"{name} has no batched path; the attack needs one.")
    kwargs = {
        **spec.params,
        **conv.kwargs,
        "bounds": (np.array([bounds[0]]), np.array([bounds[1]])),
    }
    return np.asarray(spec.batched(col[:, None], reps=draws, rng=g, **kwargs), float).reshape(draws)


def _bound(budget: Budget, name: str, delta: float) -> tuple[float, str]:
    spec = registry.get(name)
    if spec.notion == "zcdp":
        mu = gdp_mu(budget.to_native("zcdp").value)
        return gdp_guess_rate(mu), f"Φ(μ/2) with μ = √(2ρ) = {mu:.3g} (a Gaussian release)"
    odds = odds_epsilon(budget, delta)
    return guess_rate_bound(odds.epsilon, odds.delta), f"e^ε/(1 + e^ε) with ε = {odds.epsilon:.3g}"


def attack(
    data: Dataset | np.ndarray,
    budget: Budget,
    *,
    bounds: tuple[float, float] | None = None,
    draws: int = DRAWS,
    target: int = 0,
    coordinate: int = 0,
    delta: float = 1e-6,
    rng: RngLike = None,
) -> AttackRun:
    """The differencing attack against ``draws`` private releases on each of two data sets.

    Parameters
    ----------
    data : Dataset or array
        The data shown; column ``coordinate`` is released.
    budget : Budget
        The release's budget (:func:`attacked_entry` picks the entry).
    bounds : (float, float), optional
        The public range; default: the data set's own public range for that column.
    draws : int
        Releases per data set.
    target : int
        The row attacked.
    delta : float
        The δ an ``(ε, δ)`` reading of the bound uses (pure budgets only need none).
    rng : None, int or Generator
        Seeds the releases (a simulation).

    Returns
    -------
    AttackRun

    Examples
    --------
    >>> x = np.linspace(0, 1, 101)[:, None]
    >>> run = attack(x, Budget.pure(50.0), bounds=(0.0, 1.0), draws=200, rng=0)
    >>> run.success
    1.0
    """
    col = _column(data, coordinate)
    n = col.size
    t = check_int(target, "target", minimum=0, maximum=n - 1)
    draws = check_int(draws, "draws", minimum=10, maximum=200_000)
    if bounds is None:
        if not isinstance(data, Dataset):
            raise ValueError("pass bounds=(lower, upper): a public range chosen without the data.")
        bounds = (float(data.bounds[0][coordinate]), float(data.bounds[1][coordinate]))
    lo, hi = float(bounds[0]), float(bounds[1])
    if not lo < hi:
        raise ValueError(f"bounds must satisfy lower < upper; got {bounds!r}.")
    value = float(np.clip(col[t], lo, hi))
    alternative = lo if value - lo > hi - value else hi
    other = np.delete(col, t)
    other_sum = float(np.clip(other, lo, hi).sum())
    name = attacked_entry(budget)
    g_value, g_alt = spawn_generators(rng, 2)
    releases = _releases(name, col, budget, (lo, hi), draws, g_value)
    swapped = col.copy()
    swapped[t] = alternative
    releases_alt = _releases(name, swapped, budget, (lo, hi), draws, g_alt)
    bound, rule = _bound(budget, name, delta)
    return AttackRun(
        name,
        budget,
        n,
        lo,
        hi,
        value,
        alternative,
        n * releases - other_sum,
        n * releases_alt - other_sum,
        releases,
        float(col.mean()),
        bound,
        rule,
    )


def tradeoff_points(run: AttackRun, k: int = 25) -> pd.DataFrame:
    """The attack's error rates at ``k`` thresholds: guess "the real value" when the
    reconstruction lies beyond the threshold on its side. ``alpha``: false positives (said "real
    value" on the other data set); ``beta``: false negatives."""
    side = 1.0 if run.value >= run.alternative else -1.0
    a, b = np.sort(side * run.guesses_value), np.sort(side * run.guesses_alternative)
    qs = np.quantile(np.concatenate([a, b]), np.linspace(0.02, 0.98, k))
    beta = np.searchsorted(a, qs, side="right") / a.size
    alpha = 1.0 - np.searchsorted(b, qs, side="right") / b.size
    return pd.DataFrame({"threshold": side * qs, "alpha": alpha, "beta": beta})


def attack_curve(
    data: Dataset | np.ndarray,
    unit: str,
    values: tuple[float, ...],
    *,
    delta: float = 1e-6,
    draws: int = DRAWS,
    target: int = 0,
    coordinate: int = 0,
    bounds: tuple[float, float] | None = None,
    rng: RngLike = None,
) -> pd.DataFrame:
    """The attacker's success at each budget ``values`` in ``unit`` (one :func:`attack` each,
    seeded by its own child stream): columns ``budget``, ``success``, ``bound``,
    ``typical_error``, ``estimator``."""
    gens = spawn_generators(rng, len(values))
    rows = []
    for value, g in zip(values, gens, strict=True):  # a handful of budgets; each call vectorised
        run = attack(
            data,
            Budget.from_unit(unit, value, delta),
            bounds=bounds,
            draws=draws,
            target=target,
            coordinate=coordinate,
            delta=delta,
            rng=g,
        )
        rows.append(
            {
                "budget": value,
                "success": run.success,
                "bound": run.bound,
                "typical_error": run.typical_error,
                "estimator": run.estimator,
            }
        )
    return pd.DataFrame(rows)


def success_sentence(run: AttackRun) -> str:
    """The attack's result in one sentence, every number from ``run``."""
    coin = (
        "no better than a coin flip"
        if run.success < 0.55
        else f"right {run.success:.0%} of the time"
    )
    return (
        f"Over {run.draws:,} private releases on each data set, the attacker guessed the target's "
        f"value {coin} (the budget allows at most {run.bound:.0%}; without noise: 100%). Her "
        f"reconstruction missed the real value by a median of {number(run.median_miss)}."
    )


def exact_sentence(out: Differencing) -> str:
    """The exact attack in one sentence."""
    return (
        f"Mean of all {out.n:,} rows: {out.mean_all:.6g}; mean without the target: "
        f"{out.mean_rest:.6g}. So her value is {out.n:,} × {out.mean_all:.6g} − {out.n - 1:,} × "
        f"{out.mean_rest:.6g} = **{out.recovered:.6g}** (her real value: {out.value:.6g})."
    )
