"""A figure split per panel or per column as dicts (``split_subplots`` / ``split_columns`` with
``drawn=True``: plotly's JSON rearranged, without its validation pass) is the JSON of the validated
parts, arrays compared as numbers: the Side by side gallery and PLAN step by step's charts at their
defaults."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from dpcore.figures.gallery import gallery_figure
from dpcore.figures.plan import noise_figure, plan_steps_figure
from dpcore.figures.slides import split_columns, split_subplots
from dpcore.views import plan, side_by_side
from dpcore.views.settings import DataSettings
from tests.figures._chart_json import as_numbers


def _figures() -> dict[str, go.Figure]:
    sbs = side_by_side.view(side_by_side.SideBySideSettings(DataSettings(seed=3)))
    steps = plan.view(plan.PlanSettings(DataSettings(seed=4)))
    return {
        "gallery": gallery_figure(**sbs.gallery)[0],
        "plan steps": plan_steps_figure(**steps.steps)[0],
        "noise ellipse": noise_figure(**steps.noise)[0],
    }


FIGURES = _figures()


def _filled(v: object) -> object:
    """``v`` without empty dicts: plotly's validation drops an empty property (a one-panel figure's
    ``to_dict()`` may hold ``"title": {}``, which draws as no title)."""
    if isinstance(v, dict):
        return {k: _filled(u) for k, u in v.items() if u != {}}
    if isinstance(v, list):
        return [_filled(u) for u in v]
    return v


@pytest.mark.parametrize("name", FIGURES)
@pytest.mark.parametrize("split", [split_subplots, split_columns])
def test_split_parts_as_dicts_are_the_validated_parts(name, split):
    fig = FIGURES[name]
    validated, fast = split(fig), split(fig, drawn=True)
    assert len(fast) == len(validated)
    for part, spec in zip(validated, fast, strict=True):
        assert isinstance(spec, dict)
        assert _filled(as_numbers(spec)) == _filled(as_numbers(part.to_dict()))
        go.Figure(spec)  # plotly takes it as it is (raises on an invalid property)
