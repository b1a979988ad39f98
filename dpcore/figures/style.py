"""Plotly figure builders shared by the app and notebooks (no streamlit here).

Each builder returns ``(figure, data_frame)``: the frame is exactly the data drawn, so the app can
offer it as a CSV and a notebook can re-plot it.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import textwrap
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseTraceType
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.privacy import zcdp_to_approx
from dpcore.registry import ERROR_SOURCE_COLORS

#: The ``type`` each plotly trace class writes (``go.Scatter`` -> ``"scatter"``), by class name.
_TRACE_TYPES: dict[str, str] = {}


def _trace_type(kind: type) -> str:
    """The ``type`` of plotly trace class ``kind`` (asked once per class)."""
    if kind.__name__ not in _TRACE_TYPES:
        _TRACE_TYPES[kind.__name__] = str(kind().type)
    return _TRACE_TYPES[kind.__name__]


def trace(kind: type[BaseTraceType], **props: Any) -> Any:
    """A trace of class ``kind`` (``go.Scatter``, ``go.Bar``, ...) as the dict plotly takes it:
    ``{"type": "scatter", **props}``, for ``fig.add_trace``, ``fig.add_traces`` or :func:`figure`.

    Plotly validates a trace when a figure takes it in, also when the trace is already an object
    (it is rebuilt from its properties), so a dict is validated once where ``go.Scatter(...)`` would
    be validated twice; the figure's JSON is the same.
    """
    return {"type": _trace_type(kind), **props}


def legend_entry(name: str, mode: str = "lines", **props: Any) -> Any:
    """A trace with no points: a legend entry (``name`` and its line or marker) for something drawn
    as a shape or a vertical line, which plotly does not list in the legend."""
    return trace(go.Scatter, x=[None], y=[None], mode=mode, name=name, **props)


def in_plotly_order(value: Any) -> Any:
    """``value`` with the keys of its dicts (nested ones too, also inside lists) in the order
    plotly's classes store them: their constructors set properties alphabetically, so
    ``line=dict(width=2, color=c)`` comes out of a figure as ``{"color": c, "width": 2}``. A typed
    array (``{"dtype", "bdata", ...}``, how ``to_dict`` writes a numpy array) is data, not
    properties: it keeps its order, as does anything else."""
    if isinstance(value, dict) and "bdata" not in value:
        return {k: in_plotly_order(value[k]) for k in sorted(value)}
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [in_plotly_order(v) for v in value]
    return value


def figure(*traces: Any, styled: bool = False) -> go.Figure:
    """``go.Figure(data=traces)`` (traces from :func:`trace`), one validation of them all.

    ``styled=True`` promises that the builder gives the figure the house :func:`style`: the figure
    then starts with an empty template instead of the default one, which :func:`set_template`
    replaces anyway, in the same place of the layout.
    """
    return go.Figure(data=list(traces), layout={"template": {}} if styled else None)


def merge_layout(fig: go.Figure, **updates: dict[str, Any]) -> go.Figure:
    """``fig.update_layout(**updates)``: nested dicts (an axis's title and range, the legend) merged
    into the figure's layout as plotly merges them. ``update_xaxes(..., row=, col=)`` is
    ``merge_layout(fig, **{axis_names(fig, row, col)[0]: {...}})`` without plotly's search of every
    axis name."""
    return fig.update_layout(**updates)


def axis_names(fig: go.Figure, row: int, col: int) -> tuple[str, str]:
    """The layout keys of the x and y axes of panel (``row``, ``col``) of a :func:`subplots` figure,
    e.g. ``("xaxis3", "yaxis3")``."""
    panel = fig.get_subplot(row, col)
    return panel.xaxis.plotly_name, panel.yaxis.plotly_name


#: No font colour: in the app Streamlit's light or dark theme sets it; elsewhere plotly's.
FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=13)


def _house_template() -> go.layout.Template:
    """Plotly's ``plotly_white`` cut down to the trace types and subplot kinds dpcore draws.

    The same look for every figure here, but about a third of the size: plotly validates a
    template each time a figure takes one (the full ``plotly_white``, with defaults for two dozen
    trace types, costs ~30-100 ms per figure), and its JSON goes to every browser.
    """
    white = pio.templates["plotly_white"]
    kinds = ("scatter", "bar", "box", "histogram", "scatterternary", "table")
    unused = (
        "colorscale",
        "geo",
        "mapbox",
        "polar",
        "scene",
    )  # no such subplots; colour scales are explicit
    layout = {k: v for k, v in white.layout.to_plotly_json().items() if k not in unused}
    return go.layout.Template(layout=layout, data={k: white.data[k] for k in kinds})


HOUSE_TEMPLATE = _house_template()


#: :data:`HOUSE_TEMPLATE` as plotly's JSON, which :func:`set_template` assigns.
_HOUSE_TEMPLATE_JSON = HOUSE_TEMPLATE.to_plotly_json()


def set_template(fig: go.Figure) -> go.Figure:
    """Give ``fig`` the :data:`HOUSE_TEMPLATE` (replacing its template, in the same place of the
    layout). Assigned as JSON: plotly then builds the template once, where assigning the template
    object would copy it first (about twice the time)."""
    fig.layout.template = _HOUSE_TEMPLATE_JSON
    return fig


class PreparedFigure(go.Figure):
    """A figure that is already its ``to_dict()``: ``st.plotly_chart`` asks a figure for exactly
    that (a deep copy of every trace, then every array turned into base64) before it writes the
    JSON, about 5–10 ms per chart in the server's one process on every view. Made from
    a ``to_dict()`` kept in a cache or sent back by a worker process, it hands that dict over as it
    is, so the JSON sent is the same bytes (tests/repo/test_framework_versions.py checks that
    ``st.plotly_chart`` asks a figure for its ``to_dict``).

    Only for drawing (``st.plotly_chart``): it has no traces or layout of its own to read or change,
    and the dict it holds is shared, never copied; use :func:`as_figure` for a figure to work on.
    """

    def __init__(self, spec: dict) -> None:  # noqa: D107 - no plotly state: only to_dict is asked
        self.__dict__["_spec"] = spec

    def to_dict(self) -> dict:
        """The dict it was made from (not a copy)."""
        return self.__dict__["_spec"]


#: Presenter mode: the smallest chart text (ticks, legends, annotations, hover labels), in px,
#: as a chart is laid out; the app then scales the whole chart with the screen (1.25 times at
#: 1920x1080: pages/_present.py), so the back of the room reads it (docs/classroom.md).
PROJECTOR_TEXT = 16
#: Presenter mode: axis titles, a step above the ticks.
PROJECTOR_AXIS_TITLE = 18


def _bigger_text(node: Any, size: int, in_font: bool = False) -> Any:
    """``node`` (a figure dict's part) with every font ``size`` under a ``...font`` key raised to
    at least ``size`` (a copy of what changes; the rest shared)."""
    if isinstance(node, dict):
        out = {k: _bigger_text(v, size, k.endswith("font")) for k, v in node.items()}
        if in_font and isinstance(out.get("size"), int | float):
            out["size"] = max(out["size"], size)
        return out
    if isinstance(node, list) and node and isinstance(node[0], dict):
        return [_bigger_text(v, size, in_font) for v in node]
    return node


def _at_least(part: Any, size: int, key: str = "font") -> dict:
    """``part[key]`` (a font) with a size of at least ``size``."""
    font = dict((part or {}).get(key) or {})
    font["size"] = max(font.get("size", 0), size)
    return font


def _axis_text(axis: dict, text: int, axis_title: int) -> dict:
    """``axis`` (changed in place and returned) with tick labels of at least ``text`` px and a
    title of at least ``axis_title`` px."""
    axis["tickfont"] = _at_least(axis, text, "tickfont")
    title = axis.get("title")
    title = title if isinstance(title, dict) else {"text": title}
    axis["title"] = {**title, "font": _at_least(title, axis_title)}
    return axis


def _axes_drawn(spec: dict) -> list[str]:
    """The layout keys of the cartesian axes figure dict ``spec`` draws (``xaxis``, ``yaxis2``,
    ...): those its traces name (plotly's default ``x`` / ``y`` when a trace names none) and those
    its layout has, so a figure that never styled its x-axis still gets its tick size."""
    keys = {k for k in spec.get("layout", {}) if k.startswith(("xaxis", "yaxis"))}
    for t in spec.get("data", []):
        if t.get("type", "scatter") in ("scatter", "scattergl", "bar", "box", "histogram"):
            for letter in ("x", "y"):
                ref = str(t.get(f"{letter}axis") or letter)
                keys.add(f"{letter}axis{ref[1:]}")
    return sorted(keys)


def _titled_frames(layout: dict, text: int) -> None:
    """``layout`` (changed in place) of an animation whose frames retitle it: its title stays in
    the chart (a line above it could not follow the frames), at the top of the figure in a margin
    of its own, and the legend goes to the right of the plot, below the title's line, where no
    number of entries reaches it."""
    title = layout.get("title")
    title = title if isinstance(title, dict) else {"text": title}
    layout["title"] = {
        **title,
        "font": _at_least(title, round(text * 1.25)),
        "x": 0.0,
        "xanchor": "left",
        "xref": "container",
        "y": 1.0,
        "yanchor": "top",
        "yref": "container",
        "pad": {"t": text // 2, "l": text},
        "automargin": True,
    }
    legend = {k: v for k, v in layout["legend"].items() if k not in ("x", "y")}
    layout["legend"] = {
        **legend,
        "orientation": "v",
        "x": 1.02,
        "xanchor": "left",
        "y": 1.0,
        "yanchor": "top",
    }


def _legend_at_bottom(layout: dict) -> None:
    """``layout`` (changed in place) whose legend is a row below the plot (horizontal, ``y`` under
    0 of the plot's height): the legend at the foot of the figure (``yref="container"``), where
    plotly reserves its height as a margin, and every axis pushing its own margin
    (``automargin``), so the x-axis ticks and title sit above the legend at any font size and any
    chart height (a legend ``y`` in plot heights is a few pixels below the axis on a short slide,
    and a 16-px tick line and an 18-px title need more)."""
    legend = layout.get("legend") or {}
    y = legend.get("y")
    if legend.get("orientation") != "h" or not isinstance(y, int | float) or y >= 0:
        return
    if legend.get("yref", "paper") != "paper":
        return
    layout["legend"] = {**legend, "yref": "container", "y": 0.0, "yanchor": "bottom"}
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            axis["automargin"] = True


def for_projector(spec: dict, scale: float = 1.0) -> dict:
    """Figure dict ``spec`` (a ``to_dict()``) for a projector: every text at least
    :data:`PROJECTOR_TEXT` px (axis titles :data:`PROJECTOR_AXIS_TITLE`), times ``scale`` on a
    larger screen (1.25 at 1920x1080: pages/_present.py), and no title of its own: the app
    writes the title above the chart, where a legend of any number of rows cannot reach it (an
    animation whose frames retitle it keeps its title, its legend moved to the right:
    :func:`_titled_frames`). Every axis a trace draws on gets its tick size, also one the figure
    never styled. ``spec`` is not changed; its traces' data are shared, not copied.

    Examples
    --------
    >>> out = for_projector({"data": [], "layout": {"title": {"text": "T"},
    ...     "legend": {"font": {"size": 11}}, "xaxis": {"title": {"text": "x"}}}})
    >>> out["layout"]["legend"]["font"]["size"], out["layout"]["font"]["size"]
    (16, 16)
    >>> out["layout"]["title"]["text"], out["layout"]["xaxis"]["title"]["font"]["size"]
    ('', 18)
    """
    text, axis_title = round(PROJECTOR_TEXT * scale), round(PROJECTOR_AXIS_TITLE * scale)
    layout = {k: v for k, v in spec.get("layout", {}).items() if k != "template"}
    layout = _bigger_text(layout, text)
    layout["font"] = {**layout.get("font", {}), "size": text}
    layout["hoverlabel"] = {**layout.get("hoverlabel", {}), "font": {"size": text}}
    # every size written out: the app's own plotly theme (Streamlit's) sets smaller ones
    layout["legend"] = {**layout.get("legend", {}), "font": _at_least(layout.get("legend"), text)}
    layout["annotations"] = [
        {**a, "font": _at_least(a, text)}
        for a in layout.get("annotations", [])
        if isinstance(a, dict)
    ]
    for key in _axes_drawn(spec):  # an axis a trace draws on is written even if not styled
        layout[key] = layout[key] if isinstance(layout.get(key), dict) else {}
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            _axis_text(axis, text, axis_title)
        elif key.startswith("ternary") and isinstance(axis, dict):
            for name in ("aaxis", "baxis", "caxis"):
                axis[name] = _axis_text(dict(axis.get(name) or {}), text, axis_title)
    frames = [f for f in spec.get("frames") or [] if isinstance(f, dict)]
    if any("title" in (f.get("layout") or {}) for f in frames):
        _titled_frames(layout, text)  # each frame names its step: the title stays in the chart
    else:
        layout["title"] = {"text": ""}
        _legend_at_bottom(layout)
    if "template" in spec.get("layout", {}):
        layout["template"] = spec["layout"]["template"]
    data = [_bigger_text(t, text) for t in spec.get("data", [])]
    return {**spec, "data": data, "layout": layout}


def keep(fig: go.Figure) -> go.Figure:
    """Mark ``fig`` as kept (in a cache shared by views and sessions) and never changed again: the
    app may then remember the JSON it sends for it (:func:`remembered`) instead of rebuilding it
    (``to_dict``: a deep copy and a base64 pass over every array) every time it is drawn again, for
    another student on the same link or after a widget change. Returns ``fig``; a figure's dict
    (a :func:`drawn_dict`, sent as it is) comes back as it is."""
    if isinstance(fig, go.Figure):
        fig.__dict__["_dpmean_drawn"] = {}
    return fig


def remembered(fig: go.Figure, key: Hashable, make: Callable[[], Any]) -> Any:
    """``make()`` for ``fig`` and ``key``, made once if ``fig`` is :func:`keep`-marked, else made
    every time."""
    memo = fig.__dict__.get("_dpmean_drawn")
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


def drawn_dict(fig: go.Figure | dict) -> dict:
    """``fig`` as ``st.plotly_chart`` sends it (its ``to_dict()``), as a plain dict to keep in a
    cache or send back from a worker, and to draw with :func:`prepared`. A dict is taken to be
    such a ``to_dict()`` already and comes back as a copy."""
    return fig.to_dict() if isinstance(fig, go.Figure) else copy.deepcopy(fig)


def prepared(fig: go.Figure | dict) -> go.Figure:
    """``fig`` to hand to ``st.plotly_chart``: a dict (a :func:`drawn_dict`) as a
    :class:`PreparedFigure`, a figure as it is."""
    return fig if isinstance(fig, go.Figure) else PreparedFigure(fig)


def as_figure(fig: go.Figure | dict) -> go.Figure:
    """A figure from a figure or from its ``to_dict()`` (e.g. one kept in a cache), to read or
    change (plotly validates the dict)."""
    return fig if isinstance(fig, go.Figure) else go.Figure(fig)


def add_shapes(fig: go.Figure, shapes: Sequence[dict]) -> go.Figure:
    """Append ``shapes`` (plain dicts) to ``fig`` in one layout assignment.

    ``fig.add_hline`` / ``add_shape`` rebuild and re-validate the whole shape tuple per call
    (quadratic in the number of shapes, a few ms each); one assignment validates each new shape
    once. ``add_hline(y=v, line=..., row=r, col=c)`` is the dict ``{"line": ..., "type": "line",
    "x0": 0, "x1": 1, "xref": "<x axis of (r, c)> domain", "y0": v, "y1": v, "yref": "<y axis>"}``:
    the same JSON (tests/figures/test_figures_fast.py).
    """
    fig.layout.shapes = (*fig.layout.shapes, *shapes)
    return fig


@functools.lru_cache(maxsize=64)
def _subplot_grid(key: str, styled: bool, default_template: str) -> go.Figure:
    """``make_subplots(**json.loads(key))`` on an empty template (``styled``) or plotly's default
    one (``default_template``, its name: part of the key, as Streamlit sets its own). Never
    changed: :func:`subplots` copies it."""
    base = go.Figure(layout={"template": {}}) if styled else go.Figure()
    return make_subplots(figure=base, **json.loads(key))


def subplots(*, styled: bool = False, **kwargs: Any) -> go.Figure:
    """``plotly.subplots.make_subplots(**kwargs)`` (keywords plain JSON values), built once per
    distinct set of keywords.

    ``make_subplots`` lays out a whole grid of axes, domains and panel titles with one layout
    update per axis (about 10-25 ms, a page's largest fixed plotly cost after the template); the
    grid does not depend on the data, so it is built once and each new figure is a copy of it
    (``go.Figure(grid)``, which carries the grid that ``add_trace(row=, col=)`` reads, about a
    tenth of the time). The JSON is ``make_subplots``'s (tests/figures/test_figures_fast.py).
    ``styled``: as for :func:`figure`.
    """
    key = json.dumps(kwargs, sort_keys=True)
    return go.Figure(_subplot_grid(key, styled, str(pio.templates.default)))


def _house_settings(title: str | None, height: int) -> dict[str, Any]:
    """The layout settings :func:`style` applies besides the template (plain values)."""
    return dict(
        font=FONT,
        height=height,
        margin=dict(l=60, r=20, t=60 if title else 30, b=50),
        title=dict(text=title, x=0.0, xanchor="left") if title else None,
        legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0),
    )


def style(fig: go.Figure, *, title: str | None = None, height: int = 420) -> go.Figure:
    """The house style (:data:`HOUSE_TEMPLATE`): white background, light grid, legend on top."""
    set_template(fig)
    return fig.update_layout(**_house_settings(title, height))


def plain(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits as a plain number a reader can say: thousands
    separated, never scientific notation (``9690.4`` -> ``"9,690"``, ``0.00123`` -> ``"0.00123"``,
    ``6.6178`` -> ``"6.62"``); beyond 10¹⁵ "about 10^k".

    For ratios and errors in sentences, where ``f"{x:.3g}"`` would print ``9.69e+03``.

    Examples
    --------
    >>> plain(9690.4), plain(6.6178), plain(1234567.0), plain(0.000123456), plain(2.0)
    ('9,690', '6.62', '1,230,000', '0.000123', '2')
    """
    v = float(value)
    if not math.isfinite(v):
        return "n/a" if math.isnan(v) else ("∞" if v > 0 else "-∞")
    if abs(v) >= 1e15:
        return f"about 10^{math.log10(abs(v)):.0f}" if v > 0 else f"-about 10^{math.log10(-v):.0f}"
    text = np.format_float_positional(v, precision=digits, unique=False, fractional=False, trim="-")
    whole, dot, frac = text.lstrip("-").partition(".")
    return ("-" if v < 0 else "") + f"{int(whole):,}" + (dot + frac if frac else "")


def times(ratio: float, digits: int = 3) -> str:
    """A ratio as ``"9,690×"`` (:func:`plain`, then ×)."""
    return plain(ratio, digits) + "×"


def wrap_label(text: str, width: int = 30) -> str:
    """``text`` broken at spaces into lines of at most ``width`` characters (``<br>`` between),
    so a long estimator label fits a narrow panel title or legend whole instead of being cut."""
    return "<br>".join(textwrap.wrap(text, width, break_long_words=False)) or text


def rgba(hex_color: str, alpha: float) -> str:
    """``#rrggbb`` as an ``rgba(r, g, b, alpha)`` string (grey for anything else), for bands and fills."""
    h = hex_color.lstrip("#")
    if len(h) != 6:
        return f"rgba(127, 127, 127, {alpha})"
    r, g, b = (int(h[k : k + 2], 16) for k in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


def log_ticks(values: Iterable[float] | np.ndarray) -> dict[str, list]:
    """Tick settings for a log axis spanning ``values``: 1, 2 and 5 times powers of ten, written in
    full (plotly's default writes bare digits "2 3 4 5" when a range spans under a decade)."""
    v = np.asarray(
        list(values) if not isinstance(values, np.ndarray) else values, dtype=float
    ).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return {}
    lo, hi = float(v.min()), float(v.max())
    ticks = [
        m * 10.0**e
        for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
        for m in (1, 2, 5)
        if lo / 1.5 <= m * 10.0**e <= hi * 1.5
    ]
    if len(ticks) > 12:  # many decades: powers of ten only
        ticks = [t for t in ticks if math.isclose(math.log10(t), round(math.log10(t)))]
    if len(ticks) < 2:
        ticks = sorted({lo, hi})
    return {"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}


def _numbers(data: object) -> list[float]:
    """The int and float entries of a trace's ``x`` or ``y`` (no bools, strings or dates), as floats.

    A numeric array is taken whole (one vectorised conversion instead of a Python test per point,
    which was a tenth of the PLAN view's figure time); anything else element by element."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "iuf":  # plotly keeps arrays as arrays
        return data.astype(float, copy=False).ravel().tolist()
    return [
        float(v)
        for v in np.asarray(data, dtype=object).ravel()
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    ]


def tidy_log_axes(fig: go.Figure) -> go.Figure:
    """Give every log axis of ``fig`` without explicit ticks the :func:`log_ticks` of the data drawn
    on it (bands and markers included). Returns ``fig``, changed in place; anything that is not a
    ``go.Figure`` (e.g. a figure cached as a plain dict) is returned unchanged."""
    if not isinstance(fig, go.Figure):
        return fig
    # most figures have no such axis, and then no trace is looked at
    log_axes = {
        axis.plotly_name
        for axis in (*fig.select_xaxes(), *fig.select_yaxes())
        if axis.type == "log" and axis.tickvals is None
    }
    if not log_axes:
        return fig
    values: dict[str, list[float]] = {}
    for drawn in fig.data:
        for letter in ("x", "y"):
            data = getattr(drawn, letter, None)
            ref = getattr(drawn, f"{letter}axis", None) or letter
            if data is not None and f"{letter}axis{ref[1:]}" in log_axes:
                values.setdefault(f"{letter}axis{ref[1:]}", []).extend(_numbers(data))
    for name, nums in values.items():
        axis = fig.layout[name]
        if axis.type == "log" and axis.tickvals is None:
            axis.update(**log_ticks(nums))
    return fig


def epsilon_delta_curve(
    rho: float, deltas: Sequence[float] | None = None
) -> tuple[go.Figure, pd.DataFrame]:
    """ε against δ for ``rho``-zCDP, by the standard bound and by Canonne–Kamath–Steinke."""
    ds = np.logspace(-12, -1, 45) if deltas is None else np.asarray(deltas, dtype=float)
    rows = [
        {"delta": dl, "method": m, "epsilon": zcdp_to_approx(rho, dl, m)}
        for dl in ds
        for m in ("standard", "cks")
    ]
    df = pd.DataFrame(rows)
    fig = figure(styled=True)
    names = {"standard": "ρ + 2√(ρ ln 1/δ)", "cks": "Canonne–Kamath–Steinke (tighter)"}
    colors = {"standard": "#9aa5b1", "cks": "#1f6fb2"}
    for m in ("standard", "cks"):
        part = df[df.method == m]
        fig.add_trace(
            trace(
                go.Scatter,
                x=part.delta,
                y=part.epsilon,
                mode="lines",
                name=names[m],
                line=dict(
                    color=colors[m],
                    width=3 if m == "cks" else 2,
                    dash="solid" if m == "cks" else "dash",
                ),
            )
        )
    fig.update_xaxes(
        type="log",
        exponentformat="power",
        title="δ (probability the ε guarantee may fail) — smaller is more private",
    )
    fig.update_yaxes(title="ε — smaller is more private", rangemode="tozero")
    return style(fig, title=f"(ε, δ) guarantees implied by ρ = {rho:g} zCDP"), df


def ledger_frame(estimates: Iterable[tuple[EstimatorSpec, Estimate]]) -> pd.DataFrame:
    """One row per (estimator, stage) with the spend and its share of the estimator's total."""
    rows = []
    for spec, est in estimates:
        total = est.ledger.total()
        for stage, spent in est.ledger.by_stage().items():
            rows.append(
                {
                    "estimator": spec.label,
                    "stage": stage,
                    "spent": spent,
                    "unit": est.ledger.unit(),
                    "share": spent / total if total > 0 else 0.0,
                }
            )
    return pd.DataFrame(rows, columns=["estimator", "stage", "spent", "unit", "share"])


def stage_colors(stages: Iterable[str]) -> dict[str, str]:
    """A distinct colour for every distinct stage name (never reused, however many stages: a fixed
    palette of 48 first, then evenly spaced hues)."""
    names = list(dict.fromkeys(stages))
    palette = list(
        dict.fromkeys(
            c.lower() for c in [*qualitative.D3, *qualitative.Dark24, *qualitative.Light24]
        )
    )
    out = {}
    for i, name in enumerate(names):
        if i < len(palette):
            out[name] = palette[i]
        else:  # golden-angle hues, two lightness levels: distinct and never equal to a palette entry
            h = (i * 137.508) % 360
            out[name] = f"hsl({h:.1f}, 62%, {42 + 14 * (i % 2)}%)"
    return out


#: What each stage of a ledger buys, by words in its name (first match wins), and its colour: a
#: handful of roles instead of one colour per stage name (fifteen colours are no longer legible).
STAGE_ROLES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("centre", ("centre", "center", "median", "coinpress", "spread"), "#E69F00"),
    ("variances and scale", ("variance", "scale", "frequenc"), "#56B4E9"),
    (
        "clipping range",
        ("radius", "quantile", "threshold", "queries", "bound", "weight"),
        "#009E73",
    ),
    ("count", ("count",), "#CC79A7"),
    ("noise on the mean", ("noise", "sum", "mean", "release"), "#0072B2"),
)
OTHER_ROLE = ("other stages", "#999999")


def stage_role(stage: str) -> tuple[str, str]:
    """``(role, colour)`` of a ledger stage from the words in its name.

    >>> stage_role("upper quantile: threshold")[0], stage_role("noisy sum")[0]
    ('clipping range', 'noise on the mean')
    """
    name = stage.lower()
    for role, words, color in STAGE_ROLES:
        if any(w in name for w in words):
            return role, color
    return OTHER_ROLE


def ledger_chart(df: pd.DataFrame) -> go.Figure:
    """Horizontal stacked bars: how each estimator splits its budget over its stages. A stage's
    colour is its role (:func:`stage_role`: centre, variances, clipping range, count, noise), its
    name is written on its segment and in the hover; the legend lists the roles."""
    fig = figure(styled=True)
    shown: set[str] = set()
    for stage in dict.fromkeys(df.stage):
        part = df[df.stage == stage]
        role, color = stage_role(str(stage))
        fig.add_trace(
            trace(
                go.Bar,
                y=part.estimator,
                x=part.share,
                name=role,
                legendgroup=role,
                showlegend=role not in shown,
                orientation="h",
                marker={"color": color, "line": {"color": "white", "width": 1}},
                text=[stage] * len(part),
                textposition="inside",
                insidetextanchor="middle",
                textangle=0,
                customdata=np.stack([part.spent, part.unit], axis=-1),
                hovertemplate="%{y}<br>"
                + stage
                + ": %{x:.1%} (%{customdata[0]:.4g} %{customdata[1]})"
                "<extra></extra>",
            )
        )
        shown.add(role)
    fig.update_layout(barmode="stack", uniformtext={"minsize": 10, "mode": "hide"})
    fig.update_xaxes(title="share of the estimator's budget", tickformat=".0%", range=[0, 1])
    fig.update_yaxes(autorange="reversed", title=None, automargin=True)
    return style(
        fig,
        title="How each estimator spends its budget",
        height=120 + 40 * max(1, df.estimator.nunique()),
    )


def error_split_chart(df: pd.DataFrame) -> go.Figure:
    """Grouped bars of sampling error, clipping bias and noise per estimator (columns of ``df``:
    estimator, sampling, clipping, noise, total)."""
    fig = figure(styled=True)
    names = {"sampling": "sampling error", "clipping": "clipping bias", "noise": "DP noise"}
    for src, name in names.items():
        fig.add_trace(
            trace(
                go.Bar, x=df.estimator, y=df[src], name=name, marker_color=ERROR_SOURCE_COLORS[src]
            )
        )
    fig.add_trace(
        trace(
            go.Scatter,
            x=df.estimator,
            y=df["total"],
            mode="markers",
            name="total error",
            marker=dict(symbol="diamond", size=12, color="#1d2733"),
        )
    )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="error (norm)", rangemode="tozero")
    return style(fig, title="Where the error comes from")
