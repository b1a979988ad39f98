"""From a point of the Compare chart to the Side by side page at that point.

A click on an estimator's line in Compare's error chart (``st.plotly_chart(on_select=...)``, points
mode) calls :func:`on_compare_click`, which maps the clicked point to its sweep point's settings with
:func:`side_by_side_target`, writes them into the sidebar (the one state the URL carries) and asks for
the jump; :func:`follow`, called at the top of the Compare page, then switches to Side by side with
``?estimator=<name>``, which that page adds to its estimators and picks for "Draw 100 releases".
Streamlit ignores ``st.switch_page`` inside a widget callback, hence the two steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.experiments import ExperimentConfig
from pages._ui import set_sidebar

SIDE_BY_SIDE = "pages/side_by_side.py"
_GOTO = "_goto_side_by_side"
#: Side by side remembers which ?estimator= it last took in, so a new jump with the same name re-adds it.
SEEN = "_sbs_query"


def side_by_side_target(
    point: Mapping[str, Any],
    frame: pd.DataFrame,
    *,
    x: str,
    metric: str,
    config: ExperimentConfig,
) -> dict[str, Any] | None:
    """The sidebar values and the estimator that open Side by side at a clicked Compare point.

    Parameters
    ----------
    point : mapping
        One point of a Plotly selection event (``event.selection.points[0]``): ``legendgroup`` (the
        estimator's id in the experiment, as :func:`dpcore.figures.compare.error_figure` sets it on
        its lines), ``x`` (the swept value) and ``y`` (the median error drawn there, which tells
        the facets of a two-way sweep apart).
    frame : DataFrame
        The runs behind the chart (:func:`dpcore.experiments.run`).
    x, metric : str
        The chart's x axis (``budget``, ``n``, ``d`` or ``skew``) and error norm.
    config : ExperimentConfig
        The experiment (its distribution, unit and delta).

    Returns
    -------
    dict or None
        ``distribution``, ``n``, ``d``, ``skew``, ``budget_value``, ``unit``, ``delta`` of that
        sweep point and ``estimator`` (the registry name), or None when the point is not on an
        estimator's line (the floor, a theory curve, a best-point star) or not in ``frame``.
    """
    group, px = point.get("legendgroup"), point.get("x")
    if group is None or px is None or x not in frame:
        return None
    rows = frame[frame["estimator"].astype(str) == str(group)]
    rows = rows[np.isclose(rows[x].astype(float), float(px), rtol=1e-9, atol=0.0)]
    if rows.empty:
        return None
    medians = rows.groupby("setting", sort=False)[f"err_{metric}"].median()
    y = point.get("y")
    setting = (
        medians.index[0] if y is None or len(medians) == 1 else (medians - float(y)).abs().idxmin()
    )
    row = rows[rows["setting"] == setting].iloc[0]
    return {
        "distribution": config.distribution,
        "n": int(row["n"]),
        "d": int(row["d"]),
        "skew": float(row["skew"]),
        "budget_value": float(row["budget"]),
        "unit": config.unit,
        "delta": float(config.delta),
        "estimator": str(row["name"]),
    }


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
