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
