"""From a point of Compare's error chart to the sweep point it stands for (the Side by side page
opens there): :func:`side_by_side_target`. The Streamlit wiring (the click callback, the page
switch) is ``pages/_goto.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from dpcore.experiments import ExperimentConfig

__all__ = ["side_by_side_target"]


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
