"""Figures on a phone (a window at most 640 px wide): nothing drawn beyond the chart or over a
control.

A vertical legend sits right of the plot and, on a 375-px screen, either runs past the chart's
right edge or squeezes the plot to a sliver; an animation's play/pause buttons sit left of its
frame slider and, at that width, over its start. :func:`for_phone` lays a figure out for such a
screen: the legend horizontal over the plot (its entries wrap into rows), the buttons in a row of
their own above the slider, which then spans the whole width. The app applies it to every chart
when the browser says its window is narrow (pages/_phone.py); wider screens get the figure as
made.
"""

from __future__ import annotations

import textwrap
from typing import Any

#: px per row of a horizontal legend (one row per about two entries at 375 px)
LEGEND_ROW = 22
#: characters per line of a legend entry (a longer name is broken at a space: ``<br>``)
LEGEND_LINE = 40
#: characters per line of an axis title on a phone (a longer one was cut at both ends)
AXIS_LINE = 44
#: characters per line of a panel title (centred over a panel narrower than the chart)
PANEL_LINE = 30
#: px a panel title takes over the plot (a legend over the plot starts above it)
PANEL_TITLE = 30
#: px the slider moves down to leave its row to the play/pause buttons
BUTTON_ROW = 42
#: px between the slider's old top (under the x axis) and the buttons: the axis title's room
AXIS_GAP = 28


def _legend_shown(spec: dict) -> bool:
    """Whether ``spec`` draws a legend (plotly's own rule: more than one named trace, or one
    trace with ``showlegend`` set, unless ``layout.showlegend`` is False)."""
    layout = spec.get("layout", {})
    if layout.get("showlegend") is False:
        return False
    listed = [t for t in spec.get("data", []) if t.get("showlegend", True) is not False]
    return layout.get("showlegend") is True or len(listed) > 1


def _entries(spec: dict) -> int:
    """How many entries the legend lists (a legend group counts once)."""
    seen = set()
    for i, trace in enumerate(spec.get("data", [])):
        if trace.get("showlegend", True) is not False:
            seen.add(trace.get("legendgroup") or f"trace {i}")
    return len(seen)


def _wrapped(trace: dict) -> dict:
    """``trace`` with its legend name broken into lines of at most :data:`LEGEND_LINE` characters
    (a horizontal legend wraps between entries, never inside one; a longer entry ran off the
    screen). Names with markup are left as they are."""
    name = trace.get("name")
    if not isinstance(name, str) or len(name) <= LEGEND_LINE or "<" in name:
        return trace
    return {**trace, "name": "<br>".join(textwrap.wrap(name, LEGEND_LINE))}


def _wrap_axis_titles(layout: dict) -> None:
    """Break every x axis title longer than :data:`AXIS_LINE` characters into lines (in place;
    markup-free titles only)."""
    for key, axis in list(layout.items()):
        if not (key.startswith("xaxis") and isinstance(axis, dict)):
            continue
        title = axis.get("title")
        text = title.get("text") if isinstance(title, dict) else title
        if isinstance(text, str) and len(text) > AXIS_LINE and "<" not in text:
            wrapped = "<br>".join(textwrap.wrap(text, AXIS_LINE))
            new = {**title, "text": wrapped} if isinstance(title, dict) else {"text": wrapped}
            layout[key] = {**axis, "title": new}


def _over(layout: dict, rows: int = 0) -> float:
    """Where (paper y) a legend over the plot starts: just over it, or over the panel titles
    (paper annotations at the plot's top, as ``make_subplots`` writes them) when there are any:
    :data:`PANEL_TITLE` px (and a line more per line of a wrapped title) in paper units of the
    plot's estimated height, which the legend's ``rows`` take from a figure of fixed height
    (about 29 px each as drawn on a phone: Binary product's five rows reached its three-line
    panel title when the estimate left them out)."""
    tops = [
        a
        for a in layout.get("annotations") or []
        if isinstance(a, dict) and a.get("yref") == "paper" and float(a.get("y", 0)) >= 0.95
    ]
    if not tops:
        return 1.02
    lines = max(str(a.get("text", "")).count("<br>") + 1 for a in tops)
    margin = layout.get("margin") or {}
    plot = float(layout.get("height") or 450) - margin.get("t", 80) - margin.get("b", 80)
    plot -= rows * LEGEND_ROW * 1.3
    return 1.0 + (PANEL_TITLE + 21 * (lines - 1)) / max(plot, 120.0)


