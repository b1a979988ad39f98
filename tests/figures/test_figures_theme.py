"""dpcore.figures.theme: on a dark background the builders' near-black ink turns light, everything
else (estimator colours, data) stays as it was."""

import plotly.graph_objects as go

from dpcore.figures.theme import LIGHT_INK, on_dark


def test_dark_ink_turns_light_and_nothing_else_changes():
    fig = go.Figure(
        [
            go.Scatter(x=[0, 1], y=[1, 2], line=dict(color="#1d2733"), name="clip ball"),
            go.Scatter(
                x=[0], y=[0], marker=dict(color=["#000000", "#0072B2"], line=dict(color="black"))
            ),
            go.Scatter(x=[1], y=[1], fillcolor="rgba(0, 0, 0, 0.15)", line=dict(color="#0072B2")),
        ],
        frames=[go.Frame(data=[go.Scatter(x=[2], y=[2], line=dict(color="#333333"))])],
    )
    fig.add_vline(x=1, line_color="black")
    out = on_dark(fig)
    assert out.data[0].line.color == LIGHT_INK
    assert list(out.data[1].marker.color) == [LIGHT_INK, "#0072B2"]
    assert out.data[1].marker.line.color == LIGHT_INK
    assert (
        out.data[2].fillcolor == "rgba(201, 209, 217, 0.15)" and out.data[2].line.color == "#0072B2"
    )
    assert out.frames[0].data[0].line.color == LIGHT_INK
    assert out.layout.shapes[0].line.color == LIGHT_INK
    assert list(out.data[0].x) == [0, 1] and out.data[0].name == "clip ball"
    assert fig.data[0].line.color == "#1d2733"  # a copy: the original is untouched
