"""The traces of Compare's error chart, one builder per kind of line, as plain dicts
(:func:`dpcore.figures.style.trace`): per estimator its 10–90% band, its median line and its
warning markers, then the sampling floor, the theory curves and the stars on the best private
estimator of each point. :func:`dpcore.figures.compare.error_figure` lays them out in panels.

References
----------
docs/estimators/plan.md §6 (idealised curves) and §7.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.experiments.summaries import FAILURE_MULTIPLE
from dpcore.figures.style import rgba, times, trace

FLOOR_COLOR = "#7f7f7f"
#: The floor's name on the chart: the median over runs of ‖x̄ − μ‖ (the non-private mean's error).
FLOOR_NAME = "sampling floor (median ‖x̄ − μ‖)"
#: The floor's name when the data are contaminated: the non-private mean follows the outliers, so
#: its error is no floor for a robust estimator.
OUTLIER_FLOOR_NAME = "non-private mean (pulled by the outliers)"
#: Opacity of the 10–90% bands: light, so that five overlapping bands stay readable.
BAND_ALPHA = 0.06
#: A point gets a warning marker when an estimator warned there or its worst run exceeds this multiple of
#: its median (a blow-up; the share of far-off runs, above ``FAILURE_MULTIPLE`` × the median, is in
#: the hover and the tables).
BLOWUP_MULTIPLE = 10.0
#: Colour of the markers for estimator warnings and blow-ups.
WARN_COLOR = "#d62728"

THEORY_DASH = {"PLAN": "dash", "Gaussian mechanism": "dot"}


#: How :func:`error_figure` folds an estimator's points that share an ``x`` (several facets' worth).
_PER_X = {
    "median": ("median", "mean"),
    "lo": ("lo", "mean"),
    "hi": ("hi", "mean"),
    "failure_rate": ("failure_rate", "max"),
    "warned": ("warned", "sum"),
    "worst": ("max", "max"),
    "runs": ("runs", "sum"),
    "label": ("label", "first"),
    "color": ("color", "first"),
    "private": ("private", "first"),
    "notion": ("notion", "first"),
}


class Rows:
    """A few summary rows as NumPy columns: ``rows["median"]`` is an array, ``rows[mask]`` the rows
    where ``mask`` holds. One estimator's line is 3-10 points; pandas' cost per column read and
    per filter was most of the chart's time."""

    def __init__(self, columns: dict[str, np.ndarray]) -> None:  # noqa: D107
        self.columns = columns

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.columns[key]
        return Rows({k: v[key] for k, v in self.columns.items()})

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()), ()))

    @property
    def empty(self) -> bool:
        """No rows."""
        return len(self) == 0


def _per_x(g: pd.DataFrame | Rows, x: str) -> Rows:
    """One estimator's summary rows folded to one row per ``x`` (:data:`_PER_X`), sorted by ``x``.

    When every ``x`` appears once (a sweep of one facet, the page's usual case) each aggregate is the
    row's own value, so the rows are taken as they are: the same rows as the groupby's, without its
    cost (about 20 ms per estimator, in every Compare view)."""
    if isinstance(g, pd.DataFrame):
        g = Rows({c: g[c].to_numpy() for c in g.columns})
    xs = np.asarray(g[x], dtype=float)
    if not np.isnan(xs).any() and np.unique(xs).size == xs.size:
        order = np.argsort(xs, kind="stable")
        return Rows({x: g[x][order], **{k: g[c][order] for k, (c, _) in _PER_X.items()}})
    folded = pd.DataFrame(g.columns).groupby(x, as_index=False).agg(**_PER_X).sort_values(x)
    return Rows({c: folded[c].to_numpy() for c in folded.columns})


def _band_trace(g: Rows, x: str, est: Any) -> go.Scatter:
    """One estimator's 10–90% band, a light filled polygon (no hover, no legend entry)."""
    color, label = g["color"][0], g["label"][0]
    xs = g[x].tolist()
    return trace(
        go.Scatter,
        x=xs + xs[::-1],
        y=g["hi"].tolist() + g["lo"].tolist()[::-1],
        fill="toself",
        mode="lines",  # the default for < 20 points adds stray vertex markers
        fillcolor=rgba(color, BAND_ALPHA),
        line=dict(width=0),
        hoverinfo="skip",
        legendgroup=str(est),
        showlegend=False,
        name=f"{label} 10–90%",
    )


def _median_trace(g: Rows, x: str, est: Any, mlabel: str, first: bool) -> go.Scatter:
    """One estimator's median line (dotted for an oracle or a non-private reference)."""
    color, label = g["color"][0], g["label"][0]
    dash = "solid" if bool(g["private"][0]) else "dot"
    return trace(
        go.Scatter,
        x=g[x].tolist(),
        y=g["median"],
        mode="lines+markers",
        name=label,
        legendgroup=str(est),
        showlegend=first,
        line=dict(color=color, width=2.2, dash=dash),
        marker=dict(size=6, color=color),
        customdata=np.c_[g["lo"], g["hi"], 100 * g["failure_rate"]],
        hovertemplate=f"<b>{label}</b><br>{x} = %{{x:.4g}}<br>median {mlabel} = %{{y:.4g}}"
        "<br>10–90%: %{customdata[0]:.3g} – %{customdata[1]:.3g}"
        f"<br>far-off runs here (> {FAILURE_MULTIPLE:g}× the median): "
        "%{customdata[2]:.0f}%<extra></extra>",
    )


