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
    point_medians,
    regret_table,
    summarise,
    theory_frame,
)
from dpcore.figures.compare_layout import (
    grid,
    set_axes,
    swept_ticks,
    x_title,
)
from dpcore.figures.compare_target import target_chart, target_figure, target_views
from dpcore.figures.compare_text import (
    METRIC_LABEL,
    budget_label,
    chance,
    far_off_view,
    in_words,
    outliers_note,
    round_target,
    target_sentence,
)
from dpcore.figures.compare_traces import (
    BLOWUP_MULTIPLE,
    FLOOR_NAME,
    OUTLIER_FLOOR_NAME,
    WARN_COLOR,
    panel_traces,
)
from dpcore.figures.dict_figure import figure_of, plotly_json
from dpcore.figures.style import (
    figure,
    legend_entry,
    plain,
    style,
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
    "error_chart",
    "error_figure",
    "far_off_view",
    "floor_frame",
    "floor_name",
    "headline",
    "in_words",
    "outliers_note",
    "regret_figure",
    "round_target",
    "swept_ticks",
    "target_chart",
    "target_figure",
    "target_sentence",
    "target_views",
    "x_title",
]


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


def floor_name(cfg: ExperimentConfig) -> str:
    """The floor line's name: the sampling floor, or on contaminated data the non-private mean."""
    return OUTLIER_FLOOR_NAME if cfg.distribution == "contaminated" else FLOOR_NAME


def _marked(s: pd.DataFrame) -> pd.DataFrame:
    """The summary's finite cells with ``best`` (the best private estimator of its guarantee at
    its point: stars never go to an oracle or a non-private reference) and ``curve`` (its label)."""
    s = s[np.isfinite(s["median"])]
    private = s["private"].to_numpy(bool)
    best = np.zeros(len(s), bool)
    if private.any():  # per (guarantee, setting): the first private cell with the least median,
        rows = np.flatnonzero(private)  # as groupby(...)["median"].idxmin() picks it
        cells = Groups([s["guarantee"].to_numpy(object)[rows], s["setting"].to_numpy()[rows]])
        order = np.lexsort((rows, s["median"].to_numpy(float)[rows], cells.codes))
        firsts = np.r_[True, cells.codes[order][1:] != cells.codes[order][:-1]]
        best[rows[order[firsts]]] = True
    return s.assign(best=best, curve=s["label"])


