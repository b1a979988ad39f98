"""Shared figure helpers (dpcore.figures.style)."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures.style import epsilon_delta_curve, error_split_chart, log_ticks, tidy_log_axes
from dpcore.privacy import zcdp_to_approx


def test_log_ticks_are_1_2_5_in_full():
    t = log_ticks([0.06, 0.9])
    assert t["tickvals"] == [0.05, 0.1, 0.2, 0.5, 1.0]
    assert t["ticktext"] == ["0.05", "0.1", "0.2", "0.5", "1"]
    many = log_ticks([1e-6, 1e6])
    assert all(np.isclose(np.log10(v), round(np.log10(v))) for v in many["tickvals"])
    assert log_ticks([np.nan, -1.0]) == {}


def test_tidy_log_axes_per_subplot_and_leaves_explicit_ticks():
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(x=[1, 2], y=[0.3, 0.9]), row=1, col=1)
    fig.add_trace(go.Scatter(x=[1, 2], y=[3, 900]), row=1, col=2)
    fig.update_yaxes(type="log")
    fig.update_xaxes(type="log", tickvals=[1, 2], col=1)
    tidy_log_axes(fig)
    assert fig.layout.yaxis.ticktext == ("0.2", "0.5", "1")
    assert fig.layout.yaxis2.ticktext[-1] == "1000"
    assert fig.layout.xaxis.tickvals == (1, 2)  # explicit ticks kept
    assert fig.layout.xaxis2.tickvals is None  # a linear axis is left alone


def test_epsilon_delta_curve_data_is_what_is_drawn():
    fig, df = epsilon_delta_curve(0.5, [1e-6, 1e-3])
    assert len(df) == 4
    row = df[(df.delta == 1e-6) & (df.method == "cks")].iloc[0]
    assert row.epsilon == zcdp_to_approx(0.5, 1e-6, "cks")
    assert len(fig.data) == 2


def test_error_split_chart_has_the_three_sources_and_total():
    df = pd.DataFrame(
        {"estimator": ["A"], "sampling": [1.0], "clipping": [0.2], "noise": [0.5], "total": [1.1]}
    )
    fig = error_split_chart(df)
    assert [t.name for t in fig.data] == [
        "sampling error",
        "clipping bias",
        "DP noise",
        "total error",
    ]


def test_rgba():
    from dpcore.figures.style import rgba

    assert rgba("#08519c", 0.2) == "rgba(8, 81, 156, 0.2)"
    assert rgba("navy", 0.5) == "rgba(127, 127, 127, 0.5)"
