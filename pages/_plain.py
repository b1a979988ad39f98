"""The plain-language box for decision makers: "What this means for your organisation", two
sentences whose numbers come from the run on screen (:mod:`dpcore.experiments.plain`).

A page adds it with one line after its run, passing the budget and the errors of the runs it shows
(``|estimate − truth|`` per run, in any norm it reports)::

    plain_box(s.budget, errors, delta=s.delta)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from dpcore.experiments.plain import HEADING, PlainWords, plain_words
from dpcore.privacy import Budget


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
