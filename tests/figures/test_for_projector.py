"""Presenter mode's figure text (dpcore.figures.style.for_projector, docs/classroom.md "Text for a
room"): every axis a trace draws on gets its tick size, and an animation whose frames retitle it
keeps its title in the chart, with its legend out of the title's way."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore.figures.motion import exponent_sweep_animation
from dpcore.figures.style import PROJECTOR_TEXT, error_split_chart, for_projector


def test_an_axis_the_figure_never_styled_gets_the_projector_tick_size():
    df = pd.DataFrame(
        {
            "estimator": ["PLAN", "IOME"],
            "sampling": [0.5, 0.5],
            "clipping": [0.1, 0.2],
            "noise": [0.3, 0.4],
            "total": [0.6, 0.7],
        }
    )
    spec = error_split_chart(df).to_dict()
    assert "tickfont" not in spec["layout"].get("xaxis", {})  # the chart never styled its x-axis
    for scale in (1.0, 1.25):
        out = for_projector(spec, scale)["layout"]
        for axis in ("xaxis", "yaxis"):
            assert out[axis]["tickfont"]["size"] == round(PROJECTOR_TEXT * scale), (axis, scale)
    assert "xaxis" not in spec["layout"] or "tickfont" not in spec["layout"]["xaxis"]  # unchanged


def test_a_retitled_animation_keeps_its_title_above_a_legend_beside_the_plot():
    fig, _ = exponent_sweep_animation(np.array([3.0, 2.0, 1.0, 0.5]), 1000, 0.25)
    spec = fig.to_dict()
    assert all("title" in f["layout"] for f in spec["frames"])
    layout = for_projector(spec, 1.25)["layout"]
    title, legend = layout["title"], layout["legend"]
    assert title["text"] == spec["layout"]["title"]["text"]  # the frames retitle it in place
    assert title["font"]["size"] >= round(PROJECTOR_TEXT * 1.25)
    assert (title["yref"], title["yanchor"], title["automargin"]) == ("container", "top", True)
    # the legend starts at the plot's top edge, right of it: the title is in the margin above
    assert (legend["orientation"], legend["x"], legend["xanchor"]) == ("v", 1.02, "left")
    assert (legend["y"], legend["yanchor"]) == (1.0, "top")
    assert spec["layout"]["legend"]["orientation"] == "h"  # the figure itself is unchanged


def test_a_figure_without_frames_still_loses_its_title_to_the_line_above():
    fig, _ = exponent_sweep_animation(np.array([3.0, 2.0, 1.0]), 1000, 0.25)
    spec = fig.to_dict()
    spec.pop("frames")
    assert for_projector(spec)["layout"]["title"] == {"text": ""}


def test_a_legend_row_below_the_plot_goes_to_the_foot_of_the_figure_under_the_axes():
    # a legend y in plot heights lands on the x-axis title of a short slide (Binary product at
    # 1280x720): at the figure's foot plotly reserves its height, and the axes push their margins
    spec = {
        "data": [{"type": "scatter", "x": [0, 1], "y": [0, 1], "name": "a"}],
        "layout": {
            "legend": {"orientation": "h", "y": -0.12},
            "xaxis": {"title": {"text": "rank"}},
        },
    }
    layout = for_projector(spec)["layout"]
    legend = layout["legend"]
    assert (legend["yref"], legend["y"], legend["yanchor"]) == ("container", 0.0, "bottom")
    assert layout["xaxis"]["automargin"] is True and layout["yaxis"]["automargin"] is True
    assert spec["layout"]["legend"] == {"orientation": "h", "y": -0.12}  # unchanged
    for legend in ({"orientation": "h", "y": 1.02}, {"y": -0.2}):  # above the plot; vertical
        spec["layout"]["legend"] = legend
        assert "yref" not in for_projector(spec)["layout"]["legend"]
