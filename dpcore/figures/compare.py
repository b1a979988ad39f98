"""Plotly builders for comparing estimators over a sweep (pure plotly; no streamlit).

Each builder returns ``(figure, data_frame)`` where the frame is exactly the data drawn, so the
app can offer it as a CSV and a notebook can re-plot it. Input is the tidy frame of
:func:`dpcore.experiments.engine.run`.

* :func:`error_figure` — error against budget, n, d or skew: the mean per estimator with a
  10–90% band, the sampling floor, the idealised theory curves of :mod:`dpcore.theory.plan` (ℓ2 on
  real/bounded data) and, at each point, the best private estimator marked with a star.
* :func:`regret_figure` — the regret ranking as a table figure.
* :func:`target_figure` — accuracy first: the budget (or n) each estimator needs for a target error
  (with its words and the other helpers in :mod:`dpcore.figures.compare_text`, re-exported here).
* :func:`headline` — the number in words under the chart.
* :func:`compare_views` — all of the above for one sweep, as the Compare page shows it.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7 (the figures this reproduces);
docs/estimators/plan.md §6 (idealised curves) and §7.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.experiments.config import ExperimentConfig
from dpcore.experiments.summaries import (
    FAILURE_MULTIPLE,
    Groups,
    nargsort,
    regret_table,
    summarise,
    theory_frame,
)
from dpcore.figures.compare_text import (
    METRIC_LABEL,
    budget_label,
    chance,
    far_off_view,
    in_words,
    outliers_note,
    round_target,
    target_figure,
    target_sentence,
    target_views,
)
from dpcore.figures.style import (
    drawn_dict,
    figure,
    legend_entry,
    log_ticks,
    plain,
    rgba,
    style,
    subplots,
    times,
    trace,
)

__all__ = [
    "BLOWUP_MULTIPLE",
    "FLOOR_NAME",
    "METRIC_LABEL",
    "OUTLIER_FLOOR_NAME",
    "budget_label",
    "chance",
    "compare_views",
    "error_figure",
    "far_off_view",
    "floor_frame",
    "floor_name",
    "headline",
    "in_words",
    "outliers_note",
    "regret_figure",
    "round_target",
    "target_figure",
    "target_sentence",
    "target_views",
    "x_title",
]

AXIS_LABEL = {"budget": "privacy budget", "n": "n (rows)", "d": "d (dimension)", "skew": "skew α"}
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


def x_title(x: str, unit: str) -> str:
    """The x axis's title; on a budget axis, which end is more private.

    >>> x_title("budget", "rho")
    '← more private · ρ (zCDP) · less private →'
    """
    if x == "budget":
        return f"← more private · {budget_label(unit)} · less private →"  # fits a phone
    return AXIS_LABEL[x]


def swept_ticks(values: Any) -> dict[str, list]:
    """Ticks at the swept values themselves (up to eight, written in full), so every point of
    the sweep has its label; more values fall back to 1–2–5 ticks
    (:func:`~dpcore.figures.style.log_ticks`)."""
    v = np.unique(np.asarray(values, dtype=float))
    v = v[np.isfinite(v) & (v > 0)]
    if not 0 < v.size <= 8:
        return log_ticks(v)
    return {"tickvals": v.tolist(), "ticktext": [plain(t) for t in v]}


def _fmt(v: float) -> str:
    return plain(v)


def _facets(
    summary: pd.DataFrame, x: str, cfg: ExperimentConfig
) -> list[tuple[str, dict[str, Any]]]:
    """One panel per combination of the other swept keys with several values."""
    others = [
        k
        for k in ("budget", "n", "d", "skew")
        if k != x and k in cfg.sweep and len(cfg.sweep[k]) > 1
    ]
    if not others:
        return [("", {})]
    combos = summary[others].drop_duplicates().to_dict("records")
    out = []
    for c in combos:
        title = ", ".join(
            f"{'ρ' if k == 'budget' and cfg.unit == 'rho' else ('ε' if k == 'budget' else k)} = {_fmt(v)}"
            for k, v in c.items()
        )
        out.append((title, c))
    return out


def _select(df: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    for k, v in where.items():
        df = df[np.isclose(df[k].astype(float), float(v))]
    return df


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


def _per_x(g: pd.DataFrame, x: str) -> pd.DataFrame:
    """One estimator's summary rows folded to one row per ``x`` (:data:`_PER_X`), sorted by ``x``.

    When every ``x`` appears once (a sweep of one facet, the page's usual case) each aggregate is the
    row's own value, so the rows are taken as they are: the same frame as the groupby's, without its
    cost (about 20 ms per estimator, in every Compare view)."""
    if g[x].notna().all() and g[x].is_unique:
        rows = g.sort_values(x)
        return pd.DataFrame(
            {x: rows[x].to_numpy(), **{k: rows[c].to_numpy() for k, (c, _) in _PER_X.items()}}
        )
    return g.groupby(x, as_index=False).agg(**_PER_X).sort_values(x)


def floor_name(cfg: ExperimentConfig) -> str:
    """The floor line's name: the sampling floor, or on contaminated data the non-private mean."""
    return OUTLIER_FLOOR_NAME if cfg.distribution == "contaminated" else FLOOR_NAME


def _marked(s: pd.DataFrame) -> pd.DataFrame:
    """The summary's finite cells with ``best`` (the best private estimator of its guarantee at
    its point: stars never go to an oracle or a non-private reference) and ``curve`` (its label)."""
    s = s[np.isfinite(s["median"])]
    priv = s[s["private"]]
    best_idx = (
        priv.groupby(["guarantee", "setting"])["median"].idxmin()
        if not priv.empty
        else pd.Series(dtype=int)
    )
    return s.assign(best=s.index.isin(best_idx.to_numpy()), curve=s["label"])


def floor_frame(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The sampling floor per sweep point: the median over runs of the runs' sampling error
    ‖x̄ − μ‖, the same statistic as the estimators' lines, so it lies on the non-private mean's
    line when that one is drawn (columns ``setting, n, d, skew, budget, value, curve``)."""
    return (
        frame.groupby(["setting", "n", "d", "skew", "budget"], sort=False)[f"sampling_{metric}"]
        .median()
        .reset_index()
        .rename(columns={f"sampling_{metric}": "value"})
        .assign(curve=FLOOR_NAME)
    )


def _grid(facets: list[tuple[str, dict[str, Any]]]) -> tuple[go.Figure, int, int]:
    """The panels: up to four per row, titled when there are several; the figure, columns, rows."""
    ncols = min(len(facets), 4)
    nrows = math.ceil(len(facets) / ncols)
    fig = subplots(
        styled=True,
        rows=nrows,
        cols=ncols,
        subplot_titles=[t for t, _ in facets] if len(facets) > 1 else None,
        shared_yaxes=False,
        horizontal_spacing=0.06,
        vertical_spacing=0.14,
    )
    return fig, ncols, nrows


def _band_trace(g: pd.DataFrame, x: str, est: Any) -> go.Scatter:
    """One estimator's 10–90% band, a light filled polygon (no hover, no legend entry)."""
    color, label = g["color"].iloc[0], g["label"].iloc[0]
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


def _median_trace(g: pd.DataFrame, x: str, est: Any, mlabel: str, first: bool) -> go.Scatter:
    """One estimator's median line (dotted for an oracle or a non-private reference)."""
    color, label = g["color"].iloc[0], g["label"].iloc[0]
    dash = "solid" if bool(g["private"].iloc[0]) else "dot"
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


def _warning_text(flagged: pd.DataFrame) -> list[str]:
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


def _warning_trace(g: pd.DataFrame, x: str) -> go.Scatter | None:
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
        hovertemplate=f"<b>{g['label'].iloc[0]}</b>: %{{text}}<extra></extra>",
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
    for curve, g in th.groupby("curve", sort=False):
        g = g.groupby(x, as_index=False)["value"].mean().sort_values(x)
        name = str(curve)
        out.append(
            trace(
                go.Scatter,
                x=g[x],
                y=g["value"],
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
    b = (
        sub[sub["best"]]
        .groupby([x, "guarantee"], as_index=False)
        .agg(median=("median", "first"), label=("label", "first"), color=("color", "first"))
    )
    if b.empty:
        return None
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


def _panel(
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
    for est, g in sub.groupby("estimator", sort=False):
        g = _per_x(g, x)
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


def _axes(fig: go.Figure, s: pd.DataFrame, x: str, unit: str, mlabel: str) -> None:
    """Log axes where they apply (x for budget, n, d; y when every private band is positive: a
    zero line, e.g. the non-private mean measured against itself, is then simply not drawn)."""
    positive = bool((s.loc[s["private"], "lo"] > 0).all()) if s["private"].any() else False
    logx = x in ("budget", "n", "d")
    fig.update_xaxes(
        type="log" if logx else "linear",
        title_text=x_title(x, unit),
        **(swept_ticks(s[x]) if logx else {}),
    )
    ys = np.r_[s["lo"], s["hi"], s["median"]]
    fig.update_yaxes(
        type="log" if positive else "linear", **(log_ticks(ys[ys > 0]) if positive else {})
    )
    fig.update_yaxes(title_text=f"median {mlabel} error", row=1, col=1)  # band: in the hover


#: The columns of an estimator's rows in :func:`error_figure`'s data.
_DATA_COLUMNS = [
    "kind",
    "estimator",
    "label",
    "guarantee",
    "setting",
    "n",
    "d",
    "skew",
    "budget",
    "median",
    "mean",
    "lo",
    "hi",
    "max",
    "failure_rate",
    "warned",
    "runs",
    "best",
    "sampling",
    "sampling_median",
    "clipping",
    "noise",
]


def _figure_data(s: pd.DataFrame, floor: pd.DataFrame, th: pd.DataFrame) -> pd.DataFrame:
    """The data drawn: the estimators' cells, then the floor's and the theory's points."""
    return pd.concat(
        [
            s.assign(kind="estimator")[_DATA_COLUMNS],
            floor.assign(kind="floor", label=floor["curve"]).rename(columns={"value": "median"})[
                ["kind", "label", "setting", "n", "d", "skew", "budget", "median"]
            ],
            th.assign(kind="theory").rename(columns={"curve": "label", "value": "median"})
            if not th.empty
            else None,
        ],
        ignore_index=True,
    )


def error_figure(
    frame: pd.DataFrame,
    *,
    x: str = "budget",
    metric: str = "l2",
    config: ExperimentConfig | Mapping[str, Any] | None = None,
    band: tuple[float, float] = (0.1, 0.9),
    theory_curves: bool = True,
    height: int = 520,
    summary: pd.DataFrame | None = None,
) -> tuple[go.Figure, pd.DataFrame]:
    """Error against ``x`` per estimator: median line, 10–90% band, sampling floor, theory, best marked.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`dpcore.experiments.engine.run`.
    x : {"budget", "n", "d", "skew"}
        The swept key on the x axis; other swept keys with several values become panels.
    metric : str
        Error norm (``l2``, ``l1``, ``linf`` or ``tv``).
    config : ExperimentConfig or mapping, optional
        The sweep's config (default: ``frame.attrs["config"]``).
    band : (float, float)
        Quantiles of the shaded band.
    theory_curves : bool
        Draw the theory curves where they apply (:func:`~dpcore.experiments.summaries.theory_frame`).
    height : int
        Figure height for one row of panels (360 per row otherwise).
    summary : DataFrame, optional
        ``summarise(frame, metric, low=band[0], high=band[1])`` when the caller has it.

    Returns
    -------
    (Figure, DataFrame)
        The figure and its data: one row per (estimator, point) with ``median``, ``lo``, ``hi``,
        ``best`` (the best private estimator there), plus rows for the floor and the theory curves.
    """
    cfg = ExperimentConfig.coerce(config if config is not None else frame.attrs["config"])
    if x not in ("budget", "n", "d", "skew"):
        raise ValueError(f"x must be one of budget, n, d, skew; got {x!r}.")
    s = _marked(summarise(frame, metric, low=band[0], high=band[1]) if summary is None else summary)
    floor = floor_frame(frame, metric)
    th = theory_frame(s, cfg, metric) if theory_curves else pd.DataFrame()
    facets = _facets(s, x, cfg)
    fig, ncols, nrows = _grid(facets)
    mlabel = METRIC_LABEL.get(metric, metric)
    warned_any = False
    for i, (_title, where) in enumerate(facets):
        fl = _select(floor, where).groupby(x, as_index=False)["value"].mean().sort_values(x)
        if cfg.truth == "empirical":
            fl = fl.iloc[:0]
        th_i = _select(th, where) if not th.empty else th
        traces, warned = _panel(_select(s, where), fl, th_i, x, mlabel, i == 0, floor_name(cfg))
        warned_any |= warned
        for t in traces:
            fig.add_trace(t, row=i // ncols + 1, col=i % ncols + 1)
    if warned_any:  # one legend entry for the warning markers
        fig.add_trace(
            legend_entry(
                "warning or blow-up (hover)",
                mode="markers",
                legendgroup="warn",
                marker=dict(symbol="triangle-up-open", size=13, color=WARN_COLOR),
            )
        )
    _axes(fig, s, x, cfg.unit, mlabel)
    style(fig, height=height if nrows == 1 else 360 * nrows)
    return fig, _figure_data(s, floor.assign(curve=floor_name(cfg)), th)


def regret_figure(table: pd.DataFrame) -> go.Figure:
    """The regret ranking as a Plotly table (for HTML reports)."""
    cols = ["rank", "label", "mean_regret", "worst_regret", "wins", "settings"]
    t = table.reindex(columns=cols)
    fig = figure(
        trace(
            go.Table,
            header=dict(
                values=[
                    "rank",
                    "estimator",
                    "typical regret (× best)",
                    "worst regret",
                    "points won",
                    "points",
                ],
                align="left",
                fill_color="#eef1f5",
            ),
            cells=dict(
                values=[
                    t[c].map(lambda v: f"{v:.2f}" if isinstance(v, float) else v) for c in cols
                ],
                align="left",
            ),
        )
    )
    return style(fig, height=80 + 28 * max(len(t), 1))


def headline(
    frame: pd.DataFrame,
    *,
    x: str = "budget",
    metric: str = "l2",
    at: float | None = None,
    versus: str | None = None,
    unit: str = "rho",
    where: Mapping[str, Any] | None = None,
    summary: pd.DataFrame | None = None,
) -> str:
    """The number in words: the best private estimator at one point, per guarantee, by median error.

    Only private estimators (no oracle, no non-private reference) are named, and only against
    estimators with the same guarantee (notion and neighbouring relation); with several guarantees
    there is one clause per guarantee, side by side. Medians over runs, with the share of far-off
    runs at that point (above ``FAILURE_MULTIPLE`` × the median) when it is not zero. ``at`` is the ``x`` value
    (default: the middle of the sweep); ``versus`` an estimator id to compare with (default: the
    runner-up within the same guarantee); ``summary``: ``summarise(frame, metric)`` when the caller
    has it already. Example: "At ρ = 0.25, among ρ-zCDP, replace-one
    estimators PLAN has the lowest median ℓ2 error, 0.41, 2.3 times below IOME's (0.94)."
    """
    s = summarise(frame, metric) if summary is None else summary
    s = _select(s[s["private"].to_numpy(bool)], where or {})
    s = s[np.isfinite(s["median"].to_numpy(float))]
    if s.empty:
        return "No private estimator produced an estimate at these settings."
    xv = s[x].to_numpy()
    xs = np.unique(xv)
    point = (
        xs[len(xs) // 2]
        if at is None
        else xs[np.argmin(np.abs(np.log(xs / at)))]
        if x != "skew"
        else xs[np.argmin(np.abs(xs - at))]
    )
    # the estimators at that point, per (guarantee, estimator, label) in sorted order (as a sorted
    # groupby gives them), then by median error
    rows = np.flatnonzero(np.isclose(xv, point))
    keys = [s[k].to_numpy(object)[rows] for k in ("guarantee", "estimator", "label")]
    cells = Groups(keys, sort=True)
    median = cells.mean(s["median"].to_numpy(float)[rows])
    failure = cells.max(s["failure_rate"].to_numpy(float)[rows])
    order = nargsort(median)
    guarantee, estimator, label = (k[cells.first][order] for k in keys)
    median, failure = median[order], failure[order]
    name = {
        "budget": {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}.get(unit, "budget"),
        "n": "n",
        "d": "d",
        "skew": "α",
    }[x]
    mlabel = METRIC_LABEL.get(metric, metric)
    runs = int(frame["rep"].nunique())
    groups = list(dict.fromkeys(guarantee))
    clauses = []
    for g in groups:
        h = np.flatnonzero(guarantee == g)
        best = h[0]
        lead = f"among {g} estimators " if len(groups) > 1 else ""
        text = f"{lead}**{label[best]}** has the lowest median {mlabel} error, {_fmt(median[best])}"
        if failure[best] > 0:
            text += f" ({failure[best]:.0%} of its runs above {FAILURE_MULTIPLE:g}× that)"
        if versus is not None and versus != estimator[best] and versus in set(estimator[h]):
            other = h[estimator[h] == versus][0]
        elif len(h) > 1:
            other = h[1]
        else:
            clauses.append(text)
            continue
        ratio = median[other] / median[best] if median[best] > 0 else math.inf
        if ratio < 1.1:
            text += f", about the same as {label[other]}'s ({_fmt(median[other])})"
        else:
            text += f", **{plain(ratio, 2)} times below** {label[other]}'s ({_fmt(median[other])})"
        clauses.append(text)
    out = f"At {name} = {_fmt(point)}, " + "; ".join(clauses) + f" (medians of {runs} runs)."
    if len(groups) > 1:
        out += (
            " Estimators with different guarantees are compared side by side, not ranked: each gets the same "
            "budget by the conversion stated below."
        )
    return out


def compare_views(
    frame: pd.DataFrame, config: str, x: str, metric: str, *, drawn: bool = False
) -> tuple[dict, pd.DataFrame, str, pd.DataFrame, pd.DataFrame]:
    """Everything the Compare page draws from one finished sweep: the chart (``fig.to_dict()``;
    with ``drawn``, as ``st.plotly_chart`` sends it, :func:`~dpcore.figures.style.drawn_dict`),
    its data, the sentence under it (the headline at the config's base point, then the budget
    conversions there), the regret table and the summary, computed once for all of them.

    A pure function of picklable values (``config`` is the config's JSON), so the page can run it
    in a worker process of the shared pool, outside the script threads' GIL.
    """
    cfg = ExperimentConfig.from_json(config)
    summary = summarise(frame, metric)
    versus = "iome_paper" if "iome_paper" in set(frame["estimator"]) else None
    at = {"budget": cfg.budget, "n": cfg.n, "d": cfg.d, "skew": cfg.base_skew()}[x]
    sentence = headline(
        frame, x=x, metric=metric, at=at, versus=versus, unit=cfg.unit, summary=summary
    )
    base = frame[
        np.isclose(frame["budget"], cfg.budget)
    ]  # the base point (``at`` on a budget axis)
    rules = (base if not base.empty else frame).drop_duplicates("notion")[["notion", "conversion"]]
    conv_text = "; ".join(
        f"{'pure-DP' if r.notion == 'pure' else 'zCDP'} estimators: {r.conversion}"
        for r in rules.itertuples()
        if r.notion != "none"
    )
    if conv_text:
        sentence += f" Budget conversions there — {in_words(conv_text)}."
    fig, data = error_figure(frame, x=x, metric=metric, config=cfg, summary=summary)
    chart = drawn_dict(fig) if drawn else fig.to_dict()
    return chart, data, sentence, regret_table(frame, metric, summary=summary), summary
