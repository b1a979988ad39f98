"""Binary product's ladder chart drawn as a dict on a layout kept per process
(``ladder_figure(drawn=True)``: no validation pass) is the figure plotly builds, its log axes
tidied as ``pages._ui.chart`` tidies a figure's: the same JSON object, arrays compared as numbers,
at the page's defaults and at other profiles and sizes, and twice on one layout (the kept layout
is copied, never changed)."""

from __future__ import annotations

import dataclasses

import plotly.graph_objects as go
import pytest

from dpcore.figures.binary_product import ladder_figure
from dpcore.figures.style import tidy_log_axes
from dpcore.views import binary_product as bp
from dpcore.views.settings import DataSettings
from tests.figures._chart_json import as_numbers

DEFAULT = bp.BinaryProductSettings(DataSettings(seed=3))
SETTINGS = {
    "defaults": DEFAULT,
    "other seed": dataclasses.replace(DEFAULT, data=DataSettings(seed=8)),
    "dense, flip, small": dataclasses.replace(DEFAULT, profile="dense", d=64, n=30_000, flip=True),
    "two_level, d 128": dataclasses.replace(DEFAULT, profile="two_level", d=128, n=100_000),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_ladder_as_a_dict_is_plotlys_tidied_figure(name):
    v = bp.view(SETTINGS[name])
    fig = ladder_figure(v.ladder, list(v.rounds))
    assert isinstance(fig, go.Figure)
    want = as_numbers(tidy_log_axes(fig).to_dict())
    for _ in range(2):  # the second on the same kept layout
        chart = ladder_figure(v.ladder, list(v.rounds), drawn=True)
        assert isinstance(chart, dict)
        assert as_numbers(chart) == want
    assert "tickvals" in chart["layout"]["yaxis"] and "tickvals" in chart["layout"]["yaxis2"]
    go.Figure(chart)  # plotly takes it as it is (raises on an invalid property)
