"""The Winsorized mean page's four charts drawn on a DictFigure (dpcore.figures.dict_figure:
plotly's dict without its validation) are the figures plotly builds from the same calls: the same
JSON object (arrays compared as numbers), log axes tidied as pages._ui.chart tidies a figure's."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from dpcore.figures import winsorized as fw
from dpcore.figures.dict_figure import plain_chart_dict
from dpcore.figures.style import tidy_log_axes
from dpcore.views import winsorized as vw
from dpcore.views.settings import DataSettings
from tests.figures._chart_json import as_numbers

SETTINGS = {
    "defaults": (vw.WinsorizedSettings(DataSettings(seed=5), sweep_reps=4), 4),
    "another seed, small groups": (vw.WinsorizedSettings(DataSettings(seed=8), sweep_reps=4), 2),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_winsorized_charts_as_dicts_are_plotlys_figures(name):
    record, size = SETTINGS[name]
    v = vw.view(record)
    curve = vw.CurveSettings(record, "mean", 4)
    cv = vw.curve_view(curve)
    g = vw.group_view(vw.GroupSettings(curve, size))
    calls = [
        (fw.interval_histogram, (v.x, v.estimate), {"true_mean": v.truth}),
        (fw.contamination_figure, (v.sweep, 0.05), {}),
        (fw.contamination_figure, (v.sweep, None), {}),
        (fw.sa_strip, (g.theta, g.estimate, g.full), {}),
        (fw.sa_error_figure, (cv.curve, size), {}),
        (fw.sa_error_figure, (cv.curve, None), {}),
    ]
    for build, args, kwargs in calls:
        made, fast = build(*args, **kwargs), plain_chart_dict(build, *args, **kwargs)
        fig, chart = (made[0], fast[0]) if isinstance(made, tuple) else (made, fast)
        if isinstance(made, tuple):
            assert made[1].equals(fast[1]), build.__name__
        assert as_numbers(chart) == as_numbers(tidy_log_axes(fig).to_dict()), build.__name__
        go.Figure(chart)  # plotly takes it as it is (raises on an invalid property)