def floor_frame(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The sampling floor per sweep point: the median over runs of the runs' sampling error
    ‖x̄ − μ‖, the same statistic as the estimators' lines, so it lies on the non-private mean's
    line when that one is drawn (columns ``setting, n, d, skew, budget, value, curve``).

    The points are numbered as ``groupby(keys, sort=False)`` numbers them and the medians are its
    own (:func:`~dpcore.experiments.summaries.point_medians`), computed in numpy on the columns."""
    keys = ["setting", "n", "d", "skew", "budget"]
    known = np.logical_and.reduce([frame[k].notna().to_numpy() for k in keys]) if len(frame) else []
    rows = frame[known] if not np.all(known) else frame  # groupby drops a point with a NaN key
    cells = Groups([rows[k] for k in keys])
    out = {k: rows[k].array.take(cells.first) for k in keys}
    out["value"] = point_medians(cells, rows[f"sampling_{metric}"].to_numpy(float))
    return pd.DataFrame(out).assign(curve=FLOOR_NAME)


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
    chart, data = error_chart(
        frame,
        x=x,
        metric=metric,
        config=config,
        band=band,
        theory_curves=theory_curves,
        height=height,
        summary=summary,
    )
    return figure_of(chart), data


def error_chart(
    frame: pd.DataFrame,
    *,
    x: str = "budget",
    metric: str = "l2",
    config: ExperimentConfig | Mapping[str, Any] | None = None,
    band: tuple[float, float] = (0.1, 0.9),
    theory_curves: bool = True,
    height: int = 520,
    summary: pd.DataFrame | None = None,
) -> tuple[dict, pd.DataFrame]:
    """:func:`error_figure` as the plain dict plotly writes for it (``fig.to_dict()``: NumPy
    arrays as typed arrays, :func:`~dpcore.figures.dict_figure.plotly_json`), built without
    plotly's validation (:mod:`dpcore.figures.compare_layout`); the page draws it as it is."""
    cfg = ExperimentConfig.coerce(config if config is not None else frame.attrs["config"])
    if x not in ("budget", "n", "d", "skew"):
        raise ValueError(f"x must be one of budget, n, d, skew; got {x!r}.")
    s = _marked(summarise(frame, metric, low=band[0], high=band[1]) if summary is None else summary)
    floor = floor_frame(frame, metric)
    th = theory_frame(s, cfg, metric) if theory_curves else pd.DataFrame()
    facets = _facets(s, x, cfg)
    layout, refs = grid([t for t, _ in facets], height)
    mlabel = METRIC_LABEL.get(metric, metric)
    data: list[dict] = []
    warned_any = False
    for i, (_title, where) in enumerate(facets):
        fl = _select(floor, where).groupby(x, as_index=False)["value"].mean().sort_values(x)
        if cfg.truth == "empirical":
            fl = fl.iloc[:0]
        th_i = _select(th, where) if not th.empty else th
        traces, warned = panel_traces(
            _select(s, where), fl, th_i, x, mlabel, i == 0, floor_name(cfg)
        )
        warned_any |= warned
        data += [{**t, "xaxis": refs[i][0], "yaxis": refs[i][1]} for t in traces]
    if warned_any:  # one legend entry for the warning markers
        data.append(
            legend_entry(
                "warning or blow-up (hover)",
                mode="markers",
                legendgroup="warn",
                marker=dict(symbol="triangle-up-open", size=13, color=WARN_COLOR),
            )
        )
    set_axes(layout, s, x, cfg.unit, mlabel)
    return plotly_json(data, layout), _figure_data(s, floor.assign(curve=floor_name(cfg)), th)


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


def _at_point(s: pd.DataFrame, x: str, at: float | None) -> tuple[float, tuple[np.ndarray, ...]]:
    """The point of the sweep :func:`headline` speaks of (``at``, the nearest swept value; the
    middle one by default) and its estimators' ``guarantee, estimator, label, median,
    failure_rate`` arrays: one cell per (guarantee, estimator, label) in sorted order (as a sorted
    groupby gives them), then by median error."""
    xv = s[x].to_numpy()
    xs = np.unique(xv)
    point = (
        xs[len(xs) // 2]
        if at is None
        else xs[np.argmin(np.abs(np.log(xs / at)))]
        if x != "skew"
        else xs[np.argmin(np.abs(xs - at))]
    )
    rows = np.flatnonzero(np.isclose(xv, point))
    keys = [s[k].to_numpy(object)[rows] for k in ("guarantee", "estimator", "label")]
    cells = Groups(keys, sort=True)
    median = cells.mean(s["median"].to_numpy(float)[rows])
    failure = cells.max(s["failure_rate"].to_numpy(float)[rows])
    order = nargsort(median)
    return point, (*(k[cells.first][order] for k in keys), median[order], failure[order])


def _clause(
    best: int,
    other: int | None,
    label: np.ndarray,
    median: np.ndarray,
    failure: np.ndarray,
    mlabel: str,
) -> str:
    """:func:`headline`'s words for one guarantee: its best estimator (cell ``best``), its share
    of far-off runs, and how it compares with cell ``other`` (none: no comparison)."""
    text = f"**{label[best]}** has the lowest median {mlabel} error, {_fmt(median[best])}"
    if failure[best] > 0:
        text += f" ({failure[best]:.0%} of its runs above {FAILURE_MULTIPLE:g}× that)"
    if other is None:
        return text
    ratio = median[other] / median[best] if median[best] > 0 else math.inf
    if ratio < 1.1:
        return text + f", about the same as {label[other]}'s ({_fmt(median[other])})"
    return text + f", **{plain(ratio, 2)} times below** {label[other]}'s ({_fmt(median[other])})"


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
    point, (guarantee, estimator, label, median, failure) = _at_point(s, x, at)
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
        lead = f"among {g} estimators " if len(groups) > 1 else ""
        if versus is not None and versus != estimator[h[0]] and versus in set(estimator[h]):
            other: int | None = int(h[estimator[h] == versus][0])
        else:
            other = int(h[1]) if len(h) > 1 else None
        clauses.append(lead + _clause(int(h[0]), other, label, median, failure, mlabel))
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
    chart, data = error_chart(frame, x=x, metric=metric, config=cfg, summary=summary)
    if not drawn:
        chart = go.Figure(chart).to_dict()
    return chart, data, sentence, regret_table(frame, metric, summary=summary), summary
