"""The plain-language box for decision makers: "What this means for your organisation", two
sentences whose numbers come from the run on screen (:mod:`dpcore.experiments.plain`).

A page adds it with one line after its run, passing the budget and the errors of the runs it shows
(``|estimate − truth|`` per run, in any norm it reports)::

    plain_box(s.budget, errors, delta=s.delta)

Your data's Release mode uses :func:`release_box`: what the next release will spend, then the
published average and what has been spent on this data (the odometer's composed guarantee).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from dpcore.experiments.plain import (
    HEADING,
    PlainWords,
    plain_words,
    release_plan_words,
    released_words,
)
from dpcore.figures.your_data import is_money
from dpcore.guarantee import Guarantee
from dpcore.privacy import Budget
from dpcore.release import Odometer


def plain_box(
    budget: Budget,
    errors: Sequence[float] | np.ndarray | None = None,
    *,
    delta: float = 1e-6,
    what: str = "the average",
    words: PlainWords | None = None,
) -> PlainWords:
    """Draw the box; returns what it says.

    Parameters
    ----------
    budget : Budget
        The budget of the runs on screen.
    errors : array of float, optional
        The error of each run on screen (needed unless ``words`` is given).
    delta : float
        The δ a ρ budget is read at (the sidebar's δ).
    what : str
        What the runs estimate ("the average", "the average income", ...).
    words : PlainWords, optional
        Sentences made elsewhere (an audit: :func:`dpcore.experiments.plain.audit_words`).
    """
    if words is None:
        if errors is None:
            raise ValueError("plain_box needs the errors of the runs on screen, or words=.")
        words = plain_words(budget, errors, delta=delta, what=what)
    with st.container(border=True, key="plain_box"):
        st.markdown(f"**{HEADING}**")
        st.markdown(words.text)
    return words


def release_box(
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
    """The box in Your data's Release mode; returns what it says (None when the budget cannot be
    counted by this session's odometer: the release button says why).

    Parameters
    ----------
    odometer : Odometer
        The session's odometer.
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
            words = release_plan_words(odometer, budget, columns, delta=delta, guarantee=guarantee)
        else:
            column = str(columns[0])
            words = released_words(
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
    return plain_box(budget, words=words)
