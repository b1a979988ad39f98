"""The floating-point lesson's figure: how often the low-bit event happens under D and D′, for
NumPy's Laplace and for the safe sampler (:func:`dpcore.audit.low_bits.lesson`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dpcore.audit.low_bits import SAMPLERS, LowBitLesson
from dpcore.figures.style import style

#: Colours of the two data sets (as on the audit's histograms).
COLORS = {"D": "#1f77b4", "D′": "#d62728"}


def lesson_frame(out: LowBitLesson) -> pd.DataFrame:
    """One row per sampler and data set: hits, draws and the share of releases with the event."""
    rows = [
        {
            "sampler": SAMPLERS[sampler],
            "data set": data,
            "hits": out.hits[sampler][data],
            "draws": out.draws,
            "share": out.share(sampler, data),
        }
        for sampler in SAMPLERS
        for data in ("D", "D′")
    ]
    return pd.DataFrame(rows)


def lesson_figure(out: LowBitLesson) -> tuple[go.Figure, pd.DataFrame]:
    """Grouped bars: the share of releases with a bit below 2^-54 set, per sampler, on D and D′,
    each labelled with its count ("538 of 2,000").

    Examples
    --------
    >>> fig, df = lesson_figure(LowBitLesson(10, {"numpy": {"D": 3, "D′": 0},
    ...                                           "safe": {"D": 3, "D′": 2}}))
    >>> list(df["hits"]), len(fig.data)
    ([3, 0, 3, 2], 2)
    """
    df = lesson_frame(out)
    fig = go.Figure()
    for data in ("D", "D′"):
        part = df[df["data set"] == data]
        fig.add_bar(
            x=part["sampler"].tolist(),
            y=part["share"].tolist(),
            name=f"on {data}",
            marker_color=COLORS[data],
            text=[f"{h:,} of {n:,}" for h, n in zip(part["hits"], part["draws"], strict=True)],
            textposition="outside",
        )
    top = float(df["share"].max())
    fig.update_layout(
        barmode="group",
        yaxis_title="share of releases with a bit below 2⁻⁵⁴ set",
        yaxis_tickformat=".0%",
        yaxis_range=[0.0, max(0.05, 1.25 * top)],
    )
    style(fig, title="The last bits of a release: NumPy's Laplace against the safe sampler")
    return fig, df
