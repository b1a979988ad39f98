"""The Free lunch page's charts drawn on a DictFigure (dpcore.figures.dict_figure: plotly's dict
without its validation) are the figures plotly builds from the same calls: the same JSON object
(arrays compared as numbers), log axes tidied as pages._ui.chart tidies a figure's."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from dpcore.figures import simplex as fs
from dpcore.figures.dict_figure import DictFigure, chart_dict
from dpcore.figures.style import tidy_log_axes
from dpcore.views.settings import DataSettings
from dpcore.views.simplex import SimplexSettings, view
from tests.figures._chart_json import as_numbers

SETTINGS = {
    "defaults": SimplexSettings(DataSettings(seed=5)),
    "laplace, replace-one": SimplexSettings(
        DataSettings(seed=6), mech="laplace", relation="replace-one", p=0.2
    ),
    "paid count": SimplexSettings(DataSettings(seed=7), count_fraction=0.2),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_simplex_charts_as_dicts_are_plotlys_figures(name):
    v = view(SETTINGS[name])
    calls = [
        (fs.geometry_d1, (v.geometry_x, 1.0), {}),
        (fs.triangle_d2, (v.triangle_z, 1.0), {}),
        (fs.release_picture, (v.releases,), {}),
        (fs.variance_figure, (v.theory, v.sim), {"known_n": True}),
        (fs.variance_figure, (v.theory, v.sim), {"known_n": False}),
    ]
    if v.counts is not None:
        calls.append((fs.count_figure, (v.counts, SETTINGS[name].data.n), {}))
    for build, args, kwargs in calls:
        made, fast = build(*args, **kwargs), chart_dict(build, *args, **kwargs)
        fig, chart = (made[0], fast[0]) if isinstance(made, tuple) else (made, fast)
        assert as_numbers(chart) == as_numbers(tidy_log_axes(fig).to_dict()), build.__name__
        go.Figure(chart)  # plotly takes it as it is (raises on an invalid property)


def test_dict_figure_updates_merge_as_plotlys():
    calls = [
        ("update_xaxes", {"title": "x", "range": [0, 1]}),
        ("update_yaxes", {"title_text": "y", "type": "log"}),
        ("update_layout", {"legend": {"font": {"size": 11}}, "barmode": "overlay"}),
        ("update_layout", {"legend_x": 0.5, "margin": {"l": 3}}),
        ("add_vline", {"x": 2.0, "line": {"color": "#333", "dash": "dash"}}),
        ("add_annotation", {"x": 2.0, "y": 1, "yref": "paper", "text": "n", "showarrow": False}),
    ]
    plain, real = (
        DictFigure({"type": "scatter", "x": [1, 2], "y": [3, 4]}),
        go.Figure(go.Scatter(x=[1, 2], y=[3, 4])),
    )
    for method, kwargs in calls:
        getattr(plain, method)(**kwargs)
        getattr(real, method)(**kwargs)
    want = real.to_dict()
    want["layout"].pop("template")
    assert as_numbers(plain.to_dict()) == as_numbers(want)
