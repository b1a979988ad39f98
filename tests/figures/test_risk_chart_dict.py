"""The Privacy budget page's per-seed charts drawn as dicts (``chart_dict``: plotly's dict without
its validation) are the figures plotly builds from the same calls: the same JSON object, arrays
compared as numbers, at a zCDP budget (a Gaussian-DP trade-off curve) and a pure one."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from dpcore.figures.dict_figure import chart_dict
from dpcore.figures.risk import attack_figure, guesses_figure, tradeoff_figure
from dpcore.figures.style import tidy_log_axes
from dpcore.views.privacy_budget import PrivacyBudgetSettings, view
from dpcore.views.settings import DataSettings
from tests.figures._chart_json import as_numbers

SETTINGS = {
    "rho": DataSettings(seed=3),
    "pure eps": DataSettings(seed=4, unit="eps", budget_value=1.0),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_privacy_budget_charts_as_dicts_are_plotlys_figures(name):
    data = SETTINGS[name]
    v = view(PrivacyBudgetSettings(data, (0.125, 0.5, 2.0)))
    trade = {
        "mu": v.mu,
        "epsilon": None if v.mu is not None else v.odds_epsilon,
        "points": v.tradeoff_points,
        "points_label": "the differencing attack",
    }
    calls = [
        (guesses_figure, (v.run,), {}),
        (attack_figure, (v.curve, data.budget_value, v.unit_label), {}),
        (tradeoff_figure, (), trade),
    ]
    for build, args, kwargs in calls:
        (fig, frame), (chart, fast) = build(*args, **kwargs), chart_dict(build, *args, **kwargs)
        assert isinstance(chart, dict)
        assert as_numbers(chart) == as_numbers(tidy_log_axes(fig).to_dict()), build.__name__
        assert frame.equals(fast)
        go.Figure(chart)  # plotly takes it as it is (raises on an invalid property)
