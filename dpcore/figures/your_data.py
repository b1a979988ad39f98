"""Figures and tables for real data (the "Your data" page): every applicable estimator run once on
the chosen columns, and the spread of its error over repeated runs. Pure plotly; no streamlit.

The error is measured against the non-private mean of the data, which an analyst running a real
release would *not* see.

References
----------
docs/architecture.md (app conventions: fixed colours, a sentence with the number, the data behind a chart).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.data.dataset import Dataset
from dpcore.estimate import Estimate, EstimatorSpec
from dpcore.figures.style import figure, style, trace

#: Column of :func:`estimates_frame` with ``Diagnostics.nonprivate``: data-dependent values that are
#: not part of any release (shown only under this label).
NONPRIVATE_COLUMN = "non-private diagnostics (teaching only, not released)"


def estimates_frame(
    results: Iterable[tuple[EstimatorSpec, Estimate]], truth: np.ndarray
) -> pd.DataFrame:
    """One row per estimator: its error against the non-private mean and what it spent."""
    rows = []
    for spec, est in results:
        err = np.asarray(est.mean, dtype=float) - truth
        stages = est.ledger.by_stage()
        bounds_spend = sum(v for k, v in stages.items() if k.startswith("bounds:"))
        rows.append(
            {
                "estimator": spec.label,
                "name": spec.name,
                "color": spec.color,
                "family": spec.family,
                "notion": spec.notion,
                "neighbouring": spec.neighbouring,
                "l2_error": float(np.linalg.norm(err)),
                "max_abs_error": float(np.max(np.abs(err))),
                "spent": est.ledger.total(),
                "unit": est.ledger.unit(),
                "spent_on_bounds": bounds_spend,
                "warnings": "; ".join(est.diagnostics.warnings),
                NONPRIVATE_COLUMN: "; ".join(
                    f"{k} = {v}" for k, v in est.diagnostics.nonprivate.items()
                ),
            }
        )
    return pd.DataFrame(rows).sort_values("l2_error", kind="stable").reset_index(drop=True)


def error_bar_chart(df: pd.DataFrame) -> go.Figure:
    """Horizontal bars of each estimator's l2 error (one run), best at the top, log scale."""
    d = df.iloc[::-1]
    fig = figure(
        trace(
            go.Bar,
            x=d["l2_error"],
            y=d["estimator"],
            orientation="h",
            marker_color=d["color"],
            customdata=d[["max_abs_error", "spent", "unit"]].to_numpy(),
            hovertemplate="%{y}<br>‖error‖₂ = %{x:.4g}<br>max |error| = %{customdata[0]:.4g}"
            "<br>spent %{customdata[1]:.4g} %{customdata[2]}<extra></extra>",
        )
    )
    fig.update_xaxes(
        type="log", title="‖private mean − non-private mean‖₂ (what an analyst would not see)"
    )
    return style(
        fig, title="One private release per estimator", height=max(320, 24 * len(df) + 120)
    )


def repeated_chart(df: pd.DataFrame) -> go.Figure:
    """Box plot of the l2 error over repeated runs, one box per estimator in its colour."""
    fig = figure()
    order = df.groupby("estimator", sort=False)["l2_error"].median().sort_values().index
    for label in order:
        part = df[df["estimator"] == label]
        fig.add_trace(
            trace(
                go.Box,
                x=part["l2_error"],
                name=label,
                marker_color=part["color"].iloc[0],
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                orientation="h",
            )
        )
    fig.update_xaxes(type="log", title="‖private mean − non-private mean‖₂ over repeated runs")
    fig.update_layout(showlegend=False)
    return style(
        fig,
        title="Spread over repeated runs (same data, fresh noise)",
        height=max(320, 40 * len(order) + 140),
    )


def data_scale(data: Dataset) -> float:
    """The data's own spread, ``‖σ‖₂`` of the chosen columns (non-private, teaching only): an error far
    above it means the estimates say nothing about the mean (typically: the bounds are wrong)."""
    x = np.asarray(data.x, dtype=float)
    return float(np.linalg.norm(x.std(axis=0))) if x.shape[0] > 1 else 0.0


def _far_off(best: float, scale: float, data: Dataset | None = None) -> str | None:
    if not (best > FAR_OFF_MULTIPLE * scale) or scale <= 0:
        return None
    hint = ""
    if data is not None:
        lo, hi = (np.asarray(b, dtype=float) for b in data.bounds)
        outside = float(np.mean((data.x < lo) | (data.x > hi)))
        if outside > 0:
            hint = f" {outside:.0%} of the values lie outside the bounds and are clipped."
    return (
        f"Every estimate lands more than {FAR_OFF_MULTIPLE:g}× the data's own spread (‖σ‖₂ = {scale:.3g}) "
        f"from the non-private mean (the closest is {best:.3g} away): **the bounds are probably wrong** for "
        f"these columns, so no estimator is named best.{hint}"
    )


