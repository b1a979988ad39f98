"""The plain-language box for decision makers: "What this means for your organisation", two
sentences whose numbers come from the run on screen (:mod:`dpcore.views.plain`); this module only draws them.

A page adds it with one line after its run, passing the budget and the errors of the runs it shows
(``|estimate − truth|`` per run, in any norm it reports)::

    plain_box(s.budget, errors, delta=s.delta)

Your data's Release mode uses :func:`release_box`: what the next release will spend, then the
published average and what has been spent on this data (the odometer's composed guarantee).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from dpcore.experiments.plain import HEADING, PlainWords
from dpcore.privacy import Budget
from dpcore.release import Odometer
from dpcore.views.plain import box_words, release_box_words


def plain_box(
    budget: Budget,
    errors: Sequence[float] | Any | None = None,
    *,
    delta: float = 1e-6,
    what: str = "the average",
    words: PlainWords | None = None,
) -> PlainWords:
    """Draw the box; returns what it says (:func:`dpcore.views.plain.box_words`: the same
    parameters; ``errors`` a sequence or array of floats)."""
    words = box_words(budget, errors, delta=delta, what=what, words=words)
    with st.container(border=True, key="plain_box"):
        st.markdown(f"**{HEADING}**")
        st.markdown(words.text)
    return words


def release_box(
    odometer: Odometer, budget: Budget, columns: Sequence[str], **kw: Any
) -> PlainWords | None:
    """The box in Your data's Release mode (:func:`dpcore.views.plain.release_box_words`, whose
    keywords ``kw`` are); returns what it says, or None (nothing drawn)."""
    words = release_box_words(odometer, budget, columns, **kw)
    return None if words is None else plain_box(budget, words=words)
