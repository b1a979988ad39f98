"""A one-panel figure built as the dict plotly writes for it, without plotly's validation.

Plotly validates every trace and every layout update a ``go.Figure`` takes: for the small charts
of a page that is most of their cost (10-40 ms each, per new seed). :class:`DictFigure` takes the
few calls the one-panel builders make (``add_trace`` of a :func:`~dpcore.figures.style.trace`
dict, ``update_layout``, ``update_xaxes``, ``update_yaxes``, ``add_vline``, ``add_annotation``)
and records them in a plain dict, and :func:`styled` gives it the house style from a layout
plotly made once per process (:func:`dpcore.figures.compare_layout.styled_layout`). Its
:meth:`~DictFigure.to_dict` is the JSON object plotly's ``go.Figure(...).to_dict()`` gives for the
same calls, NumPy arrays as plotly's typed arrays (``tests/figures/test_dict_figure.py`` builds the page's charts both
ways). ``st.plotly_chart`` draws it as it is (:func:`~dpcore.figures.style.prepared`);
``go.Figure(fig.to_dict())`` validates it where a figure object is wanted.
"""

from __future__ import annotations

import base64
import copy
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from dpcore.figures.compare_layout import json_ready, merge, styled_layout
from dpcore.figures.style import add_shapes as style_add_shapes
from dpcore.figures.style import log_ticks, style

#: What a builder draws on: :func:`~dpcore.figures.style.figure` (a ``go.Figure``, the default)
#: or :class:`DictFigure`, called with the builder's first traces.
Builder = Callable[..., Any]


def _nested(updates: dict[str, Any]) -> dict[str, Any]:
    """Keyword updates as nested properties: a string ``title`` is ``{"text": ...}`` (as plotly
    reads it) and ``a_b=v`` is ``{"a": {"b": v}}`` (plotly's magic underscores)."""
    out: dict[str, Any] = {}
    for key, value in updates.items():
        if key == "title" and isinstance(value, str):
            value = {"text": value}
        elif isinstance(value, dict):
            value = _nested(value)
        head, _, rest = key.partition("_")
        merge(out, {head: _nested({rest: value})} if rest else {key: copy.deepcopy(value)})
    return out


_INT_CODES = ("i1", "u1", "i2", "u2", "i4", "u4")


