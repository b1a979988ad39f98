"""Two sentences for decision makers, with every number taken from the run on screen.

:func:`plain_words` turns a budget and the errors of the runs a page just made into "what this
means for your organisation": how close a published average typically is to the truth, and how
much one release can raise an attacker's odds about any one person (``e^ε``, with the ``δ`` it
holds up to; :func:`dpcore.theory.risk.odds_epsilon`). :func:`audit_words` does the same for a
privacy audit. The numbers are kept beside the sentences (:class:`PlainWords`), so a test
recomputes them from the run and finds them in the text, as the Compare stories are checked.

References
----------
docs/lessons.md (the plain-language box and how it is checked).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dpcore.experiments.summaries import private_rows
from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget
from dpcore.theory.risk import odds_epsilon

if TYPE_CHECKING:
    from dpcore.audit import AuditResult
    from dpcore.experiments.config import ExperimentConfig
    from dpcore.experiments.studies.gallery import Evidence
    from dpcore.release import Odometer

#: The box's heading.
HEADING = "What this means for your organisation"


@dataclass(frozen=True)
class PlainWords:
    """Two sentences and the numbers in them.

    Attributes
    ----------
    sentences : (str, str)
        What the box says.
    typical_error : float
        The median error of the runs (``nan`` when the sentences are about an audit).
    runs : int
        How many runs the median is over (or the audit's draws per data set).
    odds_factor : float
        ``e^ε``: the most an attacker's odds about one person can grow.
    delta : float
        The probability the odds bound may fail (0 for pure DP).
    method : str
        The method that came closest, when the runs compare several (:func:`choice_words`).
    runner_up : str
        The next closest method ("" for one method).
    runner_up_error : float
        Its median error (``nan`` for one method).
    released : float
        The published value the sentences state (``nan`` unless they are about a release).
    spent : float
        The session's total spend the odds sentence reads (``nan`` unless about a release), in
        the session's unit (ε or ρ).
    """

    sentences: tuple[str, str]
    typical_error: float
    runs: int
    odds_factor: float
    delta: float
    method: str = ""
    runner_up: str = ""
    runner_up_error: float = math.nan
    released: float = math.nan
    spent: float = math.nan

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def number(x: float) -> str:
    """A number as the box prints it: 2 significant digits, thousands separated, no exponent
    for everyday sizes.

    Examples
    --------
    >>> number(0.000123), number(1.067), number(2134.6), number(0.5), number(6.54e-5)
    ('0.00012', '1.1', '2,135', '0.5', '0.000065')
    """
    if not math.isfinite(x):
        return "unbounded"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1e-4 or x == 0:
        return f"{float(f'{x:.2g}'):g}"
    return str(np.format_float_positional(float(f"{x:.2g}"), trim="-"))


def fold(factor: float) -> str:
    """``e^ε`` as "N-fold" words.

    Examples
    --------
    >>> fold(2.718), fold(148.4), fold(3.0e9)
    ('2.7-fold', '148-fold', 'more than a million-fold')
    """
    if not math.isfinite(factor) or factor > 1e6:
        return "more than a million-fold"
    return f"{number(factor)}-fold"


def chance(p: float) -> str:
    """A small probability as "1 in N".

    Examples
    --------
    >>> chance(1e-6), chance(7e-9), chance(0.25)
    ('1 in 1,000,000', '1 in 142,857,143', '1 in 4')
    """
    return f"1 in {1.0 / p:,.0f}" if 0 < p < 1 else f"{p:g}"


def _odds_sentence(
    budget: Budget | Guarantee, delta: float, who: str = "one release can"
) -> tuple[str, float, float]:
    """The odds sentence: a budget read by :func:`odds_epsilon`, a guarantee by
    :meth:`Guarantee.at` (the numbers a release's certificate prints)."""
    if isinstance(budget, Budget):
        odds = odds_epsilon(budget, delta)
        factor, slack_delta = odds.factor, odds.delta
    else:
        factor, slack_delta = budget.odds_factor(delta), budget.at(delta)[1]
    slack = f", except with a chance of {chance(slack_delta)}" if slack_delta > 0 else ""
    sentence = (
        f"Whatever an attacker already knows, {who} raise their odds about any one "
        f"person at most {fold(factor)}{slack}."
    )
    return sentence, factor, slack_delta


def plain_words(
    budget: Budget,
    errors: np.ndarray | list[float],
    *,
    delta: float = 1e-6,
    what: str = "the average",
) -> PlainWords:
    """The box for a page that estimated ``what`` several times at ``budget``.

    Parameters
    ----------
    budget : Budget
        The budget of the runs on screen.
    errors : array of float
        The error of each run on screen (``|estimate − truth|`` in any norm the page shows).
    delta : float
        The δ a ρ budget is read at (:func:`dpcore.theory.risk.odds_epsilon`).
    what : str
        What was estimated, for the sentence ("the average income", ...).

    Examples
    --------
    >>> w = plain_words(Budget.pure(1.0), [0.1, 0.2, 0.4])
    >>> print(w.sentences[0])  # doctest: +NORMALIZE_WHITESPACE
    With this budget, an estimate of the average is typically within 0.2 of the truth
    (half of the 3 runs on screen came closer).
    >>> print(w.sentences[1])  # doctest: +NORMALIZE_WHITESPACE
    Whatever an attacker already knows, one release can raise their odds about any one person
    at most 2.7-fold.
    """
    err = np.abs(np.asarray(errors, float).ravel())
    err = err[np.isfinite(err)]
    if err.size == 0:
        raise ValueError("errors must hold at least one finite error; run the estimator first.")
    typical = float(np.median(err))
    first = (
        f"With this budget, an estimate of {what} is typically within {number(typical)} of the "
        f"truth (half of the {err.size:,} run{'s' if err.size > 1 else ''} on screen came closer)."
    )
    second, factor, slack = _odds_sentence(budget, delta)
    return PlainWords((first, second), typical, int(err.size), factor, slack)


def audit_words(result: AuditResult, budget: Budget, *, delta: float = 1e-6) -> PlainWords:
    """The box for a privacy audit: did the method keep its promise, and what the promise means.

    The odds sentence reads the guarantee the audited method claims (``result.claim``: pure ε, or
    ρ-zCDP read at ``delta``), not the sidebar's ``budget``: a zCDP method run under a pure
    sidebar budget gives ρ = ε²/2, which is not ε-DP.
    """
    measure = result.claim.measure
    if result.violated:
        first = (
            f"Warning: in {result.draws:,} test releases on two data sets that differ in one "
            f"person, this method leaked more than it promises ({measure} at least "
            f"{result.lower:.3g}, promised {result.claim.value:.3g}); do not use it."
        )
    else:
        first = (
            f"In {result.draws:,} test releases on two data sets that differ in one person, this "
            f"method leaked no more than it promises (measured {measure} at least "
            f"{result.lower:.3g}, promised at most {result.claim.value:.3g})."
        )
    second, factor, slack = _odds_sentence(claim_guarantee(result, budget), delta)
    return PlainWords((first, second), math.nan, int(result.draws), factor, slack)


def claim_guarantee(result: AuditResult, budget: Budget) -> Guarantee | Budget:
    """The guarantee an audit's claim states (``budget`` when the claim names none)."""
    claim = result.claim
    if claim.notion == "pure" and math.isfinite(claim.epsilon):
        return Guarantee.pure(claim.epsilon)
    if claim.rho is not None:
        return Guarantee.zcdp(claim.rho)
    return budget


def _medians(errors: Mapping[str, Sequence[float] | np.ndarray]) -> list[tuple[str, float, int]]:
    """``(method, median |error|, runs)`` per method with a finite error, smallest median first."""
    out = []
    for method, values in errors.items():
        err = np.abs(np.asarray(values, float).ravel())
        err = err[np.isfinite(err)]
        if err.size:
            out.append((str(method), float(np.median(err)), int(err.size)))
    if not out:
        raise ValueError("errors must hold at least one finite error; run the estimators first.")
    return sorted(out, key=lambda row: row[1])


def choice_words(
    budget: Budget,
    errors: Mapping[str, Sequence[float] | np.ndarray],
    *,
    delta: float = 1e-6,
    what: str = "the average",
    distance: str = "",
    rank: bool = True,
) -> PlainWords:
    """The box for a page that ran several methods at one budget: which came closest, and by how much.

    Parameters
    ----------
    budget : Budget
        The budget of the runs on screen.
    errors : mapping of str to array of float
        Per method (its display name), the error of each of its runs on screen.
    delta : float
        The δ a ρ budget is read at (:func:`dpcore.theory.risk.odds_epsilon`).
    what : str
        What was estimated ("the average income", ...).
    distance : str
        How the error is measured, said after the number (" (total-variation distance)", ...).
    rank : bool
        False when the runs are too few to rank the methods (one run each, as on Side by side):
        the sentence gives the range of their errors and names none.

    Returns
    -------
    PlainWords
        ``typical_error`` and ``runs`` are the closest method's (``method``); ``runner_up`` and
        ``runner_up_error`` the next one's (empty and ``nan`` for one method).

    Examples
    --------
    >>> w = choice_words(Budget.zcdp(0.5), {"A": [0.3, 0.5], "B": [0.2, 0.4, 0.1]})
    >>> print(w.sentences[0])  # doctest: +NORMALIZE_WHITESPACE
    With this budget, B came closest to the average: typically within 0.2 of the truth over its 3
    runs on screen, against 0.4 for A.
    """
    ranked = _medians(errors)
    method, typical, runs = ranked[0]
    over = f"over its {runs:,} runs on screen" if runs > 1 else "in its run on screen"
    first = (
        f"With this budget, {method} came closest to {what}: typically within {number(typical)} "
        f"of the truth{distance} {over}"
        if len(ranked) > 1
        else f"With this budget, {method} estimated {what} typically within {number(typical)} of "
        f"the truth{distance} {over}"
    )
    runner, runner_error = (ranked[1][0], ranked[1][1]) if len(ranked) > 1 else ("", math.nan)
    if runner and not rank:
        each = "one run each" if runs == 1 else "medians over their runs"
        first = (
            f"With this budget, the {len(ranked)} methods on screen estimated {what} within "
            f"{number(typical)} to {number(ranked[-1][1])} of the truth{distance} ({each}: too few "
            "runs to rank them)"
        )
    elif runner:
        next_best = "for" if len(ranked) == 2 else "for the next best,"
        first += f", against {number(runner_error)} {next_best} {runner}"
    second, factor, slack = _odds_sentence(budget, delta)
    return PlainWords(
        (first + ".", second), typical, runs, factor, slack, method, runner, runner_error
    )


def release_errors(
    releases: Mapping[str, Sequence[np.ndarray] | np.ndarray], truth: np.ndarray | float
) -> dict[str, np.ndarray]:
    """Per method, the ℓ2 distance of each of its releases (rows) from ``truth``.

    Examples
    --------
    >>> release_errors({"A": [[3.0, 4.0]], "B": [[0.0, 0.5], [1.0, 0.0]]}, [0.0, 0.0])
    {'A': array([5.]), 'B': array([0.5, 1. ])}
    """
    target = np.atleast_1d(np.asarray(truth, float))
    out = {}
    for method, rel in releases.items():
        rows = np.asarray(rel, float).reshape(-1, target.size)
        out[str(method)] = np.linalg.norm(rows - target, axis=1)
    return out


def release_words(
    budget: Budget,
    releases: Mapping[str, Sequence[np.ndarray] | np.ndarray],
    truth: np.ndarray | float,
    *,
    delta: float = 1e-6,
    what: str = "the average",
    rank: bool = True,
) -> PlainWords:
    """:func:`choice_words` for releases (per method, one row per run) against ``truth``, each
    run's error its ℓ2 distance (:func:`release_errors`); ``rank`` as there."""
    errors = release_errors(releases, truth)
    return choice_words(budget, errors, delta=delta, what=what, rank=rank)


def frame_words(
    budget: Budget,
    frame: pd.DataFrame,
    *,
    by: str,
    error: str,
    delta: float = 1e-6,
    what: str = "the average",
    distance: str = "",
    rank: bool = True,
) -> PlainWords:
    """:func:`choice_words` over a tidy frame of runs: one row per run, the method in column
    ``by`` and its error in column ``error`` (methods in their order of appearance)."""
    errors = {
        str(method): part[error].to_numpy(float) for method, part in frame.groupby(by, sort=False)
    }
    return choice_words(budget, errors, delta=delta, what=what, distance=distance, rank=rank)


def evidence_words(evidence: Evidence, *, delta: float = 1e-6) -> PlainWords:
    """The box under Home's example: its estimators' ℓ2 errors over its seeds, at its ρ, in the
    data's units (the example's calmest column has standard deviation 1)."""
    setting = evidence.setting
    return frame_words(
        Budget.zcdp(float(setting["rho"])),
        evidence.errors,
        by="label",
        error="error",
        delta=delta,
        what=f"the {setting['d']} column averages of the example",
        distance=(
            f" (in data units, all {setting['d']} averages together; one unit is the spread of the "
            "calmest column)"
        ),
    )


def split_words(split: pd.DataFrame, rho: float, p: float, *, delta: float = 1e-6) -> PlainWords:
    """The box under PLAN step by step's error split: one run per estimator (``split``:
    :func:`dpcore.figures.plan.error_split_frame`, its ``total`` the ℓp error), all ρ-zCDP at ``rho``."""
    d = "" if p == 2 else f" (ℓ{p:g} distance)"
    return frame_words(
        Budget.zcdp(rho),
        split,
        by="estimator",
        error="total",
        delta=delta,
        what="the mean",
        distance=d,
        rank=False,  # one run each: the range, no ranking
    )


def your_data_words(
    frame: pd.DataFrame, column: str, budget: Budget, *, delta: float = 1e-6
) -> PlainWords:
    """The box on Your data: each estimator's error on ``column`` (estimate − the column's mean,
    in its own units) over its runs (``frame``: :attr:`dpcore.experiments.studies.your_data.Runs.frame`)."""
    rows = frame[frame["column"] == str(column)]
    if rows.empty:
        raise ValueError(f"no run estimated the column {column!r}; choose one of the columns run.")
    return frame_words(
        budget, rows, by="estimator", error="error", delta=delta, what=f"the average {column}"
    )


def sweep_point(frame: pd.DataFrame, x: str, value: float) -> pd.DataFrame:
    """The rows of a Compare sweep at the point of axis ``x`` nearest ``value`` (on a log scale
    when every value is positive)."""
    return frame[_at_point(frame, x, value)]


def _at_point(frame: pd.DataFrame, x: str, value: float) -> np.ndarray:
    """Which rows :func:`sweep_point` keeps, as a boolean array."""
    values = frame[x].to_numpy(float)
    grid = np.unique(values[np.isfinite(values)])
    if grid.size == 0:
        raise ValueError(f"the sweep has no {x} values; run a comparison first.")
    if grid.min() > 0 and value > 0:
        nearest = grid[np.argmin(np.abs(np.log(grid) - math.log(value)))]
    else:
        nearest = grid[np.argmin(np.abs(grid - value))]
    return values == nearest


def sweep_words(
    frame: pd.DataFrame,
    table: pd.DataFrame,
    config: ExperimentConfig,
    x: str,
    metric: str,
    *,
    delta: float = 1e-6,
) -> PlainWords:
    """The box under Compare's chart: which private estimator came closest at the sweep's point
    nearest the config's own setting on axis ``x``, and what that point's budget risks.

    Only the estimators ranked first's guarantee (``table``: the regret table,
    :func:`dpcore.experiments.summaries.regret_table`) are compared, as the ranking does.
    """
    base = {"n": config.n, "d": config.d, "skew": config.base_skew(), "budget": config.budget}
    ranked = table.loc[table["guarantee"] == table["guarantee"].iloc[0], "estimator"]
    # the rows' columns read through one mask (no filtered copies of the frame: every Compare
    # view asks); the runs grouped by label in order of first appearance, as frame_words does
    keep = (
        _at_point(frame, x, float(base[x]))
        & private_rows(frame)
        & (frame["failed"].to_numpy(object) == "")
        & frame["estimator"].isin(list(ranked)).to_numpy(bool)
    )
    if not keep.any():
        raise ValueError("no ranked private estimator ran at this point; pick other estimators.")
    i = int(np.flatnonzero(keep)[0])
    first = {c: frame[c].iat[i] for c in ("unit", "budget", "delta", "d", "n")}
    budget = Budget.from_unit(str(first["unit"]), float(first["budget"]), float(first["delta"]))
    what = f"the {int(first['d'])} column averages of {int(first['n']):,} rows"
    labels = frame["label"].to_numpy(object)[keep]
    errors = frame[f"err_{metric}"].to_numpy(float)[keep]
    by_label = {str(k): errors[labels == k] for k in dict.fromkeys(labels)}
    return choice_words(budget, by_label, delta=delta, what=what)


# --------------------------------------------------------------------------------------------
# release mode: what a real release publishes and what the session has spent


def plus_minus(value: float, accuracy: float, money: bool = False) -> tuple[str, str]:
    """``(value, accuracy)`` as the box prints a released value: the accuracy as :func:`number`
    does, the value to the same decimal place (no more digits than the noise leaves), in dollars
    when ``money``.

    Examples
    --------
    >>> plus_minus(4.87312, 0.0213), plus_minus(52348.3, 1239.6, money=True)
    (('4.873', '0.021'), ('$52,348', '$1,240'))
    >>> plus_minus(-3.14159, 1.2), plus_minus(40.1, 0.7)
    (('-3.1', '1.2'), ('40.10', '0.70'))
    """
    acc = abs(float(accuracy))
    places = 0
    if math.isfinite(acc) and 0 < acc < 100:
        places = max(0, 1 - math.floor(math.log10(float(f"{acc:.2g}"))))
    v = float(value)
    body = f"{abs(v):,.{places}f}"
    sign = "-" if v < 0 and float(body.replace(",", "")) != 0 else ""
    dollar = "$" if money else ""
    shown = f"{acc:,.{places}f}" if places else number(acc)  # both to the same decimal place
    return f"{sign}{dollar}{body}", f"{dollar}{shown}"


def _amount(x: float) -> str:
    """A budget amount as the odometer prints it (up to 4 significant digits)."""
    return f"{x:.4g}"


def _next_guarantee(budget: Budget) -> Guarantee:
    """The guarantee a release at ``budget`` states (an estimator of the budget's notion)."""
    if budget.notion == "approx":
        raise ValueError("a release counts ε or ρ: give the budget as ε or ρ.")
    amount = budget.epsilon_value if budget.notion == "pure" else budget.rho_value
    return Guarantee.of_notion(budget.notion, amount)


def release_plan_words(
    odometer: Odometer,
    budget: Budget,
    columns: Sequence[str],
    *,
    delta: float = 1e-6,
    guarantee: Guarantee | None = None,
) -> PlainWords:
    """The box on Your data's Release mode before a release: what the next one will spend.

    Parameters
    ----------
    odometer : Odometer
        The session's odometer (:class:`dpcore.release.Odometer`): its total and what is spent.
    budget : Budget
        The budget the next release spends (ε or ρ).
    columns : sequence of str
        The columns it will publish the averages of.
    delta : float
        The δ a ρ total is read at (:meth:`Guarantee.at`).
    guarantee : Guarantee, optional
        The guarantee the next release will state (default: ``budget``'s notion).

    Returns
    -------
    PlainWords
        ``spent`` is the session's total once the release is made; no error yet (``nan``). The
        odds are those of the odometer's composed guarantee with the next release's.

    Examples
    --------
    >>> from dpcore.release import Odometer
    >>> w = release_plan_words(Odometer(Budget.pure(1.0)), Budget.pure(0.5), ["income", "age"])
    >>> print(w.text)  # doctest: +NORMALIZE_WHITESPACE
    A release of the average of income and 1 other column spends ε = 0.5 of this data's total of
    ε = 1 (nothing spent so far). Whatever an attacker already knows, the releases of this data
    together can raise their odds about any one person at most 1.6-fold.
    """
    if not columns:
        raise ValueError("choose at least one column to release.")
    nxt = guarantee if guarantee is not None else _next_guarantee(budget)
    cost = odometer.cost(nxt)
    unit, spent = odometer.unit, float(odometer.spent)
    others = len(columns) - 1
    more = f" and {others} other column{'s' if others > 1 else ''}" if others else ""
    so_far = f"{_amount(spent)} spent so far" if spent > 0 else "nothing spent so far"
    refused = (
        f"; that is more than the {_amount(odometer.remaining)} left, so it would be refused"
        if cost > odometer.remaining * (1.0 + 1e-12)
        else ""
    )
    first = (
        f"A release of the average of {columns[0]}{more} spends {unit} = {_amount(cost)} of this "
        f"data's total of {unit} = {_amount(odometer.amount)} ({so_far}){refused}."
    )
    after = spent + cost
    second, factor, slack = _odds_sentence(
        odometer.guarantee.compose(nxt), delta, "the releases of this data together can"
    )
    return PlainWords((first, second), math.nan, 0, factor, slack, spent=after)


def released_words(
    odometer: Odometer,
    column: str,
    mean: float,
    accuracy: float,
    *,
    releases: int = 1,
    money: bool = False,
    delta: float = 1e-6,
) -> PlainWords:
    """The box on Your data's Release mode after a release: the published average of ``column``
    with its stated accuracy, and what the whole session has spent, in words.

    Parameters
    ----------
    odometer : Odometer
        The session's odometer, after the release was charged.
    column : str
        The column the sentence is about (the first one released).
    mean, accuracy : float
        Its released (or combined) mean and 95% noise half-width, in the column's units.
    releases : int
        How many releases of the same columns were combined into ``mean``.
    money : bool
        Whether the column holds money (printed as dollars).
    delta : float
        The δ a ρ total is read at (:func:`dpcore.theory.risk.odds_epsilon`).

    Returns
    -------
    PlainWords
        ``released`` and ``typical_error`` are ``mean`` and ``accuracy``; ``runs`` is
        ``releases``; ``spent`` the session's total.

    Examples
    --------
    >>> from dpcore.release import Odometer
    >>> odo = Odometer(Budget.zcdp(0.5), spent=0.125)
    >>> print(released_words(odo, "income", 52348.3, 1239.6, money=True).text)
    ... # doctest: +NORMALIZE_WHITESPACE
    The published average of income is $52,348 ± $1,240: with 95% probability the privacy noise moved
    it by less than $1,240. This data has spent ρ = 0.125 of its total of 0.5; whatever an
    attacker already knows, its releases together can raise their odds about any one person at
    most 11-fold, except with a chance of 1 in 1,000,000.
    """
    if not (math.isfinite(mean) and math.isfinite(accuracy)) or odometer.spent <= 0:
        raise ValueError("released_words needs a finite release charged to the odometer.")
    value, acc = plus_minus(mean, accuracy, money)
    combined = f" ({releases} releases combined)" if releases > 1 else ""
    first = (
        f"The published average of {column} is {value} ± {acc}{combined}: with 95% probability "
        f"the privacy noise moved it by less than {acc}."
    )
    spent = float(odometer.spent)
    odds, factor, slack = _odds_sentence(odometer.guarantee, delta, "its releases together can")
    second = (
        f"This data has spent {odometer.unit} = {_amount(spent)} of its total of "
        f"{_amount(odometer.amount)}; {odds[0].lower()}{odds[1:]}"
    )
    return PlainWords(
        (first, second),
        float(accuracy),
        int(releases),
        factor,
        slack,
        released=float(mean),
        spent=spent,
    )
