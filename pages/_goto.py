"""From a point of the Compare chart to the Side by side page at that point.

A click on an estimator's line in Compare's error chart (``st.plotly_chart(on_select=...)``, points
mode) calls :func:`on_compare_click`, which maps the clicked point to its sweep point's settings with
:func:`side_by_side_target`, writes them into the sidebar (the one state the URL carries) and asks for
the jump; :func:`follow`, called at the top of the Compare page, then switches to Side by side with
``?estimator=<name>``, which that page adds to its estimators and picks for "Draw 100 releases".
Streamlit ignores ``st.switch_page`` inside a widget callback, hence the two steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from dpcore.views.goto import side_by_side_target
from pages._ui import set_sidebar

if TYPE_CHECKING:
    import pandas as pd

    from dpcore.experiments import ExperimentConfig

SIDE_BY_SIDE = "pages/side_by_side.py"
_GOTO = "_goto_side_by_side"
#: Side by side remembers which ?estimator= it last took in, so a new jump with the same name re-adds it.
SEEN = "_sbs_query"


def on_compare_click(
    chart_key: str, frame: pd.DataFrame, *, x: str, metric: str, config: ExperimentConfig
) -> Callable[[], None]:
    """The ``on_select`` callback of Compare's chart: jump to Side by side at the clicked point."""

    def clicked() -> None:
        event = st.session_state.get(chart_key)
        points = (event or {}).get("selection", {}).get("points", [])
        target = (
            side_by_side_target(points[0], frame, x=x, metric=metric, config=config)
            if points
            else None
        )
        if target is None:
            st.session_state[_GOTO] = ""  # not an estimator's line: say so, do not jump
            return
        name = target.pop("estimator")
        set_sidebar(target)  # a callback runs before the sidebar is drawn: applies at once
        st.session_state.pop(SEEN, None)
        st.session_state[_GOTO] = name

    return clicked


def follow() -> None:
    """At the top of the Compare page: carry out a jump that a click asked for."""
    name = st.session_state.pop(_GOTO, None)
    if name:
        st.switch_page(SIDE_BY_SIDE, query_params={"estimator": name})
    elif name == "":
        st.toast("Click a point on an estimator's line to open it in Side by side.")