def typed(value: Any) -> Any:
    """``value`` (a trace's dict, or part of it) with its NumPy number arrays written as plotly's
    ``to_dict`` writes them: typed arrays (``{"dtype", "bdata", "shape"}``, integers in the
    smallest type that holds them), which plotly's JSON copies as they are; a large array left
    as an array is written number by number, many times slower."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu" or not value.size:
        return value
    if value.dtype.kind == "f":
        code = value.dtype.str[1:]
    else:
        lo, hi = int(value.min()), int(value.max())
        code = next((c for c in _INT_CODES if np.iinfo(c).min <= lo and hi <= np.iinfo(c).max), "")
        if not code:
            return value
    arr = np.ascontiguousarray(value, dtype=np.dtype(code).newbyteorder("<"))
    spec = {"dtype": code, "bdata": base64.b64encode(arr.tobytes()).decode("ascii")}
    return spec | ({"shape": ", ".join(map(str, arr.shape))} if arr.ndim > 1 else {})


def untyped(value: Any) -> Any:
    """``value`` with plotly's typed arrays (:func:`typed`) read back as NumPy arrays, for a
    ``go.Figure`` whose traces' ``x``/``y`` a notebook reads as numbers.

    >>> untyped({"y": typed(np.array([0.5, 2.0]))})["y"]
    array([0.5, 2. ])
    """
    if isinstance(value, dict) and {"dtype", "bdata"} <= value.keys():
        arr = np.frombuffer(
            base64.b64decode(value["bdata"]), np.dtype(value["dtype"]).newbyteorder("<")
        )
        shape = value.get("shape")
        return (arr.reshape([int(k) for k in shape.split(",")]) if shape else arr).astype(
            arr.dtype.newbyteorder("=")
        )
    if isinstance(value, dict):
        return {k: untyped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [untyped(v) for v in value]
    return value


def figure_of(chart: dict) -> go.Figure:
    """A validated ``go.Figure`` of a dict chart, its typed arrays as NumPy arrays (:func:`untyped`)."""
    return go.Figure(untyped(chart))


def json_ready_lists(t: dict) -> dict:
    """Trace ``t`` with its pandas series, tuples and non-numeric arrays (text) as lists
    (:func:`json_ready`), its NumPy number arrays left for :func:`typed`."""
    return {
        k: v
        if isinstance(v, np.ndarray) and v.dtype.kind in "fiu"
        else json_ready_lists(v)
        if isinstance(v, dict)
        else json_ready(v)
        for k, v in t.items()
    }


def plotly_json(data: list[dict], layout: dict) -> dict:
    """A chart's dict as plotly's ``to_dict()`` writes it: each trace's NumPy arrays as
    :func:`typed` arrays, its series and tuples as lists, the layout as plain lists and numbers
    (:func:`~dpcore.figures.compare_layout.json_ready`). The one encoder of every dict chart
    (:class:`DictFigure`, Compare's charts)."""
    return {"data": [typed(json_ready_lists(t)) for t in data], "layout": json_ready(layout)}


def _set(t: dict) -> dict:
    """Trace ``t``'s set properties: a property given as ``None`` is not set (as plotly takes
    it)."""
    return {k: v for k, v in t.items() if v is not None}


class DictFigure:
    """The calls a one-panel chart builder makes, recorded as plotly's dict (no validation)."""

    def __init__(self, *traces: dict) -> None:  # noqa: D107
        self.data: list[dict] = [_set(t) for t in traces]
        self.layout: dict[str, Any] = {}

    def add_trace(self, t: dict) -> DictFigure:
        """Append a trace (a :func:`~dpcore.figures.style.trace` dict)."""
        self.data.append(_set(t))
        return self

    def update_layout(self, **updates: Any) -> DictFigure:
        """Merge ``updates`` into the layout as ``go.Figure.update_layout`` does."""
        merge(self.layout, _nested(updates))
        return self

    def update_xaxes(self, **updates: Any) -> DictFigure:
        """``update_layout(xaxis=updates)`` (the one panel's x axis)."""
        return self.update_layout(xaxis=updates)

    def update_yaxes(self, **updates: Any) -> DictFigure:
        """``update_layout(yaxis=updates)`` (the one panel's y axis)."""
        return self.update_layout(yaxis=updates)

    def add_vline(self, x: float, line: dict | None = None) -> DictFigure:
        """A vertical line across the panel at ``x``, the shape ``go.Figure.add_vline`` adds."""
        shape = {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1}
        shape["yref"] = "y domain"
        if line is not None:
            shape["line"] = dict(line)
        self.layout["shapes"] = [*self.layout.get("shapes", []), shape]
        return self

    def add_annotation(self, **props: Any) -> DictFigure:
        """An annotation, as ``go.Figure.add_annotation`` adds it."""
        self.layout["annotations"] = [*self.layout.get("annotations", []), _nested(props)]
        return self

    def tidied(self) -> DictFigure:
        """:func:`~dpcore.figures.style.tidy_log_axes` of the one panel: a log axis without
        explicit ticks gets the :func:`~dpcore.figures.style.log_ticks` of the numbers drawn on it
        (every trace's ``x`` or ``y``: the figures here draw on the one panel)."""
        for letter in ("x", "y"):
            axis = self.layout.get(f"{letter}axis", {})
            if axis.get("type") != "log" or "tickvals" in axis:
                continue
            nums = [
                float(v)
                for t in self.data
                for v in json_ready(t.get(letter, []))
                if isinstance(v, int | float) and not isinstance(v, bool)
            ]
            merge(axis, log_ticks(nums))
        return self

    def to_dict(self) -> dict:
        """The figure as plotly's ``to_dict()`` gives it (NumPy arrays as :func:`typed` arrays,
        other sequences as lists)."""
        return plotly_json(self.data, self.layout)

    def figure(self) -> go.Figure:
        """A validated ``go.Figure`` of the same JSON."""
        return figure_of(self.to_dict())


class GridDict:
    """The traces a ``make_subplots`` builder adds on a grid of ``cols`` columns, recorded as
    plotly's dict on a layout plotly laid out (kept per process by the builder): a trace added at
    ``(row, col)`` gets that panel's axes, as ``go.Figure.add_trace(row=, col=)`` gives it; no
    validation pass. ``layout`` is the builder's to change (a copy of the kept one)."""

    def __init__(self, layout: dict, cols: int) -> None:  # noqa: D107
        self.data: list[dict] = []
        self.layout = layout
        self.cols = cols

    def add_trace(self, t: dict, row: int, col: int) -> GridDict:
        """Append trace ``t`` (a :func:`~dpcore.figures.style.trace` dict) on the panel at
        ``row``, ``col`` (1-based, rows from the top)."""
        n = (row - 1) * self.cols + col
        suffix = "" if n == 1 else str(n)
        self.data.append({**t, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}"})
        return self

    def to_dict(self) -> dict:
        """The figure as plotly's ``to_dict()`` gives it (NumPy arrays as :func:`typed` arrays)."""
        return {"data": [typed(t) for t in self.data], "layout": json_ready(self.layout)}


@functools.lru_cache(maxsize=8)
def _default_layout(template: str) -> dict:
    """The layout of ``go.Figure()`` (plotly's default ``template``), laid out once per process."""
    return go.Figure().to_dict()["layout"]


def plain_figure(*traces: dict) -> DictFigure:
    """A :class:`DictFigure` that starts as :func:`~dpcore.figures.style.figure` (no house
    style) does: its layout holds plotly's default template (shared, never changed: a chart's
    :meth:`~DictFigure.to_dict` copies it)."""
    fig = DictFigure(*traces)
    fig.layout["template"] = _default_layout(str(pio.templates.default))["template"]
    return fig


def add_shapes(fig: DictFigure | go.Figure, shapes: list[dict]) -> Any:
    """:func:`~dpcore.figures.style.add_shapes` for a :class:`DictFigure` too (the shapes
    appended to the layout's, as one assignment does)."""
    if not isinstance(fig, DictFigure):
        return style_add_shapes(fig, shapes)
    fig.layout["shapes"] = [*fig.layout.get("shapes", []), *shapes]
    return fig


def styled(fig: DictFigure | go.Figure, *, title: str | None = None, height: int = 420) -> Any:
    """:func:`~dpcore.figures.style.style` for a :class:`DictFigure` (the house layout merged in,
    as ``style``'s ``update_layout`` does) or a ``go.Figure``."""
    if not isinstance(fig, DictFigure):
        return style(fig, title=title, height=height)
    merge(fig.layout, styled_layout(title, height))
    return fig


def chart_dict(build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``build(*args, **kwargs)`` drawn on a :class:`DictFigure`: the chart as
    ``st.plotly_chart`` sends it (its log axes tidied as ``pages._ui.chart`` tidies a figure's),
    or ``(chart, frame)`` for a builder that returns its data too."""
    return _as_drawn(build(*args, new=DictFigure, **kwargs))


def plain_chart_dict(build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """:func:`chart_dict` for a builder whose figure starts unstyled
    (:func:`~dpcore.figures.style.figure`): drawn on a :func:`plain_figure`."""
    return _as_drawn(build(*args, new=plain_figure, **kwargs))


def _as_drawn(made: Any) -> Any:
    """A builder's :class:`DictFigure` (or ``(figure, frame)``) as the chart's dict, its log axes
    tidied."""
    if isinstance(made, tuple):
        return (made[0].tidied().to_dict(), *made[1:])
    return made.tidied().to_dict()
