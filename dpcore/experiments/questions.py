"""Predict, then reveal: a question a lecturer asks before a chart, with its answer taken from the
run the chart draws (never written by hand).

Examples
--------
>>> from dpcore.experiments import ExperimentConfig, run
>>> config = ExperimentConfig(n=500, d=8, estimators=["plan", "gaussian_private"],
...                           sweep={"budget": [0.05, 1.0]}, repetitions=4, seed=0)
>>> q = lowest_error_question(run(config), "budget", "l2", unit="rho")
>>> q.text
'Which estimator has the smallest typical error at the smallest ρ of the sweep (0.05)?'
>>> q.options
('PLAN', 'Gaussian mechanism')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.experiments.summaries import Groups, point_medians, private_rows

_AXIS = {"budget": "{unit}", "n": "n", "d": "d", "skew": "skew"}
_UNITS = {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}


@dataclass(frozen=True)
class Question:
    """A question before a chart: its text, the answers offered and the run's answer."""

    key: str
    text: str
    options: tuple[str, ...]
    answer: str


def lowest_error_question(frame: pd.DataFrame, x: str, metric: str, *, unit: str) -> Question:
    """ "Which estimator has the smallest typical error at the smallest ``x`` of the sweep?"

    Parameters
    ----------
    frame : pandas.DataFrame
        A Compare sweep (one row per estimator, point and repetition; :func:`dpcore.experiments.run`).
    x : str
        The swept axis (``"budget"``, ``"n"``, ``"d"`` or ``"skew"``).
    metric : str
        The error column's metric (``"l2"`` reads ``err_l2``).
    unit : str
        The budget's unit (``"rho"``, ``"eps"``, ``"eps_delta"``), to name the axis.

    Returns
    -------
    Question
        The private estimators in the run as the options (in the sweep's order) and, as the
        answer, the one whose median error over the runs that completed is smallest there.

    Raises
    ------
    ValueError
        If no private estimator completed a run at that point.
    """
    # the rows' columns read through one mask (no filtered copies of the frame: every Compare
    # view asks); the medians are pandas' grouped ones (``point_medians``), groups in order of
    # first appearance as ``groupby(sort=False)`` numbers them
    keep = private_rows(frame) & (frame["failed"].to_numpy(object) == "")
    labels = frame["label"].to_numpy(object)[keep]
    xs = frame[x].to_numpy()[keep]
    seen = xs[~pd.isna(xs)]
    at = xs == seen.min() if seen.size else np.zeros(len(xs), bool)
    if not at.any():
        raise ValueError("no private estimator completed a run at the first point; pick others.")
    cells = Groups([labels[at]])
    medians = point_medians(cells, frame[f"err_{metric}"].to_numpy(float)[keep][at])
    if np.isnan(medians).all():
        raise ValueError("no private estimator completed a run at the first point; pick others.")
    name = _AXIS[x].format(unit=_UNITS.get(unit, unit))
    point = float(xs[at][0])
    return Question(
        key=f"lowest-{x}-{metric}",
        text=f"Which estimator has the smallest typical error at the smallest {name} of the "
        f"sweep ({point:g})?",
        options=tuple(dict.fromkeys(labels)),
        answer=str(labels[at][cells.first[int(np.nanargmin(medians))]]),
    )
