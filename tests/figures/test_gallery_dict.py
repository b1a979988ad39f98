"""Side by side's gallery (two rows, one column per estimator) drawn as a dict on a layout kept
per process (``gallery_figure(drawn=True)``: no validation pass) is the figure plotly builds: the
same JSON object, arrays compared as numbers, at the page's defaults, at other coordinates and
estimators, and twice on one layout (the kept layout is copied, never changed); PLAN's step
animation (``plan_steps_animation(drawn=True)``, with its frames) the same way."""

from __future__ import annotations

import dataclasses

import plotly.graph_objects as go
import pytest

from dpcore.figures.gallery import gallery_figure
from dpcore.figures.motion import plan_steps_animation
from dpcore.views import side_by_side as sbs
from dpcore.views.settings import DataSettings
from tests.figures._chart_json import check_drawn

DEFAULT = sbs.SideBySideSettings(DataSettings(seed=3))
SETTINGS = {
    "defaults": DEFAULT,
    "other seed": dataclasses.replace(DEFAULT, data=DataSettings(seed=8)),
    "coords 2, 3, two estimators": dataclasses.replace(
        DEFAULT, i=2, j=3, names=("plan", "gaussian_private")
    ),
    "presenting": dataclasses.replace(DEFAULT, presenting=True),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_gallery_as_a_dict_is_plotlys_figure(name):
    check_drawn(gallery_figure, **sbs.view(SETTINGS[name]).gallery)


def test_other_views_stay_figures():
    v = sbs.view(DEFAULT)
    for kwargs in ({"view": "overlay"}, {"zoom": "clip"}):
        args = {**v.gallery, **kwargs}
        fig, _ = gallery_figure(**args, drawn=True)
        assert isinstance(fig, go.Figure)


@pytest.mark.parametrize("name", ["defaults", "coords 2, 3, two estimators"])
def test_plan_steps_animation_as_a_dict_is_plotlys_figure(name):
    chart = check_drawn(plan_steps_animation, **sbs.view(SETTINGS[name]).steps)
    assert len(chart["frames"]) == 4
