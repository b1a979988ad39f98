"""Compare's chart -> Side by side: the mapping from a clicked point (a Plotly selection
event's point) to the sweep point's settings and the estimator, on a real seeded two-way sweep whose
chart has one panel per n, so the median drawn (``y``) has to tell the panels apart."""

import numpy as np
import pytest

from dpcore.experiments import ExperimentConfig, run
from dpcore.figures.compare import error_figure
from dpcore.views.goto import side_by_side_target

CONFIG = ExperimentConfig(
    distribution="gaussian",
    n=300,
    d=4,
    skew=1.0,
    budget=0.5,
    unit="rho",
    seed=3,
    repetitions=3,
    estimators=["empirical", "plan", "gaussian_private"],
    sweep={"budget": [0.25, 1.0], "n": [300, 600]},
)


@pytest.fixture(scope="module")
def chart():
    frame = run(CONFIG)
    fig, _ = error_figure(frame, x="budget", metric="l2", config=CONFIG)
    return frame, [t.to_plotly_json() for t in fig.data]


def _point(trace: dict, k: int) -> dict:
    """What Streamlit puts in ``event.selection.points`` for a click on point ``k`` of ``trace``."""
    return {
        "curve_number": 0,
        "point_index": k,
        "x": float(trace["x"][k]),
        "y": float(trace["y"][k]),
        "legendgroup": trace.get("legendgroup"),
    }


def test_each_point_of_each_line_maps_to_its_own_sweep_point(chart):
    frame, traces = chart
    lines = [t for t in traces if t.get("mode") == "lines+markers"]
    assert len(lines) == 2 * 3  # one panel per n, one line per estimator
    seen = set()
    for trace in lines:
        for k in range(len(trace["x"])):
            target = side_by_side_target(
                _point(trace, k), frame, x="budget", metric="l2", config=CONFIG
            )
            assert target is not None
            cell = frame[
                (frame["estimator"] == trace["legendgroup"])
                & np.isclose(frame["budget"], target["budget_value"])
                & (frame["n"] == target["n"])
            ]
            # the target's cell is the one whose median the clicked point shows
            assert np.isclose(cell["err_l2"].median(), trace["y"][k])
            assert target["budget_value"] == pytest.approx(trace["x"][k])
            assert target["estimator"] == trace["legendgroup"]
            assert (target["distribution"], target["d"], target["unit"]) == ("gaussian", 4, "rho")
            assert target["skew"] == pytest.approx(1.0)
            seen.add((target["estimator"], target["n"], target["budget_value"]))
    assert len(seen) == 3 * 2 * 2  # every (estimator, n, budget) reached exactly once


def test_points_off_the_estimators_lines_do_not_jump(chart):
    frame, traces = chart
    floor = next(t for t in traces if t.get("legendgroup") == "floor")
    assert (
        side_by_side_target(_point(floor, 0), frame, x="budget", metric="l2", config=CONFIG) is None
    )
    plan = next(t for t in traces if t.get("legendgroup") == "plan")
    off = {**_point(plan, 0), "x": 123.0}
    assert side_by_side_target(off, frame, x="budget", metric="l2", config=CONFIG) is None
    assert side_by_side_target({}, frame, x="budget", metric="l2", config=CONFIG) is None
