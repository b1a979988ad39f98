"""Figures and tables for real data (the "Your data" page). Pure plotly; no streamlit.

Exploration (teaching only): what clipping to the bounds does to each column's mean, and a dot
per estimator (median over repeated runs, with its spread) grouped by guarantee, its error either as
a share of each column's range or in one column's own units; errors are measured against the data's
raw and clipped means, which an analyst running a real release would *not* see. Release: the
released means in the columns' units, and a series of re-measurements combined by inverse variance.

References
----------
docs/architecture.md (app conventions: fixed colours, a sentence with the number, the data behind a chart).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.experiments.plain import plus_minus
from dpcore.figures.dict_figure import Builder, styled
from dpcore.figures.style import figure, legend_entry, plain, style, trace

#: Marker of a peer library's mean (ours are circles).
LIBRARY_SYMBOL = "diamond"
#: Estimators shown per guarantee before "show all".
FEW = 4


def share(value: float) -> str:
    """A share of a range in words: ``0.0123`` -> ``'1.2%'``.

    >>> share(0.0123), share(0.5), share(0.000042)
    ('1.2%', '50%', '0.0042%')
    """
    return plain(100.0 * float(value), 2) + "%"


def runs_each(reps: int) -> str:
    """``reps`` runs per estimator in words.

    >>> runs_each(1), runs_each(10)
    ('1 run each', '10 runs each')
    """
    return f"{reps} run{'' if reps == 1 else 's'} each"


def clipping_sentence(row: pd.Series) -> str:
    """What clipping alone did to one column's mean, in its units (teaching only).

    >>> r = pd.Series({"column": "income", "clipped_share": 0.0005, "shift": -30614.6,
    ...                "lower": 0.0, "upper": 250000.0})
    >>> clipping_sentence(r)
    '0.05% of income values lie outside [$0, $250,000] and were clipped; this moved the mean by -$30,615.'
    """
    col, money = str(row["column"]), is_money(str(row["column"]))
    where = f"[{format_value(row['lower'], money)}, {format_value(row['upper'], money)}]"
    if row["clipped_share"] == 0:
        return f"No {col} value lies outside {where}: clipping does not move its mean."
    return (
        f"{share(row['clipped_share'])} of {col} values lie outside {where} and were clipped; "
        f"this moved the mean by {format_value(row['shift'], money)}."
    )


def clipping_summary(clip: pd.DataFrame, most: int = 6) -> str:
    """:func:`clipping_sentence` for each column that clipping moved (at most ``most``), as a
    Markdown list, and one line for the columns it did not move."""
    moved = clip[clip["clipped_share"] > 0]
    lines = [f"- {clipping_sentence(r)}" for _, r in moved.head(most).iterrows()]
    if len(moved) > most:
        lines.append(f"- … and {len(moved) - most} more columns (table below).")
    still = len(clip) - len(moved)
    if still == 1 and lines:
        lines.append("- No value of the other column lies outside its bounds.")
    elif still and lines:
        lines.append(f"- No value of the other {still} columns lies outside their bounds.")
    elif still == 1:
        lines.append("No value of the column lies outside its bounds: clipping moves no mean.")
    elif still:
        lines.append(
            f"No value of the {still} columns lies outside their bounds: clipping moves no mean."
        )
    return "\n".join(lines)


def _rows(summary: pd.DataFrame) -> tuple[list[str], list[int]]:
    """The y categories (a bold header per guarantee, then its estimators) and each row's place."""
    cats: list[str] = []
    place = []
    for g, part in summary.groupby("guarantee", sort=False):
        cats.append(f"<b>{g}</b>")
        for label in part["estimator"]:
            place.append(len(cats))
            cats.append(str(label))
    return cats, place


def _dots(part: pd.DataFrame, library: bool, scale: float) -> dict:
    """The dots of ``part`` (medians and 10-90% bars, times ``scale``): diamonds for libraries."""
    return trace(
        go.Scatter,
        x=(part["median"] * scale).tolist(),
        y=part["estimator"].tolist(),
        mode="markers",
        marker=dict(
            color=part["color"].tolist(),
            size=11,
            symbol=LIBRARY_SYMBOL if library else "circle",
            line=dict(width=1, color="#333333"),
        ),
        error_x=dict(
            type="data",
            symmetric=False,
            array=((part["high"] - part["median"]) * scale).tolist(),
            arrayminus=((part["median"] - part["low"]) * scale).tolist(),
            thickness=2,
            width=0,
        ),
        customdata=part[["guarantee", "runs"]].to_numpy(),
        hovertemplate="%{y}<br>%{customdata[0]}<br>median %{x:.3g}"
        "<br>over %{customdata[1]} runs<extra></extra>",
        showlegend=False,
    )


