"""dpcore.figures.phone.for_phone: a figure laid out for a 375-px screen (legend over the plot in
rows, long names in lines, play/pause in a row above a full-width slider), the input unchanged."""

from __future__ import annotations

import copy

from dpcore.figures.phone import AXIS_LINE, LEGEND_LINE, for_phone


def _legend_figure() -> dict:
    long = "Noisy sum / n (n as public side information: not DP under add-remove)"
    return {
        "data": [{"name": "PLAN", "y": [1, 2]}, {"name": long, "y": [2, 3]}],
        "layout": {
            "height": 400,
            "legend": {"x": 1.02, "y": 1},
            "margin": {"r": 160},
            "xaxis": {"title": {"text": "where the data's mean sits in [0, R]: p = mu/R, a share"}},
        },
    }


def test_a_vertical_legend_goes_over_the_plot_in_rows_and_long_names_break():
    spec = _legend_figure()
    before = copy.deepcopy(spec)
    out = for_phone(spec)
    assert spec == before  # the figure as made is kept for wide screens
    legend = out["layout"]["legend"]
    assert legend["orientation"] == "h" and legend["y"] > 1 and legend["yanchor"] == "bottom"
    assert out["layout"]["margin"]["r"] <= 20 and out["layout"]["height"] > 400
    lines = out["data"][1]["name"].split("<br>")
    assert len(lines) > 1 and all(len(line) <= LEGEND_LINE for line in lines)
    assert out["data"][0]["name"] == "PLAN"
    title = out["layout"]["xaxis"]["title"]["text"].split("<br>")
    assert len(title) > 1 and all(len(line) <= AXIS_LINE for line in title)


def test_the_play_buttons_get_a_row_above_a_full_width_slider():
    spec = {
        "data": [],
        "layout": {
            "updatemenus": [{"type": "buttons", "x": 0.0, "y": -0.18, "yanchor": "top"}],
            "sliders": [{"x": 0.22, "y": -0.12, "len": 0.78}],
        },
    }
    out = for_phone(spec)["layout"]
    menu, slider = out["updatemenus"][0], out["sliders"][0]
    assert slider["x"] == 0.0 and slider["len"] == 1.0
    assert menu["y"] == slider["y"] and menu["yanchor"] == "top"
    # the slider starts below the buttons' row: its top padding exceeds the buttons' own
    assert slider["pad"]["t"] > menu["pad"]["t"] + 30


def test_a_legend_under_the_plot_moves_over_it_and_one_over_it_stays():
    names = [{"name": "central DP"}, {"name": "local DP"}]
    under = {"data": names, "layout": {"legend": {"orientation": "h", "y": -0.3}}}
    assert for_phone(under)["layout"]["legend"]["y"] > 1
    over = {"data": names, "layout": {"legend": {"orientation": "h", "y": 1.1, "x": 0.5}}}
    assert for_phone(over)["layout"]["legend"] == {"orientation": "h", "y": 1.1, "x": 0.5}
