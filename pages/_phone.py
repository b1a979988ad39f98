"""Charts on a phone (or any narrow or touch screen): a chart's words must not sit on each other.

Plotly's toolbar (shown on a tap) would cover the chart title, and a legend of several rows grows
up into the title. On such screens the toolbar is hidden, and where a title line precedes a chart
(:func:`title_line`, which wider screens do not show) the title plotly draws gives way to it.
``app.py`` adds the rules (:func:`phone_style`) to every run; ``pages._ui.chart`` writes the
title lines. tests/e2e/test_phone_browser.py measures every page at 375 px.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from dpcore.figures.style import PreparedFigure

#: The narrow-screen rules (640 px: Streamlit's own breakpoint for stacking columns).
PHONE_CSS = """<style>
.dp-grid-title { font-weight: 600; margin: 0; }
@media (max-width: 640px), (hover: none) and (pointer: coarse) {
  .js-plotly-plot .modebar-container { display: none !important; }
}
@media (max-width: 640px) {
  [data-testid="stElementContainer"]:has(.dp-phone-title) + [data-testid="stElementContainer"]
    .js-plotly-plot .g-gtitle { display: none; }
  .dp-phone-title { font-weight: 600; margin: 0 0 -0.5rem 0; }
}
@media (min-width: 641px) {
  [data-testid="stElementContainer"]:has(.dp-phone-title) { display: none; }
}
</style>"""


def phone_style() -> None:
    """Add :data:`PHONE_CSS` to this run (``app.py`` calls it once per run)."""
    st.html(PHONE_CSS)


def plain_title(title: str | None) -> str:
    """``title`` without plotly's markup (``<br>``, ``<b>``), on one line."""
    return " ".join(re.sub(r"<[^>]*>", " ", title or "").split())


def title_line(where: Any, title: str | None) -> None:
    """``title`` (plotly's markup: ``<br>``, ``<b>``) as plain text above a chart, in ``where``
    (``st`` or a column), shown on narrow screens only (:data:`PHONE_CSS`)."""
    text = plain_title(title)
    if text:
        where.html(f'<p class="dp-phone-title">{escape(text)}</p>')


def figure_title(fig: Any) -> str | None:
    """The title text of a figure or of a :class:`PreparedFigure` (``None`` when it has none)."""
    if isinstance(fig, PreparedFigure):
        title = fig.to_dict().get("layout", {}).get("title") or {}
        return title.get("text") if isinstance(title, dict) else None
    return fig.layout.title.text if isinstance(fig, go.Figure) else None