def _wrap_panel_titles(layout: dict) -> None:
    """Break every panel title (a paper annotation, as ``make_subplots`` writes them) longer than
    :data:`PANEL_LINE` characters into lines (in place; markup-free titles only): a longer one ran
    past the chart's right edge."""
    notes = layout.get("annotations")
    if not isinstance(notes, list):
        return
    layout["annotations"] = [
        {**a, "text": "<br>".join(textwrap.wrap(a["text"], PANEL_LINE))}
        if isinstance(a, dict)
        and a.get("yref") == "paper"
        and isinstance(a.get("text"), str)
        and len(a["text"]) > PANEL_LINE
        and "<" not in a["text"]
        else a
        for a in notes
    ]


def for_phone(spec: dict) -> dict:
    """Figure dict ``spec`` (a ``to_dict()``) laid out for a phone: a vertical legend, or one
    under the plot, made horizontal over the plot (the figure grows by its rows when it has a height), long legend
    entries and x axis titles broken into lines (:func:`_wrapped`, :func:`_wrap_axis_titles`),
    and the
    play/pause buttons of an animation placed above its slider, which gets the full width.
    ``spec`` is not changed; its traces' data are shared, not copied.

    Examples
    --------
    >>> out = for_phone({"data": [{"name": "a"}, {"name": "b"}], "layout": {"height": 300}})
    >>> out["layout"]["legend"]["orientation"], out["layout"]["height"]
    ('h', 322)
    >>> out = for_phone({"data": [], "layout": {
    ...     "updatemenus": [{"type": "buttons", "x": 0, "y": -0.18}],
    ...     "sliders": [{"x": 0.22, "y": -0.12, "len": 0.78}]}})
    >>> out["layout"]["sliders"][0]["x"], out["layout"]["sliders"][0]["len"]
    (0.0, 1.0)
    >>> out["layout"]["updatemenus"][0]["y"] == out["layout"]["sliders"][0]["y"]
    True
    """
    layout: dict[str, Any] = dict(spec.get("layout", {}))
    _wrap_axis_titles(layout)
    _wrap_panel_titles(layout)
    legend = dict(layout.get("legend") or {})
    vertical = legend.get("orientation") != "h"
    below = not vertical and float(legend.get("y", 1.0)) < 0
    if _legend_shown(spec) and (vertical or below):
        # over the plot (plotly makes room for it in the top margin): under the plot it met the x
        # axis's title (two lines on a phone), whose height plotly does not tell; on a phone the
        # chart's title is the line the page writes above the chart (pages/_phone.py), not plotly's
        over = _over(layout, (_entries(spec) + 1) // 2)
        legend.update(orientation="h", x=0.0, xanchor="left", y=over, yanchor="bottom")
        legend.pop("entrywidth", None)
        layout["legend"] = legend
        if vertical:  # its rows are new height; a legend from below brings its own
            if isinstance(layout.get("height"), (int, float)):
                layout["height"] = layout["height"] + LEGEND_ROW * ((_entries(spec) + 1) // 2)
            margin = dict(layout.get("margin") or {})
            margin["r"] = min(margin.get("r", 20), 20)  # the right margin held the legend
            layout["margin"] = margin
    menus, sliders = layout.get("updatemenus"), layout.get("sliders")
    if menus and sliders:
        top = sliders[0].get("y", 0.0)
        layout["updatemenus"] = [  # clear of the x axis's title
            {**m, "x": 0.0, "xanchor": "left", "y": top, "yanchor": "top", "pad": {"t": AXIS_GAP}}
            for m in menus
        ]
        layout["sliders"] = [
            {
                **s,
                "x": 0.0,
                "len": 1.0,
                "pad": {
                    **(s.get("pad") or {}),
                    "t": BUTTON_ROW + (s.get("pad") or {}).get("t", 20),
                },
            }
            for s in sliders
        ]
        if isinstance(layout.get("height"), (int, float)):
            layout["height"] = layout["height"] + AXIS_GAP + BUTTON_ROW
    data = (
        [_wrapped(t) for t in spec.get("data", [])] if _legend_shown(spec) else spec.get("data", [])
    )
    return {**spec, "data": data, "layout": layout}