def _warning_text(flagged: Rows) -> list[str]:
    """The hover text of each flagged point: runs that warned, and the blow-ups."""
    return [
        (f"{w} of {r} runs warned" if w else "")
        + ("; " if w and f else "")
        + (
            f"{f:.0%} of runs far off (> {FAILURE_MULTIPLE:g}× the median), "
            f"worst {times(mx / md)} the median"
            if f
            else ""
        )
        for w, r, f, mx, md in zip(
            flagged["warned"],
            flagged["runs"],
            flagged["failure_rate"],
            flagged["worst"],
            flagged["median"],
            strict=True,
        )
    ]


def _warning_trace(g: Rows, x: str) -> go.Scatter | None:
    """Red triangles where an estimator warned or its worst run blew up (``None``: nowhere)."""
    flagged = g[(g["worst"] > BLOWUP_MULTIPLE * g["median"]) | (g["warned"] > 0)]
    if flagged.empty:
        return None
    return trace(
        go.Scatter,
        x=flagged[x],
        y=flagged["median"],
        mode="markers",
        name="warning or blow-up",
        legendgroup="warn",
        showlegend=False,
        text=_warning_text(flagged),
        marker=dict(
            symbol="triangle-up-open",
            size=13,
            color=WARN_COLOR,
            line=dict(width=2, color=WARN_COLOR),
        ),
        hovertemplate=f"<b>{g['label'][0]}</b>: %{{text}}<extra></extra>",
    )


def _floor_trace(fl: pd.DataFrame, x: str, first: bool, name: str = FLOOR_NAME) -> go.Scatter:
    """The sampling floor (named ``name``) of one panel, grey dash-dot."""
    return trace(
        go.Scatter,
        x=fl[x],
        y=fl["value"],
        mode="lines",
        name=name,
        legendgroup="floor",
        showlegend=first,
        line=dict(color=FLOOR_COLOR, width=1.5, dash="dashdot"),
        hovertemplate=f"{name} %{{y:.4g}}<extra></extra>",
    )


def _theory_traces(th: pd.DataFrame, x: str, first: bool) -> list[go.Scatter]:
    """The theory curves of one panel (thin, dark, dashed per curve)."""
    out = []
    curves = th["curve"].to_numpy(object)
    xs, values = th[x].to_numpy(float), th["value"].to_numpy(float)
    for curve in dict.fromkeys(curves):
        at, ys = xs[curves == curve], values[curves == curve]
        if np.unique(at).size == at.size:  # one value per x: its own mean, sorted by x
            order = np.argsort(at, kind="stable")
            at, ys = at[order], ys[order]
        else:  # several facets' values at an x: pandas' mean of them
            g = pd.DataFrame({"x": at, "v": ys}).groupby("x", as_index=False)["v"].mean()
            at, ys = g["x"].to_numpy(), g["v"].to_numpy()
        name = str(curve)
        out.append(
            trace(
                go.Scatter,
                x=at,
                y=ys,
                mode="lines",
                name=name,
                legendgroup=name,
                showlegend=first,
                opacity=0.8,
                line=dict(color="#1d2733", width=1.2, dash=THEORY_DASH[name.split(": ")[1]]),
                hovertemplate=f"{name} (median, idealised) %{{y:.3g}}<extra></extra>",
            )
        )
    return out


def _best_trace(sub: pd.DataFrame, x: str, first: bool) -> go.Scatter | None:
    """Stars on the best private estimator of each guarantee at each point of one panel."""
    best = sub[sub["best"]]
    keys = list(zip(best[x].to_numpy(float), best["guarantee"].to_numpy(object), strict=True))
    first_row = {k: i for i, k in reversed(list(enumerate(keys)))}  # a group's first row
    rows = [first_row[k] for k in sorted(first_row)]  # by x, then guarantee (as a groupby)
    if not rows:
        return None
    b = Rows({c: best[c].to_numpy()[rows] for c in (x, "median", "label", "color", "guarantee")})
    return trace(
        go.Scatter,
        x=b[x],
        y=b["median"],
        mode="markers",
        name="best private at this point",
        legendgroup="best",
        showlegend=first,
        text=b["label"],
        marker=dict(
            symbol="star",
            size=15,
            color=b["color"].tolist(),
            line=dict(color="#1d2733", width=1),
        ),
        customdata=b["guarantee"],
        hovertemplate="best private (%{customdata}): %{text}<br>%{y:.4g}<extra></extra>",
    )


def panel_traces(
    sub: pd.DataFrame,
    fl: pd.DataFrame,
    th: pd.DataFrame,
    x: str,
    mlabel: str,
    first: bool,
    floor: str = FLOOR_NAME,
) -> tuple[list[go.Scatter], bool]:
    """The traces of one panel in drawing order (per estimator its band, median line and warning
    markers; then the floor, the theory curves and the stars), and whether any point warned."""
    traces: list[go.Scatter] = []
    warned = False
    names = sub["estimator"].to_numpy(object)
    columns = {c: sub[c].to_numpy() for c in (x, *(c for c, _ in _PER_X.values()))}
    for est in dict.fromkeys(names):
        g = _per_x(Rows({c: v[names == est] for c, v in columns.items()}), x)
        traces += [_band_trace(g, x, est), _median_trace(g, x, est, mlabel, first)]
        warn = _warning_trace(g, x)
        if warn is not None:
            traces.append(warn)
            warned = True
    if not fl.empty:
        traces.append(_floor_trace(fl, x, first, floor))
    if not th.empty:
        traces += _theory_traces(th, x, first)
    best = _best_trace(sub, x, first)
    return traces + ([best] if best is not None else []), warned
