"""The floating-point lesson of the Privacy audit page: the low bits of a release, live.

One section, :func:`render`: D = {0, 0} and D′ = {0, 1} (bounds [0, 1], ε = 1), the clipped mean
released many times by NumPy's Laplace (as every simulation does) and by the safe sampler (as a
release does), and how often a bit below 2^-54 is set on each. Numbers from
:func:`dpcore.views.privacy_audit.lesson_view`; figure in :mod:`dpcore.figures.float_lesson`.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dpcore.figures.float_lesson import lesson_figure
from dpcore.views.privacy_audit import LessonSettings, lesson_view
from pages._ui import chart
from pages._views import cached

#: Releases per data set and sampler the reader can choose.
DRAW_CHOICES = [500, 2_000, 5_000]

_CODE = """print(out.hits)
for sentence in lv.words.values():
    print(sentence)
from dpcore.figures.float_lesson import lesson_figure
fig, frame = lesson_figure(out)
"""


def render(settings: Any) -> None:
    """Draw the lesson (heading, explanation, draws slider, figure, verdicts) on the page.

    Parameters
    ----------
    settings : pages._ui.Settings
        The sidebar settings; ``settings.seed`` seeds the NumPy side.
    """
    st.header("The floating-point lesson: the last bits of a release")
    st.markdown(
        "The audit above looks at the **values** a release takes. A computer stores each value with "
        "53 binary digits, and the **last digits** can give the data away. Take **D = {0, 0}** and "
        "its neighbour **D′ = {0, 1}** in the range [0, 1], and release the clipped mean at ε = 1 "
        "(Laplace noise of scale 0.5). On D the release is the noise itself, stored with all its "
        "digits; on D′ it is 0.5 + noise, rounded so that no digit below 2⁻⁵⁴ is ever set "
        "(Mironov 2012). Count how often such a digit is set on each."
    )
    seed = int(getattr(settings, "seed", 0))
    draws = st.select_slider(
        "Releases per data set",
        DRAW_CHOICES,
        value=2_000,
        key="float_lesson_draws",
        format_func=lambda v: f"{v:,}",
    )
    record = LessonSettings(seed, int(draws))
    with st.spinner("Drawing releases…"):
        lv = cached(lesson_view)(record)
    fig, df = lesson_figure(lv.lesson)
    words = lv.words
    chart(fig, df, "float_lesson", words["numpy"], record.code() + _CODE)
    # the leak is the lesson, not a failure of the page: a warning, never an error box
    st.warning(words["numpy"], icon=":material/lock_open:")
    st.success(words["safe"])
    st.caption(
        "Simulations on this site keep NumPy's fast, seeded noise: they are studies, not releases. "
        "A real release (the Your data page in release mode) draws every noise through the safe "
        "sampler: OpenDP rounds the value to a grid of powers of two and adds exactly sampled "
        "discrete noise, charging the rounding to the budget, so its last digits follow the same "
        "law on D and on D′ up to the factor eᵋ the guarantee allows."
    )
