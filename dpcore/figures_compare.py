"""Plotly builders for comparing estimators over a sweep (pure plotly; no streamlit).

Each builder returns ``(figure, data_frame)`` where the frame is exactly the data drawn, so the
app can offer it as a CSV and a notebook can re-plot it. Input is the tidy frame of
:func:`dpcore.experiments.run`.

* :func:`error_figure` — error against budget, n, d or skew: the mean per estimator with a
  10–90% band, the sampling floor, the idealised theory curves of :mod:`dpcore.theory` (ℓ2 on
  real/bounded data) and, at each point, the best private estimator marked with a star.
* :func:`regret_figure` — the regret ranking as a table figure.
* :func:`target_figure` — accuracy first: the budget (or n) each estimator needs for a target error.
* :func:`headline` — the number in words under the chart.

References
----------
Aumüller, Lebeda, Nelson, Pagh. PLAN (PETS 2024), Section 7 (the figures this reproduces);
specs/plan.md §6 (idealised curves) and §7.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore import theory
from dpcore.data import DISTRIBUTIONS, generate
from dpcore.experiments import ExperimentConfig, private_only, summarise
from dpcore.figures import log_ticks, rgba, style
from dpcore.privacy import Budget

AXIS_LABEL = {"budget": "privacy budget", "n": "n (rows)", "d": "d (dimension)", "skew": "skew α"}
METRIC_LABEL = {"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞", "tv": "½ℓ1 (TV)"}
FLOOR_COLOR = "#7f7f7f"

THEORY_DASH = {"PLAN": "dash", "Gaussian mechanism": "dot"}
#: PLAN's default noise share ρ3 = 0.5625 ρ (specs/plan.md §2; also the private-radius Gaussian mechanism's).
NOISE_SHARE = 0.5625


def budget_label(unit: str) -> str:
    return {"rho": "ρ (zCDP)", "eps": "ε (pure DP)", "eps_delta": "ε (at fixed δ)"}.get(unit, unit)


def x_title(x: str, unit: str) -> str:
    return f"privacy budget {budget_label(unit)} — more private ←" if x == "budget" else AXIS_LABEL[x]


def _fmt(v: float) -> str:
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def theory_frame(summary: pd.DataFrame, cfg: ExperimentConfig, metric: str) -> pd.DataFrame:
    """Idealised theory curves at each sweep point (specs/plan.md §6), where they apply.

    Only for ℓ2 on real or bounded data: PLAN's noise ``G_2 sqrt(2/ρ3) ||σ||_1 / n`` and the
    Gaussian mechanism's ``sqrt(2/ρ3) sqrt(d) ||σ||_2 / n`` with σ known, clip margin 1 and the noise
    share ``ρ3 = 0.5625 ρ`` (ρ = the user budget in zCDP), combined with the sampling error
    ``||σ||_2 / sqrt(n)`` as ``sqrt(sampling² + noise²)`` (independent errors add in square; the
    sampling part is dropped when the truth is the empirical mean). They are shapes with idealised
    constants, not predictions of each run.
    """
    cols = ["setting", "n", "d", "skew", "budget", "curve", "value"]
    if metric != "l2" or cfg.kind == "binary" or cfg.unit == "eps":  # zCDP curves: not run under pure ε
        return pd.DataFrame(columns=cols)
    rows = []
    pts = summary.drop_duplicates("setting")[["setting", "n", "d", "skew", "budget"]]
    sigmas: dict[tuple[int, float], np.ndarray] = {}
    for r in pts.itertuples(index=False):
        key = (int(r.d), float(r.skew))
        if key not in sigmas:  # the generator's population σ profile (its parameters, not a sample)
            sigmas[key] = generate(cfg.distribution, 2, int(r.d), float(r.skew), rng=0, **cfg.data_params).true_std
        sigma = sigmas[key]
        rho = Budget.from_unit(cfg.unit, float(r.budget), cfg.delta).to_native("zcdp", cfg.conversion).value  # type: ignore[arg-type]
        rho3 = NOISE_SHARE * rho
        samp = 0.0 if cfg.truth == "empirical" else theory.sampling_error(sigma, int(r.n), 2.0)
        for name, f in (("PLAN", theory.plan_noise_error), ("Gaussian mechanism", theory.gaussian_mechanism_noise_error)):
            noise = f(sigma, int(r.n), rho3, 2.0)
            rows.append({"setting": r.setting, "n": r.n, "d": r.d, "skew": r.skew, "budget": r.budget,
                         "curve": f"theory: {name}", "value": math.hypot(samp, noise)})
    return pd.DataFrame(rows, columns=cols)


def _facets(summary: pd.DataFrame, x: str, cfg: ExperimentConfig) -> list[tuple[str, dict[str, Any]]]:
    """One panel per combination of the other swept keys with several values."""
    others = [k for k in ("budget", "n", "d", "skew") if k != x and k in cfg.sweep and len(cfg.sweep[k]) > 1]
    if not others:
        return [("", {})]
    combos = summary[others].drop_duplicates().to_dict("records")
    out = []
    for c in combos:
        title = ", ".join(f"{'ρ' if k == 'budget' and cfg.unit == 'rho' else ('ε' if k == 'budget' else k)} = {_fmt(v)}"
                          for k, v in c.items())
        out.append((title, c))
    return out


def _select(df: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    for k, v in where.items():
        df = df[np.isclose(df[k].astype(float), float(v))]
    return df


def error_figure(frame: pd.DataFrame, *, x: str = "budget", metric: str = "l2",
                 config: ExperimentConfig | Mapping[str, Any] | None = None, band: tuple[float, float] = (0.1, 0.9),
                 theory_curves: bool = True, height: int = 460) -> tuple[go.Figure, pd.DataFrame]:
    """Error against ``x`` per estimator: mean line, 10–90% band, sampling floor, theory, best marked.

    Returns the figure and its data: one row per (estimator, point) with ``mean``, ``lo``, ``hi``,
    ``best`` (the best private estimator there) plus rows for the floor and the theory curves.
    """
    cfg = ExperimentConfig.coerce(config if config is not None else frame.attrs["config"])
    if x not in ("budget", "n", "d", "skew"):
        raise ValueError(f"x must be one of budget, n, d, skew; got {x!r}.")
    s = summarise(frame, metric, low=band[0], high=band[1])
    s = s[np.isfinite(s["mean"])]
    priv = s[s["notion"] != "none"]
    best_idx = priv.groupby("setting")["mean"].idxmin() if not priv.empty else pd.Series(dtype=int)
    s = s.assign(best=s.index.isin(best_idx.to_numpy()), curve=s["label"])
    floor = (frame.groupby(["setting", "n", "d", "skew", "budget"], sort=False)[f"sampling_{metric}"].mean()
             .reset_index().rename(columns={f"sampling_{metric}": "value"}).assign(curve="sampling floor (mean)"))
    th = theory_frame(s, cfg, metric) if theory_curves else pd.DataFrame()
    facets = _facets(s, x, cfg)
    ncols = min(len(facets), 4)
    nrows = math.ceil(len(facets) / ncols)
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=[t for t, _ in facets] if len(facets) > 1 else None,
                        shared_yaxes=False, horizontal_spacing=0.06, vertical_spacing=0.14)
    mlabel = METRIC_LABEL.get(metric, metric)
    for i, (_title, where) in enumerate(facets):
        row, col = i // ncols + 1, i % ncols + 1
        first = i == 0
        sub = _select(s, where)
        for est, g in sub.groupby("estimator", sort=False):
            g = g.groupby(x, as_index=False).agg(mean=("mean", "mean"), lo=("lo", "mean"), hi=("hi", "mean"),
                                                 label=("label", "first"), color=("color", "first"),
                                                 notion=("notion", "first")).sort_values(x)
            color, label = g["color"].iloc[0], g["label"].iloc[0]
            xs = g[x].tolist()
            fig.add_trace(go.Scatter(x=xs + xs[::-1], y=g["hi"].tolist() + g["lo"].tolist()[::-1], fill="toself",
                                     mode="lines",  # the default for < 20 points adds stray vertex markers
                                     fillcolor=rgba(color, 0.14), line=dict(width=0), hoverinfo="skip",
                                     legendgroup=str(est), showlegend=False, name=f"{label} 10–90%"), row=row, col=col)
            dash = "dot" if g["notion"].iloc[0] == "none" else "solid"
            fig.add_trace(go.Scatter(x=xs, y=g["mean"], mode="lines+markers", name=label, legendgroup=str(est),
                                     showlegend=first, line=dict(color=color, width=2.2, dash=dash),
                                     marker=dict(size=6, color=color),
                                     customdata=np.c_[g["lo"], g["hi"]],
                                     hovertemplate=f"<b>{label}</b><br>{x} = %{{x:.4g}}<br>mean {mlabel} = %{{y:.4g}}"
                                                   "<br>10–90%: %{customdata[0]:.3g} – %{customdata[1]:.3g}<extra></extra>"),
                          row=row, col=col)
        fl = _select(floor, where).groupby(x, as_index=False)["value"].mean().sort_values(x)
        if not fl.empty and cfg.truth != "empirical":
            fig.add_trace(go.Scatter(x=fl[x], y=fl["value"], mode="lines", name="sampling floor", legendgroup="floor",
                                     showlegend=first, line=dict(color=FLOOR_COLOR, width=1.5, dash="dashdot"),
                                     hovertemplate="sampling floor %{y:.4g}<extra></extra>"), row=row, col=col)
        if not th.empty:
            for curve, g in _select(th, where).groupby("curve", sort=False):
                g = g.groupby(x, as_index=False)["value"].mean().sort_values(x)
                name = str(curve)
                fig.add_trace(go.Scatter(x=g[x], y=g["value"], mode="lines", name=name, legendgroup=name,
                                         showlegend=first, opacity=0.8,
                                         line=dict(color="#1d2733", width=1.2, dash=THEORY_DASH[name.split(": ")[1]]),
                                         hovertemplate=f"{name} %{{y:.4g}}<extra></extra>"), row=row, col=col)
        b = sub[sub["best"]].groupby(x, as_index=False).agg(mean=("mean", "first"), label=("label", "first"),
                                                            color=("color", "first"))
        if not b.empty:
            fig.add_trace(go.Scatter(x=b[x], y=b["mean"], mode="markers", name="best at this point",
                                     legendgroup="best", showlegend=first, text=b["label"],
                                     marker=dict(symbol="star", size=15, color=b["color"].tolist(),
                                                 line=dict(color="#1d2733", width=1)),
                                     hovertemplate="best: %{text}<br>%{y:.4g}<extra></extra>"), row=row, col=col)
    positive = bool((s["lo"] > 0).all()) if not s.empty else False
    logx = x in ("budget", "n", "d")
    fig.update_xaxes(type="log" if logx else "linear", title_text=x_title(x, cfg.unit),
                     **(log_ticks(s[x]) if logx else {}))
    fig.update_yaxes(type="log" if positive else "linear",
                     **(log_ticks(np.r_[s["lo"], s["hi"], s["mean"]]) if positive else {}))
    fig.update_yaxes(title_text=f"{mlabel} error (mean, 10–90% band)", row=1, col=1)
    style(fig, height=height if nrows == 1 else 360 * nrows)
    data = pd.concat([
        s.assign(kind="estimator")[["kind", "estimator", "label", "setting", "n", "d", "skew", "budget", "mean",
                                    "median", "lo", "hi", "runs", "best", "sampling", "clipping", "noise"]],
        floor.assign(kind="floor", label="sampling floor (mean)").rename(columns={"value": "mean"})
        [["kind", "label", "setting", "n", "d", "skew", "budget", "mean"]],
        th.assign(kind="theory").rename(columns={"curve": "label", "value": "mean"}) if not th.empty else None,
    ], ignore_index=True)
    return fig, data



def regret_figure(table: pd.DataFrame) -> go.Figure:
    """The regret ranking as a Plotly table (for HTML reports)."""
    cols = ["rank", "label", "mean_regret", "worst_regret", "wins", "settings"]
    t = table.reindex(columns=cols)
    fig = go.Figure(go.Table(
        header=dict(values=["rank", "estimator", "typical regret (× best)", "worst regret", "points won", "points"],
                    align="left", fill_color="#eef1f5"),
        cells=dict(values=[t[c].map(lambda v: f"{v:.2f}" if isinstance(v, float) else v) for c in cols],
                   align="left")))
    return style(fig, height=80 + 28 * max(len(t), 1))


def target_figure(needed: pd.DataFrame, by: str, target: float, metric: str, colors: Mapping[str, str],
                  unit: str = "rho") -> tuple[go.Figure, pd.DataFrame]:
    """Accuracy first: horizontal bars of the ``by`` value each estimator needs for ``target``."""
    col = f"{by}_needed"
    d = needed.copy()
    ok = d[d[col].notna()]
    fig = go.Figure(go.Bar(x=ok[col], y=ok["label"], orientation="h",
                           marker_color=[colors.get(e, "#888") for e in ok["estimator"]],
                           text=[_fmt(v) for v in ok[col]], textposition="outside",
                           hovertemplate="%{y}: %{x:.4g}<extra></extra>"))
    fig.update_xaxes(type="log", title_text=(f"{budget_label(unit)} needed" if by == "budget" else "n needed"),
                     **log_ticks(ok[col]))
    fig.update_yaxes(autorange="reversed")
    style(fig, title=f"What each estimator needs for a mean {METRIC_LABEL.get(metric, metric)} error of {target:.3g}",
          height=120 + 40 * max(len(ok), 1))
    return fig, d


def headline(frame: pd.DataFrame, *, x: str = "budget", metric: str = "l2", at: float | None = None,
             versus: str | None = None, unit: str = "rho", where: Mapping[str, Any] | None = None) -> str:
    """The number in words: the best private estimator at one point and how far below another it is.

    ``at`` is the ``x`` value (default: the middle of the sweep); ``versus`` an estimator id to
    compare with (default: the runner-up). Example: "At ρ = 0.25, PLAN's ℓ2 error is 0.41 on
    average, 2.3 times below IOME's (0.94)."
    """
    s = summarise(private_only(frame), metric)
    s = _select(s, where or {})
    s = s[np.isfinite(s["mean"])]
    if s.empty:
        return "No private estimator produced an estimate at these settings."
    xs = np.sort(s[x].unique())
    point = xs[len(xs) // 2] if at is None else xs[np.argmin(np.abs(np.log(xs / at)))] if x != "skew" \
        else xs[np.argmin(np.abs(xs - at))]
    here = s[np.isclose(s[x], point)].groupby(["estimator", "label"], as_index=False)["mean"].mean().sort_values("mean")
    best = here.iloc[0]
    name = {"budget": {"rho": "ρ", "eps": "ε", "eps_delta": "ε"}.get(unit, "budget"), "n": "n", "d": "d",
            "skew": "α"}[x]
    mlabel = METRIC_LABEL.get(metric, metric)
    runs = int(frame["rep"].nunique())
    text = f"At {name} = {_fmt(point)}, **{best['label']}** has the lowest mean {mlabel} error, {best['mean']:.3g}"
    others = here.iloc[1:]
    if versus is not None and versus != best["estimator"] and versus in set(here["estimator"]):
        other = here[here["estimator"] == versus].iloc[0]
    elif not others.empty:
        other = others.iloc[0]
    else:
        return text + f" (mean of {runs} runs)."
    ratio = other["mean"] / best["mean"] if best["mean"] > 0 else math.inf
    if ratio < 1.1:
        return text + f", about the same as {other['label']}'s ({other['mean']:.3g}; mean of {runs} runs)."
    return text + f", **{ratio:.2g} times below** {other['label']}'s ({other['mean']:.3g}; mean of {runs} runs)."


def distribution_label(name: str) -> str:
    return DISTRIBUTIONS[name].label if name in DISTRIBUTIONS else name
