"""The words of the plain-language box, "What this means for your organisation": two sentences
whose numbers come from the runs on screen (:mod:`dpcore.experiments.plain` writes them). The page
helper ``pages/_plain.py`` only draws them.

References: ``docs/architecture.md`` (Data flow).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpcore.experiments.plain import (
    PlainWords,
    plain_words,
    release_plan_words,
    released_words,
)
from dpcore.figures.your_data import is_money
from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget
from dpcore.release import Odometer

__all__ = ["box_words", "release_box_words"]


def box_words(
    budget: Budget,
    errors: Sequence[float] | np.ndarray | None = None,
    *,
    delta: float = 1e-6,
    what: str = "the average",
    words: PlainWords | None = None,
) -> PlainWords:
    """What the box says: ``words`` when given, else :func:`plain_words` of the runs' errors.

    Parameters
    ----------
    budget : Budget
        The budget of the runs on screen.
    errors : array of float, optional
        The error of each run on screen (``|estimate − truth|``; needed unless ``words`` is given).
    delta : float
        The δ a ρ budget is read at (the sidebar's δ).
    what : str
        What the runs estimate ("the average", "the average income", ...).
    words : PlainWords, optional
        Sentences made elsewhere (an audit: :func:`dpcore.experiments.plain.audit_words`).

    Raises
    ------
    ValueError
        With neither ``errors`` nor ``words``.

    Examples
    --------
    >>> w = box_words(Budget.zcdp(0.5), [0.1, 0.2, 0.3])
    >>> w.text == plain_words(Budget.zcdp(0.5), np.array([0.1, 0.2, 0.3])).text
    True
    """
    if words is not None:
        return words
    if errors is None:
        raise ValueError(
            "the plain-language box needs the errors of the runs on screen, or words=."
        )
    return plain_words(budget, np.asarray(errors, dtype=float), delta=delta, what=what)


def release_box_words(
    odometer: Odometer,
    budget: Budget,
    columns: Sequence[str],
    *,
    mean: float | None = None,
    accuracy: float | None = None,
    releases: int = 0,
    delta: float = 1e-6,
    guarantee: Guarantee | None = None,
) -> PlainWords | None:
    """The box in Your data's Release mode (None when the budget cannot be counted by this
    odometer: the release button says why).

    Parameters
    ----------
    odometer : Odometer
        The file's odometer.
    budget : Budget
        The budget of the next release.
    columns : sequence of str
        The columns released; the sentence is about the first.
    mean, accuracy : float, optional
        The first column's released (or combined) mean and 95% half-width, once released.
    releases : int
        How many releases ``mean`` combines (0: nothing released yet, say what one will spend).
    delta : float
        The δ a ρ total is read at (the sidebar's δ).
    guarantee : Guarantee, optional
        The guarantee the next release will state (its estimator's notion at ``budget``).
    """
    try:
        if releases == 0 or mean is None or accuracy is None:
            return release_plan_words(odometer, budget, columns, delta=delta, guarantee=guarantee)
        column = str(columns[0])
        return released_words(
            odometer,
            column,
            float(mean),
            float(accuracy),
            releases=releases,
            money=is_money(column),
            delta=delta,
        )
    except ValueError:
        return None
