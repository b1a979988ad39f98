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
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dpcore.privacy import Budget
from dpcore.theory.risk import odds_epsilon

if TYPE_CHECKING:
    from dpcore.audit import AuditResult

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
    """

    sentences: tuple[str, str]
    typical_error: float
    runs: int
    odds_factor: float
    delta: float

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


def number(x: float) -> str:
    """A number as the box prints it: 2 significant digits, thousands separated, no exponent
    for everyday sizes.

    Examples
    --------
    >>> number(0.000123), number(1.067), number(2134.6), number(0.5)
    ('0.00012', '1.1', '2,135', '0.5')
    """
    if not math.isfinite(x):
        return "unbounded"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{float(f'{x:.2g}'):g}" if abs(x) >= 1e-4 else f"{x:.1e}"


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


def _odds_sentence(budget: Budget, delta: float) -> tuple[str, float, float]:
    odds = odds_epsilon(budget, delta)
    slack = f", except with a chance of {chance(odds.delta)}" if odds.delta > 0 else ""
    sentence = (
        f"Whatever an attacker already knows, one release can raise their odds about any one "
        f"person at most {fold(odds.factor)}{slack}."
    )
    return sentence, odds.factor, odds.delta


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

    The odds sentence reads ``budget`` (the sidebar's) as :func:`plain_words` does.
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
    second, factor, slack = _odds_sentence(budget, delta)
    return PlainWords((first, second), math.nan, int(result.draws), factor, slack)
