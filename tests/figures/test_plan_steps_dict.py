"""PLAN step by step's four panels drawn as a dict (``plan_steps_figure(drawn=True)``: the layout
laid out by plotly once per process, the traces not validated) are the figure plotly builds: the
same JSON object, arrays compared as numbers, at the page's defaults, another seed and other
coordinates, and twice on one kept layout (it is copied, never changed); the noise ellipse
(``noise_figure(drawn=True)``, a DictFigure) the same way."""

from __future__ import annotations

import dataclasses

import pytest

from dpcore.figures.plan import noise_figure, noise_shapes_figure, plan_steps_figure
from dpcore.views import plan
from dpcore.views.settings import DataSettings
from tests.figures._chart_json import check_drawn

DEFAULT = plan.PlanSettings(DataSettings(seed=4))
SETTINGS = {
    "defaults": DEFAULT,
    "another seed": dataclasses.replace(DEFAULT, data=DataSettings(seed=9)),
    "coordinates 2 and 3": dataclasses.replace(DEFAULT, i=2, j=3),
}


@pytest.mark.parametrize("name", SETTINGS)
def test_plan_steps_as_a_dict_is_plotlys_figure(name):
    check_drawn(plan_steps_figure, **plan.view(SETTINGS[name]).steps)


@pytest.mark.parametrize("name", SETTINGS)
def test_noise_ellipse_as_a_dict_is_plotlys_figure(name):
    check_drawn(noise_figure, **plan.view(SETTINGS[name]).noise)


@pytest.mark.parametrize("name", SETTINGS)
def test_noise_shapes_as_a_dict_is_plotlys_figure(name):
    check_drawn(noise_shapes_figure, **plan.view(SETTINGS[name]).shapes)
