"""dpcore.figures.slides: a self-contained deck, one section per chart, plotly.js inlined once, text escaped."""

import plotly.graph_objects as go

from dpcore.figures.slides import deck_html


def test_deck_has_one_slide_per_chart_and_inlines_plotly_once():
    figs = [go.Figure(go.Scatter(x=[0, 1], y=[k, k + 1])) for k in range(3)]
    out = deck_html(
        "Side by side",
        [(f"slide {k}", f"**bold** <b>{k}</b>", f) for k, f in enumerate(figs)],
        subtitle="n = 2000",
    )
    assert out.count("<section") == 4  # title + 3 charts
    assert out.count("Plotly.newPlot") == 3
    assert out.count("plotly.js v") == 1 or out.count("window.PlotlyConfig") == 1
    assert "<strong>bold</strong>" in out and "&lt;b&gt;0&lt;/b&gt;" in out
    assert "ArrowRight" in out


def test_split_subplots_gives_each_panel_its_traces_axes_title_and_legend():
    from plotly.subplots import make_subplots

    from dpcore.figures.slides import split_subplots

    fig = make_subplots(rows=2, cols=2, subplot_titles=["(a) one", "(b)<br>two", "(c)", "(d)"])
    for k in range(4):
        r, c = divmod(k, 2)
        fig.add_trace(go.Scatter(x=[0, k], y=[k, 0], name="rows", showlegend=k == 0), r + 1, c + 1)
        fig.add_trace(go.Scatter(x=[k], y=[k], name=f"only in {k}"), r + 1, c + 1)
    fig.update_yaxes(scaleanchor="x4", row=2, col=2)
    fig.update_xaxes(type="log", row=1, col=2)
    fig.add_shape(type="circle", x0=0, x1=1, y0=0, y1=1, row=2, col=1)
    fig.update_layout(height=800)
    parts = split_subplots(fig)
    assert [p.layout.title.text for p in parts] == ["(a) one", "(b) two", "(c)", "(d)"]
    for k, p in enumerate(parts):
        assert [t.name for t in p.data] == ["rows", f"only in {k}"]
        assert list(p.data[0].x) == [0, k]
        assert all(t.xaxis == "x" and t.yaxis == "y" for t in p.data)
        assert all(t.showlegend for t in p.data)  # every part lists its own traces once
        assert p.layout.height == 460
    assert parts[1].layout.xaxis.type == "log" and parts[0].layout.xaxis.type != "log"
    assert parts[3].layout.yaxis.scaleanchor == "x"
    assert len(parts[2].layout.shapes) == 1 and parts[2].layout.shapes[0].xref == "x"
    assert not parts[0].layout.shapes
    one = go.Figure(go.Scatter(x=[0], y=[0]))
    assert len(split_subplots(one)) == 1


def test_a_legend_under_the_panels_sits_at_each_parts_foot():
    """Placed at a negative fraction of the plot's height, the legend moved with the margin it
    pushed and Plotly redrew the part again and again; at the figure's foot it stays put."""
    from plotly.subplots import make_subplots

    from dpcore.figures.slides import split_subplots

    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Scatter(x=[0, 1], y=[1, 0], name="rows"), 1, 1)
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], name="mean"), 1, 2)
    fig.update_layout(legend={"orientation": "h", "y": -0.15, "yanchor": "top"})
    for part in split_subplots(fig):
        legend = part.layout.legend
        assert (legend.yref, legend.y, legend.yanchor) == ("container", 0.0, "bottom")
        assert legend.orientation == "h" and part.layout.margin.b == 120
    fig.update_layout(legend={"y": 1.0, "yanchor": "bottom"})  # a legend above: left as it is
    assert all(p.layout.legend.yref is None for p in split_subplots(fig))


def test_split_columns_gives_each_column_its_panels_ticks_and_row_titles():
    """A 2 x 3 grid of one column per item (scale and titles written once per row, as the Side by
    side gallery writes them) becomes three figures of two panels, each readable on its own."""
    from plotly.subplots import make_subplots

    from dpcore.figures.slides import split_columns

    fig = make_subplots(rows=2, cols=3, subplot_titles=["A", "B<br>long", "C", "", "", ""])
    for k in range(6):
        r, c = divmod(k, 3)
        fig.add_trace(go.Scatter(x=[0, k], y=[k, 0], name="rows", showlegend=k == 0), r + 1, c + 1)
        fig.add_trace(go.Scatter(x=[k], y=[k], name=f"only in {k}"), r + 1, c + 1)
        fig.update_yaxes(scaleanchor="x" + (str(k + 1) if k else ""), row=r + 1, col=c + 1)
        fig.update_yaxes(range=[-r - 1, r + 1], row=r + 1, col=c + 1)
        if c:  # one scale per row: ticks once, in the first column
            fig.update_xaxes(showticklabels=False, row=r + 1, col=c + 1)
            fig.update_yaxes(showticklabels=False, row=r + 1, col=c + 1)
    fig.update_yaxes(title="top", row=1, col=1)
    fig.update_yaxes(title="bottom", row=2, col=1)
    fig.update_xaxes(title="x", row=2, col=1)
    fig.add_shape(type="circle", x0=0, x1=1, y0=0, y1=1, row=2, col=2)
    fig.update_layout(height=600, title="the grid")
    parts = split_columns(fig)
    assert [p.layout.title.text for p in parts] == ["A", "B long", "C"]
    for c, p in enumerate(parts):
        assert [t.name for t in p.data] == ["rows", f"only in {c}", "rows", f"only in {c + 3}"]
        assert [(t.xaxis, t.yaxis) for t in p.data] == [("x", "y")] * 2 + [("x2", "y2")] * 2
        assert [t.showlegend for t in p.data] == [True, True, False, True]  # each name once
        lay = p.layout
        assert (lay.yaxis.scaleanchor, lay.yaxis2.scaleanchor) == ("x", "x2")
        assert (lay.xaxis.anchor, lay.xaxis2.anchor) == ("y", "y2")
        assert tuple(lay.yaxis.range) == (-1, 1) and tuple(lay.yaxis2.range) == (-2, 2)
        assert lay.yaxis.domain[0] > lay.yaxis2.domain[1]  # the first row above the second
        assert tuple(lay.xaxis.domain) == (0.0, 1.0) == tuple(lay.xaxis2.domain)
        assert (lay.yaxis.title.text, lay.yaxis2.title.text, lay.xaxis2.title.text) == (
            "top",
            "bottom",
            "x",
        )
        assert lay.xaxis.showticklabels is None and lay.yaxis2.showticklabels is None
        assert lay.height == 600
    assert len(parts[1].layout.shapes) == 1 and parts[1].layout.shapes[0].xref == "x2"
    assert not parts[0].layout.shapes
    one = go.Figure(go.Scatter(x=[0], y=[0]))
    assert len(split_columns(one)) == 1