#: An estimate more than this multiple of the data's spread ``‖σ‖₂`` from the non-private mean is "far off".
FAR_OFF_MULTIPLE = 1.0


def one_release_sentence(table: pd.DataFrame, scale: float, data: Dataset | None = None) -> str:
    """The sentence under the one-release chart: a range, never a winner (one noisy draw cannot rank),
    and a warning instead when every estimate is far off."""
    far = _far_off(float(table["l2_error"].min()), scale, data)
    if far:
        return far
    return (
        f"One release per estimator lands between {table['l2_error'].min():.3g} and "
        f"{table['l2_error'].max():.3g} (ℓ2) from the non-private mean, what an analyst would *not* see; "
        f"the data's own spread is ‖σ‖₂ = {scale:.3g}. **One noisy draw cannot rank estimators**: the "
        "repeated runs below compare medians, within one guarantee."
    )


def spread_sentence(df: pd.DataFrame, scale: float | None = None) -> str:
    """Rank by the **median** error over repeated runs, within each guarantee (notion and neighbouring
    relation), with the 95% quantile; no winner when every median is far off (see :func:`data_scale`)."""
    reps = int(df.groupby("estimator").size().min())
    med = df.groupby(["guarantee", "estimator"])["l2_error"].median()
    q95 = df.groupby(["guarantee", "estimator"])["l2_error"].quantile(0.95)
    if scale is not None:
        far = _far_off(float(med.min()), scale)
        if far:
            return far
    parts = []
    for g, m in med.groupby(level=0, sort=False):
        m = m.droplevel(0).sort_values()
        best = m.index[0]
        text = (
            f"among **{g}** estimators, **{best}** has the smallest median error, {m.iloc[0]:.3g} "
            f"(95% of its runs within {float(q95.loc[(g, best)]):.3g})"
        )
        if len(m) > 1:
            r = m.iloc[1] / max(m.iloc[0], 1e-300)
            text += (
                f", about the same as {m.index[1]} ({m.iloc[1]:.3g})"
                if r < 1.05
                else f", {r:.2f}× below {m.index[1]}"
            )
        parts.append(text)
    multi = (
        " Estimators with different guarantees are not ranked against each other."
        if len(parts) > 1
        else ""
    )
    return f"Over {reps} runs each (same data, fresh noise): " + "; ".join(parts) + "." + multi


# ----------------------------------------------------------------------------------------------
# release mode: the released means in the columns' units, with the accuracy in words

#: Words in a column name that mark an amount of money (shown as $1,240).
MONEY_WORDS = ("income", "wage", "salary", "earn", "pay", "price", "cost", "rent", "usd", "$")


def is_money(column: str) -> bool:
    """Whether a column's name says it holds an amount of money."""
    low = str(column).lower()
    return any(w in low for w in MONEY_WORDS)


def format_value(value: float, money: bool = False) -> str:
    """``value`` for a reader: ``$1,240`` for money, else four significant digits with commas.

    >>> format_value(1239.6, money=True), format_value(0.123456), format_value(-52000.0)
    ('$1,240', '0.1235', '-52,000')
    """
    v = float(value)
    if money:
        return ("-" if v < 0 else "") + f"${abs(v):,.0f}" if abs(v) >= 10 else f"${v:,.2f}"
    if v != 0 and (abs(v) >= 1e4 or abs(v) < 1e-3):
        return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.3g}"
    return f"{v:.4g}"


def accuracy_sentence(column: str, accuracy: float, level: float = 0.95) -> str:
    """One sentence: how far the noise moved the released mean of ``column``, at most.

    >>> accuracy_sentence("income", 1239.6)
    'With 95% probability the noise moved the mean of income by less than $1,240.'
    """
    value = format_value(accuracy, is_money(column))
    return (
        f"With {level:.0%} probability the noise moved the mean of {column} by less than {value}."
    )


def release_table(columns: Iterable[str], mean: np.ndarray, accuracy: np.ndarray) -> pd.DataFrame:
    """The released means and their accuracy per column, formatted in the columns' units."""
    rows = []
    for col, m, a in zip(columns, np.asarray(mean), np.asarray(accuracy), strict=True):
        money = is_money(col)
        rows.append(
            {
                "column": str(col),
                "released mean": format_value(m, money),
                "noise at most (95%)": "± " + format_value(a, money),
            }
        )
    return pd.DataFrame(rows)
