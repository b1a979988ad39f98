"""Compare's error chart built as a plain dict (dpcore.figures.compare_layout) is the figure
plotly assembles from the same traces: the reference below is the assembly as it was, through
``make_subplots``, ``add_trace(row=, col=)``, ``update_xaxes`` / ``update_yaxes`` and the house
style, and the two must give the same JSON object (arrays compared as numbers)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from dpcore.experiments import ExperimentConfig, run
from dpcore.experiments.summaries import summarise, theory_frame
from dpcore.figures import compare as fc
from dpcore.figures.compare_layout import swept_ticks, x_title
from dpcore.figures.compare_traces import WARN_COLOR, panel_traces
from dpcore.figures.style import legend_entry, log_ticks, style
from tests.figures._chart_json import as_numbers


def _reference(frame, x, metric, cfg, height=520):
    """The chart as plotly assembled it before the dict layout (the old ``error_figure``)."""
    s = fc._marked(summarise(frame, metric))
    floor = fc.floor_frame(frame, metric)
    th = theory_frame(s, cfg, metric)
    facets = fc._facets(s, x, cfg)
    ncols = min(len(facets), 4)
    nrows = math.ceil(len(facets) / ncols)
    fig = make_subplots(
        rows=nrows,
        cols=ncols,
        subplot_titles=[t for t, _ in facets] if len(facets) > 1 else None,
        shared_yaxes=False,
        horizontal_spacing=0.06,
        vertical_spacing=0.14,
    )
    mlabel = fc.METRIC_LABEL.get(metric, metric)
    warned_any = False
    for i, (_title, where) in enumerate(facets):
        fl = fc._select(floor, where).groupby(x, as_index=False)["value"].mean().sort_values(x)
        th_i = fc._select(th, where) if not th.empty else th
        traces, warned = panel_traces(
            fc._select(s, where), fl, th_i, x, mlabel, i == 0, fc.floor_name(cfg)
        )
        warned_any |= warned
        for t in traces:
            fig.add_trace(t, row=i // ncols + 1, col=i % ncols + 1)
    if warned_any:
        fig.add_trace(
            legend_entry(
                "warning or blow-up (hover)",
                mode="markers",
                legendgroup="warn",
                marker=dict(symbol="triangle-up-open", size=13, color=WARN_COLOR),
            )
        )
    positive = bool((s.loc[s["private"], "lo"] > 0).all())
    logx = x in ("budget", "n", "d")
    fig.update_xaxes(
        type="log" if logx else "linear",
        title_text=x_title(x, cfg.unit),
        **(swept_ticks(s[x]) if logx else {}),
    )
    ys = np.r_[s["lo"], s["hi"], s["median"]]
    fig.update_yaxes(
        type="log" if positive else "linear", **(log_ticks(ys[ys > 0]) if positive else {})
    )
    fig.update_yaxes(title_text=f"median {mlabel} error", row=1, col=1)
    style(fig, height=height if nrows == 1 else 360 * nrows)
    return fig.to_dict()


def _config(estimators, seed, sweep):
    """A small sweep (n = 300, d = 4, 3 repetitions) of ``estimators`` over ``sweep``."""
    return ExperimentConfig(
        name="t",
        estimators=estimators,
        n=300,
        d=4,
        budget=0.5,
        repetitions=3,
        seed=seed,
        sweep=sweep,
    )


SWEEPS = {
    "one panel": ({"budget": [0.05, 0.5, 2.0]}, "budget", "l2"),
    "four panels": ({"budget": [0.1, 1.0], "n": [200, 400]}, "budget", "l2"),
    "n axis": ({"budget": [0.1, 1.0], "n": [200, 400]}, "n", "linf"),
}


@pytest.mark.parametrize("name", SWEEPS)
def test_dict_chart_is_plotlys_figure(name):
    sweep, x, metric = SWEEPS[name]
    cfg = _config(["empirical", "plan", "gaussian_private", "pmwm_zcdp"], 11, sweep)
    frame = run(cfg)
    chart, _ = fc.error_chart(frame, x=x, metric=metric, config=cfg)
    assert as_numbers(chart) == as_numbers(_reference(frame, x, metric, cfg))
    assert go.Figure(chart).to_dict()["data"]  # plotly takes it as it is
    again, _ = fc.error_chart(frame, x=x, metric=metric, config=cfg)
    again["layout"]["xaxis"]["title"]["text"] = "changed"  # a chart is a copy, never the cache
    assert fc.error_chart(frame, x=x, metric=metric, config=cfg)[0] == chart


def _reference_target(needed, by, target, metric, colors, unit):
    """The target chart as plotly assembled it before the dict layout (the old
    ``target_figure``)."""
    col = f"{by}_needed"
    ok = needed[needed[col].notna()]
    text = [
        ("≤ " if str(note).startswith("already") else "") + fc._fmt(v)
        for v, note in zip(ok[col], ok["note"], strict=True)
    ]
    fig = go.Figure(
        go.Scatter(
            x=ok[col],
            y=ok["label"],
            mode="markers+text",
            marker=dict(size=16, color=[colors.get(e, "#888") for e in ok["estimator"]]),
            text=text,
            textposition="middle right",
            cliponaxis=False,
            hovertemplate="%{y}: %{x:.4g}<extra></extra>",
        )
    )
    vals = ok[col].to_numpy(float)
    axis = {}
    if vals.size:
        lo, hi = float(vals.min()), float(vals.max())
        lo_e, hi_e = math.floor(math.log10(lo) - 0.3), math.ceil(math.log10(hi) + 0.5)
        hi_e = max(hi_e, lo_e + 1)
        axis = {"range": [lo_e, hi_e], **log_ticks(np.r_[10.0**lo_e, vals, 10.0**hi_e])}
    fig.update_xaxes(
        type="log",
        title_text=(f"{fc.budget_label(unit)} needed" if by == "budget" else "n needed"),
        **axis,
    )
    fig.update_yaxes(autorange="reversed", automargin=True, showgrid=True)
    style(
        fig,
        title=f"What each estimator needs for a median {fc.METRIC_LABEL.get(metric, metric)} "
        f"error of {fc._fmt(target)}",
        height=140 + 40 * max(len(ok), 1),
    )
    fig.update_layout(margin=dict(r=80))
    return fig.to_dict()


@pytest.mark.parametrize("by", ["budget", "n"])
def test_dict_target_chart_is_plotlys_figure(by):
    from dpcore.experiments.summaries import needed_for_target

    cfg = _config(
        ["empirical", "plan", "gaussian_private"],
        12,
        {by: [0.05, 0.5, 2.0] if by == "budget" else [100, 300, 900]},
    )
    frame = run(cfg)
    colors = dict(zip(frame["estimator"], frame["color"], strict=False))
    summary = summarise(frame, "l2")
    for target in (float(np.median(summary["median"])), 1e-9):
        need = needed_for_target(frame, target, by=by, metric="l2", summary=summary)
        chart, _ = fc.target_chart(need, by, target, "l2", colors, cfg.unit)
        reference = _reference_target(need, by, target, "l2", colors, cfg.unit)
        assert as_numbers(chart) == as_numbers(reference)
        assert fc.target_figure(need, by, target, "l2", colors, cfg.unit)[0].to_dict()["data"]


def test_numpy_panel_pieces_are_the_pandas_groupbys():
    """The stars, the theory curves and an estimator's folded line, as the pandas groupbys they
    replaced computed them (a faceted sweep: several values per x on the n axis)."""
    from dpcore.figures import compare_traces as ct

    cfg = _config(
        ["empirical", "plan", "gaussian_private"], 13, {"budget": [0.1, 1.0], "n": [200, 400]}
    )
    frame = run(cfg)
    s = fc._marked(summarise(frame, "l2"))
    th = theory_frame(s, cfg, "l2")
    for x in ("budget", "n"):
        b = (
            s[s["best"]]
            .groupby([x, "guarantee"], as_index=False)
            .agg(median=("median", "first"), label=("label", "first"), color=("color", "first"))
        )
        star = ct._best_trace(s, x, True)
        assert list(star["x"]) == list(b[x]) and list(star["y"]) == list(b["median"])
        assert list(star["text"]) == list(b["label"])
        assert list(star["customdata"]) == list(b["guarantee"])
        curves = ct._theory_traces(th, x, True)
        for t, (curve, g) in zip(curves, th.groupby("curve", sort=False), strict=True):
            g = g.groupby(x, as_index=False)["value"].mean().sort_values(x)
            assert t["name"] == curve
            np.testing.assert_allclose(t["x"], g[x].to_numpy(float), rtol=0)
            np.testing.assert_allclose(t["y"], g["value"].to_numpy(float), rtol=1e-15)
        for est, g in s.groupby("estimator", sort=False):
            old = g.groupby(x, as_index=False).agg(**ct._PER_X).sort_values(x)
            new = ct._per_x(g, x)
            for c in old.columns:
                assert list(new[c]) == list(old[c]), (est, c)


def test_chart_and_target_use_the_one_typed_array_encoder():
    """Compare's charts write their number arrays as plotly's typed arrays
    (``dict_figure.plotly_json``, the encoder of every dict chart), not as lists of floats."""
    sweep, x, metric = SWEEPS["one panel"]
    cfg = _config(["empirical", "plan", "gaussian_private"], 11, sweep)
    frame = run(cfg)
    chart, _ = fc.error_chart(frame, x=x, metric=metric, config=cfg)
    typed = [t for t in chart["data"] if isinstance(t.get("y"), dict) and "bdata" in t["y"]]
    assert typed, "no trace has a typed y array"
    summary = summarise(frame, metric)
    value = float(summary["median"].median())
    target, _, _ = fc.target_views(frame, summary, x, value, metric, cfg.unit)
    assert all(not isinstance(v, np.ndarray) for t in target["data"] for v in t.values())
    assert "bdata" in target["data"][0]["x"]