def dots_chart(
    summary: pd.DataFrame,
    *,
    column: str | None = None,
    shift: float | None = None,
    new: Builder = figure,
) -> go.Figure:
    """A dot per estimator (median over runs) with its spread, grouped by guarantee.

    ``column=None``: the x axis is the error as a share of each column's range (log scale).
    ``column``: the signed error of that column in its units, with the raw mean at 0 and the mean
    of the clipped data at ``shift`` (the clipping bias) drawn as lines. Peer libraries' means are
    diamonds. ``new``: a ``go.Figure`` (the default) or, for the page, plotly's dict without its
    validation (:class:`~dpcore.figures.dict_figure.DictFigure` through
    :func:`~dpcore.figures.dict_figure.chart_dict`: the same JSON,
    tests/figures/test_your_data_figures.py).
    """
    s = summary.reset_index(drop=True)
    cats, _ = _rows(s)
    scale = 100.0 if column is None else 1.0
    fig = new()
    for lib, part in s.groupby("library", sort=False):
        fig.add_trace(_dots(part, bool(lib), scale))
    fig.add_trace(
        trace(
            go.Scatter,
            x=[None] * len(cats),
            y=cats,
            mode="markers",
            hoverinfo="skip",
            showlegend=False,
        )
    )
    if s["library"].any():
        fig.add_trace(
            legend_entry(
                "a library you would use instead",
                "markers",
                marker=dict(symbol=LIBRARY_SYMBOL, color="#777777", size=10),
            )
        )
    # every row named: plotly's automatic ticks skip every other category once the labels are
    # taller than a row (presenter mode's 16-20 px text on a 720-px screen)
    fig.update_yaxes(
        categoryorder="array",
        categoryarray=cats[::-1],
        tickmode="array",
        tickvals=cats,
        ticktext=cats,
        automargin=True,
    )
    if column is None:
        fig.update_xaxes(type="log", title="error, % of each column's range")
    else:
        fig.update_xaxes(title=f"estimate − raw mean of {column}")
        raw_line = dict(color="#555555", dash="dot", width=1)
        fig.add_vline(x=0.0, line=raw_line)
        fig.add_trace(legend_entry("raw mean", line=raw_line))
        if shift:
            clip_line = dict(color="#d6336c", dash="dash", width=2)
            fig.add_vline(x=float(shift), line=clip_line)
            fig.add_trace(legend_entry("mean of the clipped data", line=clip_line))
    return styled(fig, title=None, height=max(300, 26 * len(cats) + 110))


def dots_sentence(
    summary: pd.DataFrame, *, column: str | None = None, shift: float = 0.0, spread: float = 0.0
) -> str:
    """The number under :func:`dots_chart`: the best median per guarantee (estimators with
    different guarantees are not ranked against each other), and a warning instead when even the
    best is far off (more than the data's own ``spread``, as a share of range or in units)."""
    money = column is not None and is_money(column)
    show = share if column is None else (lambda v: format_value(v, money))
    reps = int(summary["runs"].min())
    best = summary.sort_values("rank", kind="stable").groupby("guarantee", sort=False).head(1)
    if spread > 0 and float(best["rank"].min()) > spread:
        return (
            f"Even the best estimate lands {show(float(best['rank'].min()))} from the mean of the "
            f"clipped data, more than the data's own spread ({show(spread)}): **the bounds are "
            "probably wrong** for these columns, so no estimator is named best."
        )
    what = "of each column's range" if column is None else f"in {column}"
    parts = [
        f"among **{r.guarantee}** estimators, **{r.estimator}** lands closest to the clipped "
        f"mean, a median {show(r.rank)} {what}"
        for r in best.itertuples()
    ]
    text = f"Over {runs_each(reps)} (same data, fresh noise): " + "; ".join(parts) + "."
    if column is not None and shift:
        text += (
            f" Clipping alone moved the mean by {show(shift)}: every estimator that clips to "
            "these bounds carries that bias, whatever its noise."
        )
    if len(parts) > 1:
        text += " Estimators with different guarantees are not ranked against each other."
    return text


# ----------------------------------------------------------------------------------------------
# measure, observe, re-measure: a series of releases and their inverse-variance combination


def remeasure_table(
    columns: list[str], rows: Iterable[tuple[str, np.ndarray, np.ndarray]]
) -> pd.DataFrame:
    """One row per release (and the combination): its label, and per column the mean ± 95%."""
    out = []
    for label, mean, acc in rows:
        rec = {"release": label}
        for c, m, a in zip(columns, np.asarray(mean), np.asarray(acc), strict=True):
            rec[c] = " ± ".join(plus_minus(m, a, is_money(c)))  # one unit, one rounding
        out.append(rec)
    return pd.DataFrame(out)


def remeasure_chart(
    column: str, labels: list[str], means: np.ndarray, accuracy: np.ndarray
) -> go.Figure:
    """Each release of ``column`` and, last, their combination, as a dot with its 95% interval."""
    colors = ["#4c78a8"] * (len(labels) - 1) + ["#111111"]
    fig = figure(
        trace(
            go.Scatter,
            x=np.asarray(means, dtype=float).tolist(),
            y=labels,
            mode="markers",
            marker=dict(color=colors, size=12),
            error_x=dict(
                type="data", array=np.asarray(accuracy, dtype=float).tolist(), thickness=2
            ),
            hovertemplate="%{y}: %{x:,.4g} ± %{error_x.array:,.3g}<extra></extra>",
        )
    )
    fig.update_yaxes(categoryorder="array", categoryarray=labels[::-1], automargin=True)
    fig.update_xaxes(title=f"released mean of {column} (95% interval)")
    return style(fig, title=None, height=max(240, 44 * len(labels) + 120))


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
        body = f"{abs(v):,.0f}" if abs(v) >= 10 or v == 0 else f"{abs(v):,.2f}"
        return ("-" if v < 0 else "") + "$" + body
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
        value, noise = plus_minus(m, a, is_money(col))  # one unit, one rounding
        rows.append(
            {"column": str(col), "released mean": value, "noise at most (95%)": "± " + noise}
        )
    return pd.DataFrame(rows)
